import Foundation
import Lifeline
import LifelineCore
import Observation
import Synchronization
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

    @Test(
        "the last failure stays after the session recovers, with when it came; a failure seen only in merged transitions counts"
    )
    func lastFailureOutlivesTheOutage() {
        let client = StoatClient(apiURL: URL(string: "http://127.0.0.1:9")!, network: ManualNetworkMonitor(.online))
        let clock = Mutex(Date(timeIntervalSince1970: 1_000))
        let model = StoatClientModel(client: client, now: { clock.withLock { $0 } })
        #expect(model.lastFailure == nil)
        let heartbeat = SessionFailure.temporary(TemporaryFailureCause(code: .heartbeatTimeout, message: "no Pong"))
        let refused = SessionFailure.temporary(TemporaryFailureCause(code: .connectFailed, message: "refused"))
        /// A snapshot as the session publishes it: the last error cleared in CONNECTED (a merged snapshot keeps the
        /// newer one's), else the last cause.
        func snapshot(_ state: SessionState, _ transitions: [SessionTransition]) -> SessionSnapshot {
            let cause = state == .connected ? nil : transitions.last { $0.cause != nil }?.cause
            return SessionSnapshot(
                state: state, presentation: Presentation(screen: .client), failures: 0,
                lastError: cause.map(SessionError.init), transitions: transitions)
        }

        model.apply(
            snapshot(
                .disconnected, [.init(from: .connected, event: .temporaryFailure, to: .disconnected, cause: heartbeat)])
        )
        #expect(model.lastFailure == SessionError(heartbeat))
        #expect(model.lastFailureDate == Date(timeIntervalSince1970: 1_000))

        // CONNECTED again: the snapshot's last error is gone, the model's last failure is not.
        clock.withLock { $0 = Date(timeIntervalSince1970: 1_030) }
        model.apply(snapshot(.connected, [.init(from: .connecting, event: .socketConnected, to: .connected)]))
        #expect(model.snapshot.lastError == nil)
        #expect(model.lastFailure == SessionError(heartbeat))
        #expect(model.lastFailureDate == Date(timeIntervalSince1970: 1_000))

        // An observer that fell behind gets the failure and the recovery in one snapshot: the failure still counts.
        clock.withLock { $0 = Date(timeIntervalSince1970: 1_090) }
        model.apply(
            snapshot(
                .connected,
                [
                    .init(from: .connected, event: .temporaryFailure, to: .disconnected, cause: refused),
                    .init(from: .disconnected, event: .retry, to: .connecting),
                    .init(from: .connecting, event: .socketConnected, to: .connected),
                ]))
        #expect(model.lastFailure == SessionError(refused))
        #expect(model.lastFailureDate == Date(timeIntervalSince1970: 1_090))
    }
}
