import Foundation
import Lifeline
import LifelineCore
import LifelineTesting
import StoatReferenceServer
import Testing

@testable import LifelineStoat

/// The delivery check, on by default: a passive reader's ghost socket (stoatchat#649: `Pong`s, no events) is left
/// as deaf and reconnected, and the catch-up brings what it swallowed; the check reads only while the socket is
/// quiet, at most 4 requests a minute.
@Suite("The delivery check against the reference server", .hangBound)
struct DeliveryCheckTests {
    static let query = "GET /channels/{id}/messages"

    /// A client with the default check, the lobby's general channel open, connected and caught up.
    func connected(_ harness: OutboxHarness) async throws -> (StoatClient, SnapshotRecorder) {
        // The check waits for the connection's catch-up to complete; these tests are not about its second pass
        // (LaggingCatchUpTests are), so the server writes `last_message_id` at once and the client makes one pass.
        await harness.server.setLastMessageIDLag(false)
        var catchUp = CatchUpPolicy.standard
        catchUp.settleDelay = .zero
        let (client, recorder) = harness.client(check: StoatClient.Configuration().deliveryCheck, catchUp: catchUp)
        client.open(harness.server.lobbyChannelID)
        let reports = client.catchUps
        await client.resume(harness.credentials)
        await recorder.next(.connected)
        for await report in reports {
            #expect(report.isComplete)
            break
        }
        return (client, recorder)
    }

    /// Lets the check loop's wake-up at `seconds` come (it registers its sleep first), then waits for its request.
    func check(at seconds: Double, _ harness: OutboxHarness, expecting count: Int) async {
        await waitForCheckLoop(asleepUntil: seconds, harness)
        harness.advance(to: seconds)
        await waitUntil { await harness.server.requestCounts()[Self.query] ?? 0 >= count }
    }

    /// Waits until a sleep until `seconds` is pending — the check loop's, which it registers once the check before
    /// it is done. Not `TestClock.waitForSleep(until:)`: that also reports sleeps cancelled since, and another one
    /// armed at 0 ended at 30 s too (a 30-s timer such as the Ready timeout's), so it let the test move the clock
    /// on while the check of 15 s was still reading, and the loop then slept from 20 s (about one run in five).
    func waitForCheckLoop(asleepUntil seconds: Double, _ harness: OutboxHarness) async {
        let deadline = TestClock.Instant(offset: .milliseconds(Int64(seconds * 1000)))
        await waitUntil { harness.clock.pendingDeadlines.contains(deadline) }
    }

    @Test("On by default, every 15 s: at most 4 requests a minute")
    func defaults() {
        #expect(StoatClient.Configuration().deliveryCheck == .seconds(15))
    }

    @Test(
        "A passive reader's ghost socket: the check finds the message it swallowed, the session leaves it as deaf within two minutes, and the catch-up brings it",
        arguments: [
            // Deaf after the first check read the open channel: a later reading owes what is newer than it saw.
            20.0,
            // Deaf before any check read it: the first reading owes what is newer than the cache's newest message.
            5.0,
        ]
    )
    func ghostSocket(deafAt: Double) async throws {
        let harness = try await OutboxHarness()
        let general = harness.server.lobbyChannelID
        let (client, recorder) = try await connected(harness)
        await harness.server.resetRequestCounts()
        var tick = 15.0
        if deafAt > tick {
            // The first check (15 s after the last event, Ready) finds nothing newer than the cache holds.
            await check(at: tick, harness, expecting: 1)
            tick += 15
        }
        // The socket goes deaf; a friend posts. Nothing arrives, so the socket stays quiet.
        await waitForCheckLoop(asleepUntil: tick, harness)
        harness.advance(to: deafAt)
        #expect(await harness.server.deafenSockets() == 1)
        let friend = try await harness.server.addUser(username: "friend")
        try await harness.server.join(userID: friend.userID, serverID: harness.server.lobbyServerID)
        let swallowed = try await harness.server.postMessage(as: friend.userID, in: general, content: "unheard")
        // The checks read the open channel and the recent chats in turn, every 15 s; the one of the open channel
        // finds it: owed, on the delivery deadline (15 s ± 20 %), which a later tick passes.
        while client.session.snapshot.state == .connected, tick <= 140 {
            harness.advance(to: tick)
            // The check loop sleeps again once this tick's check is done.
            await waitForCheckLoop(asleepUntil: tick + 15, harness)
            tick += 15
        }
        try #require(client.session.snapshot.state != .connected, "still CONNECTED on the deaf socket at 140 s")
        let stalled = try #require(await recorder.next(.disconnected))
        let transition = try #require(stalled.transitions.first { $0.to == .disconnected })
        #expect(transition.cause?.code == .temporary(.deliveryStalled))
        let retry = try #require(client.session.snapshot.nextRetry)
        harness.clock.advance(to: .init(offset: retry))
        let reconnected = try #require(await recorder.next(.connected))
        #expect(
            reconnected.time - .milliseconds(Int64(deafAt * 1000)) <= .seconds(120),
            "reconnected \(reconnected.time) after deaf at \(deafAt) s")
        let history = await harness.history(of: client, general) { $0.messages.contains { $0.id == swallowed.id } }
        #expect(history?.isStale == false)
        await harness.stop()
    }

    @Test("While events arrive the check reads nothing; quiet, it reads once per 15 s, never a message it already saw")
    func onlyWhileQuiet() async throws {
        let harness = try await OutboxHarness()
        let general = harness.server.lobbyChannelID
        let friend = try await harness.server.addUser(username: "friend")
        try await harness.server.join(userID: friend.userID, serverID: harness.server.lobbyServerID)
        let (client, recorder) = try await connected(harness)
        await harness.server.resetRequestCounts()
        // A message every 10 s for two minutes: each one an event, so no check is ever due.
        for second in stride(from: 10, through: 120, by: 10) {
            harness.advance(to: Double(second))
            let message = try await harness.server.postMessage(as: friend.userID, in: general, content: "\(second)")
            _ = await harness.history(of: client, general) { $0.messages.contains { $0.id == message.id } }
        }
        #expect(await harness.server.requestCounts()[Self.query] == nil, "no check while events arrive")
        // Quiet from 120 s: a check at each 15 s tick once 15 s passed without an event — 4 in the next minute.
        var count = 0
        var next = 135.0
        while next <= 180 {
            count += 1
            await check(at: next, harness, expecting: count)
            next += 15
        }
        #expect(await harness.server.requestCounts()[Self.query] == 4)
        #expect(client.session.snapshot.state == .connected, "every message was delivered: nothing owed")
        _ = recorder
        await harness.stop()
    }

    @Test(
        "On the gateway a webhook's message reaches no socket: found by the check, it joins the history and is never owed, so the session stays CONNECTED"
    )
    func webhookNeverOwed() async throws {
        let harness = try await OutboxHarness(events: .gateway)
        let general = harness.server.lobbyChannelID
        let (client, recorder) = try await connected(harness)
        await harness.server.resetRequestCounts()
        // The first check (15 s after Ready) notes where the open channel stands.
        await check(at: 15, harness, expecting: 1)
        await waitForCheckLoop(asleepUntil: 30, harness)
        let hook = try await harness.server.postWebhookMessage(in: general, name: "CI", content: "build passed")
        // The checks read the open channel and the recent chats in turn: one of them finds the webhook's message.
        var tick = 30.0
        while !client.cachedHistory(of: general).messages.contains(where: { $0.id == hook.id }), tick <= 120 {
            harness.advance(to: tick)
            await waitForCheckLoop(asleepUntil: tick + 15, harness)
            tick += 15
        }
        let found = try #require(client.cachedHistory(of: general).messages.first { $0.id == hook.id })
        #expect(found.webhook?.name == "CI")
        // Three more intervals, well past the delivery deadline (15 s ± 20 %) a message owed would have.
        for _ in 0..<3 {
            harness.advance(to: tick)
            await waitForCheckLoop(asleepUntil: tick + 15, harness)
            tick += 15
        }
        #expect(!(await recorder.stateTrail).contains(.disconnected), "never owed: the socket was not left")
        #expect(client.session.snapshot.state == .connected)
        await harness.stop()
    }
}
