import Foundation
import Lifeline
import LifelineCore
import Observation
import Testing

@testable import LifelineStoat

@Suite("The @Observable model, on Linux too", .hangBound)
@MainActor
struct StoatClientModelTests {
    /// Waits until Observation reports a change of what `read` reads, then returns.
    func change(of read: @escaping @MainActor () -> Void, after trigger: @escaping @MainActor () async -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            withObservationTracking {
                read()
            } onChange: {
                continuation.resume()
            }
            Task { @MainActor in await trigger() }
        }
    }

    @Test("the model's chats and presentation change with the client, and Observation reports each change")
    func followsTheClient() async throws {
        // No server is needed: the cache and READY's notice change without a network.
        let client = StoatClient(apiURL: URL(string: "http://127.0.0.1:9")!, network: ManualNetworkMonitor(.online))
        let model = StoatClientModel(client: client)
        #expect(model.chats.isEmpty)
        let running = Task { await client.run() }
        let following = Task { await model.run() }

        let world = World()
        await change(of: { _ = model.chats }) {
            client.cache.receive(.ready(world.ready))
        }
        #expect(Set(model.chats.map(\.id)) == [world.general, world.random, world.dm, world.notes])
        // The unread state the first screen shows moves with the client: a message, then an ack elsewhere.
        let message = world.message(20_000, in: world.dm, "hi")
        await change(of: { _ = model.chats }) { client.cache.receive(.message(message)) }
        #expect(model.chats.first { $0.id == world.dm }?.isUnread == true)
        #expect(model.chats.first { $0.id == world.dm }?.mentionCount == 1)
        await change(of: { _ = model.chats }) {
            client.cache.receive(.channelAck(channel: world.dm, user: world.me.id, messageID: message.id))
        }
        #expect(model.chats.first { $0.id == world.dm }?.isUnread == false)
        #expect(model.chats.first { $0.id == world.dm }?.mentionCount == 0)

        await change(of: { _ = model.presentation }) {
            await client.session.reportLoginFailure(LoginFailure(code: .api(.invalidCredentials), message: "Wrong."))
        }
        #expect(
            model.presentation.notice == .loginFailed(LoginFailure(code: .api(.invalidCredentials), message: "Wrong.")))

        following.cancel()
        running.cancel()
        await following.value
        await running.value
    }
}
