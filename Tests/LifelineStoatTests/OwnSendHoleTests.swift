import Foundation
import Lifeline
import LifelineCore
import LifelineTesting
import StoatReferenceServer
import Testing

@testable import LifelineStoat

/// A message known on its own — the answer to the user's own post — is no evidence that the history is whole up to
/// it: what another user posted before it, while the socket was deaf, is still fetched after the reconnect.
@Suite("An own send hides no hole, against the reference server", .hangBound)
struct OwnSendHoleTests {
    /// Deafens the client's socket, has the friend post in `channel`, then sends as the user: the post's answer
    /// joins the history, the friend's message does not. Returns both.
    func deafThenSend(
        _ world: CatchUpWorld, in channel: String
    ) async throws -> (missed: StoatMessage, own: String) {
        #expect(await world.server.deafenSockets() == 1)
        let missed = try await world.post("posted while you were deaf", in: channel)
        let entry = try await world.client.send(OutgoingMessage(content: "anyone here?"), to: channel)
        guard case .sent(let own)? = await world.client.delivery(of: entry.nonce) else {
            throw ReferenceServerError(code: .notFound, message: "the user's own message was not sent")
        }
        let held = world.client.cachedHistory(of: channel).messages.map(\.id)
        #expect(held.contains(own))
        #expect(!held.contains(missed.id), "the deaf socket never brought it")
        return (missed, own)
    }

    @Test(
        "The open channel: a message posted while the socket was deaf, then the user's own; after the reconnect both are in the history, the other caught up once"
    )
    func openChannel() async throws {
        let world = try await CatchUpWorld()
        let quiet = try await world.server.addTextChannel(serverID: world.server.lobbyServerID, name: "quiet").id
        world.client.open(quiet)
        await world.connect()
        #expect(world.client.cachedHistory(of: quiet).messages.isEmpty)
        #expect(!world.client.cachedHistory(of: quiet).isStale, "an empty channel, caught up")
        let (missed, own) = try await deafThenSend(world, in: quiet)
        let disconnected = try await world.dropped()
        let report = try #require(try await world.reconnect(after: disconnected))
        #expect(report.isComplete)
        #expect(world.client.cachedHistory(of: quiet).messages.map(\.id) == [missed.id, own])
        #expect(world.received.filter { $0.id == missed.id }.map(\.origin) == [.caughtUp])
        #expect(world.received.filter { $0.id == own }.map(\.origin) == [.live], "the user's own, once")
        #expect(world.client.cache.read { $0.unconfirmed[quiet] } == nil, "settled by the catch-up")
        await world.stop()
    }

    @Test(
        "A chat neither open nor on the first screen: its cursor stays below the user's own message, so the next catch-up fetches what lies under it"
    )
    func otherChat() async throws {
        let world = try await CatchUpWorld(catchUp: CatchUpPolicy(firstScreen: 0))
        await world.connect()
        let seen = try await world.post("seen", in: world.random)
        await world.streamed(1) { $0.id == seen.id }
        let (missed, own) = try await deafThenSend(world, in: world.random)
        let disconnected = try await world.dropped()
        let report = try #require(try await world.reconnect(after: disconnected))
        #expect(report.isComplete)
        #expect(world.client.cachedHistory(of: world.random).messages.map(\.id) == [seen.id, missed.id, own])
        #expect(world.received.filter { $0.id == missed.id }.map(\.origin) == [.caughtUp])
        await world.stop()
    }

    @Test("The socket's echo of the user's own message settles it: the history is whole up to it again")
    func echoSettles() async throws {
        let world = try await CatchUpWorld()
        await world.connect()
        let entry = try await world.client.send(OutgoingMessage(content: "heard"), to: world.random)
        guard case .sent(let own)? = await world.client.delivery(of: entry.nonce) else {
            Issue.record("not sent")
            return
        }
        // The echo may come before or after the answer; once it came, nothing is left unconfirmed.
        await world.streamed(1) { $0.id == own }
        await waitUntil { world.client.cache.read { $0.unconfirmed[world.random] } == nil }
        await world.stop()
    }
}
