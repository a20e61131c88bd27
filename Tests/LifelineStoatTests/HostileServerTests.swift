import Foundation
import Lifeline
import LifelineCore
import LifelineTesting
import StoatReferenceServer
import Testing

@testable import LifelineStoat

/// A client against the reference server's `hostile` fault: absurd numbers in `UserSlowmodes`, member timeouts,
/// rate-limit headers, `429` bodies and the health endpoint. The client stays connected and sending.
@Suite("A hostile server's numbers, end to end", .hangBound)
struct HostileServerTests {
    /// The frame that crashed the client at every launch: stoatchat sends `UserSlowmodes` after every `Ready`.
    static func crashFrame(channel: String) -> String {
        #"{"type":"UserSlowmodes","slowmodes":[{"channel_id":"\#(channel)","duration":1,"retry_after":9223372036854775807}]}"#
    }

    @Test("the crash frame, on the real clock, leaves the client connected and sending, after a reconnect too")
    func crashFrameOnTheRealClock() async throws {
        let server = try await ReferenceServer.start()
        let channel = server.lobbyChannelID
        // The continuous clock: a test clock takes any instant, `ContinuousClock` trapped on this one.
        let client = StoatClient(apiURL: server.apiURL, configuration: .patient, network: ManualNetworkMonitor(.online))
        let recorder = SnapshotRecorder(client.session.states)
        var events = client.restrictionEvents.makeAsyncIterator()
        let runner = Task { await client.run() }
        let account = server.defaultAccount
        await client.resume(SessionCredentials(token: account.token, userID: account.userID))
        #expect(await recorder.next(.connected) != nil)

        #expect(await server.sendRawFrame(Self.crashFrame(channel: channel), token: account.token) == 1)
        guard case .started(let slowmode)? = await events.next() else {
            Issue.record("no slowmode")
            return
        }
        #expect(slowmode.id == StoatRestriction.ID(.slowmode, channel))
        #expect(slowmode.retryAfter == 31_622_400, "clamped to 366 days")
        #expect(client.session.snapshot.state == .connected)
        // The outbox waits out a slowmode the server states, never longer than the horizon.
        try await Self.expectSentOrBoundedWait(client, sending: "still here", to: channel)

        // The hostile fault sends its frames after every Ready: a reconnect meets them again.
        await server.setHostile(true)
        await server.dropAllSockets()
        #expect(await recorder.next(.disconnected) != nil)
        #expect(await recorder.next(.connected) != nil)
        try await server.waitUntil { connections, _ in connections.filter(\.receivedReady).count >= 2 }
        try await Self.expectSentOrBoundedWait(client, sending: "after the reconnect", to: channel)
        #expect(client.session.snapshot.state == .connected)
        runner.cancel()
        await runner.value
        await server.stop()
    }

    /// Sends `text` into a channel under the hostile slowmode through the outbox. Whether the outbox learnt of
    /// the slowmode before it posted is a race (the deadline reaches it on a task of its own; the reference
    /// server keeps no slowmode of its own): either the message is sent, or it waits, queued, for at most 366
    /// days (the clamped `retry_after` plus the outbox's second of resolution) and the user discards it.
    static func expectSentOrBoundedWait(_ client: StoatClient, sending text: String, to channel: String) async throws {
        let events = client.outboxEvents
        let entry = try await client.send(OutgoingMessage(content: text), to: channel)
        func settled(_ state: OutboxEntry.State?) -> Bool {
            switch state {
            case .queued(_?), .sent, .failed: true
            case .queued(nil), .sending, nil: false
            }
        }
        var state = client.outboxState(of: entry.nonce)
        if !settled(state) {
            for await event in events {
                guard case .changed(let changed) = event, changed.nonce == entry.nonce else { continue }
                state = changed.state
                if settled(state) { break }
            }
        }
        switch state {
        case .sent(let id)?:
            #expect(client.cachedHistory(of: channel).messages.contains { $0.id == id && $0.content == text })
        case .queued(let wait?)?:
            #expect(wait > .seconds(31_622_400 - 60) && wait <= .seconds(31_622_400 + 1), "clamped to 366 days")
            try client.discard(entry.nonce)
            #expect(client.outbox.isEmpty)
        default:
            Issue.record("the entry ended \(String(describing: state))")
        }
    }

    @Test("absurd 429s, rate-limit headers and frames delay a send by the capped waits only: connected and sending")
    func rateLimitAnswers() async throws {
        let harness = try await SharedClockHarness()
        await harness.connect()
        // The hostile frames (slowmodes of 2^63 − 1 seconds, a timeout until 9999, each asked about over REST),
        // headers on every answer, and a request refused 429 {"retry_after": 1e300} with Reset-After 1e300:
        // whichever request meets it (the send, or a confirmation racing it), it costs the requests of the bucket
        // it empties the capped wait, 10 s, no more. (One: on the test clock, a second refusal answered after
        // the clock moved would empty the bucket again from there, and the waits would chain past the call's
        // 30 s deadline, as the real clock, moving on its own, never makes them.)
        let restrictionEvents = harness.client.restrictionEvents
        await harness.server.setHostile(true, rejections: 1)
        let cap = StoatRateLimiter.longestWait
        let sent = try await withThrowingTaskGroup(of: Message?.self) { group in
            group.addTask {
                try await harness.client.sendAndWait(
                    OutgoingMessage(content: "patient"), to: harness.server.lobbyChannelID)
            }
            group.addTask {
                // Moves the clock to each rate-limit wait, the capped 10 s (the deadlines' own checks come 1,
                // 2, 4, 8… s apart); a send held back longer would never be sent, and the test would meet its
                // time limit.
                while !Task.isCancelled {
                    let sleep = await harness.clock.nextSleep { harness.clock.now.duration(to: $0) == cap }
                    if !Task.isCancelled { harness.clock.advance(to: sleep) }
                }
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        #expect(sent?.content == "patient")
        #expect(await harness.server.socketCounters().rateLimited == 1, "the refusal was answered")
        #expect(harness.client.session.snapshot.state == .connected)
        // The send's slowmode reaches the deadlines on their own task: waited for, not assumed.
        var slowmodes = harness.client.restrictions.filter { $0.kind == .slowmode }
        if slowmodes.isEmpty {
            for await event in restrictionEvents {
                if case .started(let deadline) = event, deadline.kind == .slowmode { break }
            }
            slowmodes = harness.client.restrictions.filter { $0.kind == .slowmode }
        }
        #expect(!slowmodes.isEmpty)
        #expect(slowmodes.allSatisfy { (0...31_622_400).contains($0.retryAfter ?? -1) })
        // Counted from their arrival, at most the waits after the start.
        #expect(slowmodes.allSatisfy { $0.deadline <= ServerHorizon.longestWait + cap * 2 + .seconds(1) })

        let health = StoatHealthService(api: harness.client.api, url: harness.server.healthURL)
        #expect(try await health.status().pollInterval == ServerHorizon.longestWait)
        await harness.stop()
    }
}
