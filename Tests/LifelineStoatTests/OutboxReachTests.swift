import Foundation
import Lifeline
import LifelineCore
import LifelineTesting
import StoatReferenceServer
import Testing

@testable import LifelineStoat

/// Where the outbox's reach ends and where it does not: a look-up the server refuses ends the entry as "may have
/// been sent" (never a loop, never a second post), and posts go out whenever the API answers, not only while the
/// socket is CONNECTED.
@Suite("The outbox's reach against the reference server", .hangBound)
struct OutboxReachTests {
    static let post = "POST /channels/{id}/messages"
    static let query = "GET /channels/{id}/messages"

    @Test(
        "SendMessage without ReadMessageHistory, the answer lost: the look-up is refused, the entry fails 'may have been sent' — one post, one look-up"
    )
    func lookUpRefused() async throws {
        let harness = try await OutboxHarness()
        let dropBox = try await harness.server.addTextChannel(serverID: harness.server.lobbyServerID, name: "drop box")
        try await harness.server.setChannelDefaultPermissions(
            channelID: dropBox.id, StoatOverride(deny: .readMessageHistory))
        let (client, recorder) = harness.client()
        await client.resume(harness.credentials)
        await recorder.next(.connected)
        await harness.server.setDeaf(true)  // no echo: only a look-up could confirm it
        await harness.server.loseNextSendAnswers(1)
        await harness.server.resetRequestCounts()
        let entry = try await client.send(OutgoingMessage(content: "in the box"), to: dropBox.id)
        guard case .failed(let failure)? = await client.delivery(of: entry.nonce) else {
            Issue.record("not failed")
            return
        }
        #expect(failure.code == .api(.missingPermission))
        #expect(failure.mayHaveBeenSent)
        let counts = await harness.server.requestCounts()
        #expect(counts[Self.post] == 1, "never a second post")
        #expect(counts[Self.query] == 1, "never a loop of look-ups")
        // The server has it once (its owner may read the box).
        let owner = SessionCredentials(token: harness.server.defaultAccount.token)
        let stored = try await harness.api.messages(in: dropBox.id, query: .latest(limit: 10), owner)
        #expect(stored.messages.filter { $0.content == "in the box" }.count == 1)
        // It holds nothing back: the next message to the box goes out, confirmed by its answer.
        let next = try await client.send(OutgoingMessage(content: "and another"), to: dropBox.id)
        guard case .sent? = await client.delivery(of: next.nonce) else {
            Issue.record("the next message was held")
            return
        }
        await harness.stop()
    }

    @Test(
        "The events server refuses every socket: posts still go out over REST while DISCONNECTED and RECONNECTING, each confirmed by its answer"
    )
    func postsWithoutSocket() async throws {
        let harness = try await OutboxHarness()
        let (client, recorder) = harness.client()
        await client.resume(harness.credentials)
        await recorder.next(.connected)
        await harness.server.refuseNextUpgrades(1_000_000)
        _ = await harness.server.dropAllSockets()
        await recorder.next(.disconnected)
        // The outbox follows the session's states on its own: the send goes once it, too, knows the socket gone.
        await waitUntil { !client.outboxEngine.knowsConnected }
        let general = harness.server.lobbyChannelID
        let entry = try await client.send(OutgoingMessage(content: "through an outage"), to: general)
        guard case .sent(let id)? = await client.delivery(of: entry.nonce) else {
            Issue.record("not sent")
            return
        }
        #expect(client.session.snapshot.state != .connected)
        let stored = try await harness.messages(in: general, content: "through an outage")
        #expect(stored.map(\.id) == [id])
        #expect(client.cachedHistory(of: general).messages.contains { $0.id == id })
        await harness.stop()
    }

    @Test("Offline the outbox waits: the device has no network, so nothing is posted until it has one")
    func offlineWaits() async throws {
        let harness = try await OutboxHarness()
        let (client, recorder) = harness.client()
        await client.resume(harness.credentials)
        await recorder.next(.connected)
        // The device goes offline; the socket dies with it (OFFLINE is entered once the connection is gone).
        harness.network.set(.offline)
        await recorder.next { $0.network == .offline }
        _ = await harness.server.dropAllSockets()
        await recorder.next(.offline)
        // The outbox follows the session's states on its own: until it heard of OFFLINE, it may still post.
        await waitUntil { !client.outboxEngine.mayPost }
        await harness.server.resetRequestCounts()
        let general = harness.server.lobbyChannelID
        let entry = try await client.send(OutgoingMessage(content: "written offline"), to: general)
        #expect(client.outboxState(of: entry.nonce) == .queued(retryAfter: nil))
        harness.network.set(.online)
        guard case .sent? = await client.delivery(of: entry.nonce) else {
            Issue.record("not sent")
            return
        }
        #expect(await harness.server.requestCounts()[Self.post] == 1)
        await harness.stop()
    }
}
