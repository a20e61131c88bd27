import Foundation
import Lifeline
import LifelineCore
import LifelineStoat
import LifelineTesting
import StoatReferenceServer
import Testing

@Suite("The server's deadlines against the reference server", .hangBound)
struct StoatRestrictionTests {
    @Test(
        "a timeout shows when the server sets it, and ends only when the server confirms it, on its own clock",
        arguments: [-7_200, 0, 7_200] as [Int64])
    func timeoutConfirmedOnTheServersClock(skewSeconds: Int64) async throws {
        let harness = try await SharedClockHarness()
        let lobby = harness.server.lobbyServerID
        var events = harness.client.restrictionEvents.makeAsyncIterator()
        // The server's clock is months from this machine's, and hours more with the skew: the device's wall
        // clock, if it were read, would end the timeout at once or hours late.
        await harness.server.setClockSkew(.seconds(skewSeconds))
        await harness.connect()
        let until = await harness.server.now().addingTimeInterval(60)
        try await harness.server.timeOutMember(userID: harness.account.userID, serverID: lobby, until: until)

        let started = try await nextStart(&events)
        #expect(started.id == StoatRestriction.ID(.timeout, lobby))
        #expect(close(started.until, until))
        // Anchored by the member fetch's Date header at 0 s, which says 0.4 s less than the server's clock:
        // its clock passes `until` by 60.4 s, and the check waits one more second for the header to show it.
        #expect(close(started.deadline, .milliseconds(61_400)), "\(started.deadline)")
        #expect(harness.client.timeout(in: lobby) == started)
        let general = harness.server.lobbyChannelID
        let refused = try await harness.client.send(OutgoingMessage(content: "hello?"), to: general)
        guard case .failed(let failure)? = await harness.client.delivery(of: refused.nonce) else {
            Issue.record("the server refuses the timed-out member's messages")
            return
        }
        #expect(failure.code == .api(.missingPermission))

        harness.clock.advance(to: .init(offset: started.deadline - .milliseconds(1)))
        #expect(harness.client.timeout(in: lobby)?.state == .active, "nothing before the check")
        harness.clock.advance(to: .init(offset: started.deadline))
        guard case .ended(let ended, let reason)? = await events.next() else {
            Issue.record("no end")
            return
        }
        #expect(ended.id == started.id)
        #expect(reason == .confirmed)
        #expect(await harness.server.now() > until, "over on the server's clock when it ended")
        #expect(harness.client.restrictions.isEmpty)
        // The server agrees: the member may speak again.
        let sent = try await harness.client.sendAndWait(OutgoingMessage(content: "back"), to: general)
        #expect(sent.content == "back")
        await harness.stop()
    }

    @Test("a server whose clock is behind at the check keeps the timeout: re-anchored, confirmed later")
    func serverClockBehindAtTheCheck() async throws {
        let harness = try await SharedClockHarness()
        let lobby = harness.server.lobbyServerID
        var events = harness.client.restrictionEvents.makeAsyncIterator()
        await harness.connect()
        let until = await harness.server.now().addingTimeInterval(60)
        try await harness.server.timeOutMember(userID: harness.account.userID, serverID: lobby, until: until)
        let started = try await nextStart(&events)
        // The server's clock is set back 10 s before the check: at 61.4 s it reads 51.8 s past the start.
        await harness.server.setClockSkew(.seconds(-10))
        var updates = harness.client.restrictionUpdates.makeAsyncIterator()
        harness.clock.advance(to: .init(offset: started.deadline))
        // Its answer (Date: 51 s past) still has the member timed out: the check moves to 61.4 + 9.4 + 1.
        while let list = await updates.next(), !close(list.first?.deadline, .milliseconds(71_800)) {}
        let moved = try #require(harness.client.timeout(in: lobby))
        #expect(moved.state == .active)
        #expect(close(moved.until, until))
        harness.clock.advance(to: .init(offset: moved.deadline))
        guard case .ended(_, .confirmed)? = await events.next() else {
            Issue.record("not confirmed over")
            return
        }
        #expect(await harness.server.now() > until)
        await harness.stop()
    }

    @Test("a ServerMemberUpdate that clears the timeout ends it at once, without waiting for its deadline")
    func clearedBySocket() async throws {
        let harness = try await SharedClockHarness()
        let lobby = harness.server.lobbyServerID
        var events = harness.client.restrictionEvents.makeAsyncIterator()
        await harness.connect()
        let until = await harness.server.now().addingTimeInterval(600)
        try await harness.server.timeOutMember(userID: harness.account.userID, serverID: lobby, until: until)
        let started = try await nextStart(&events)
        try await harness.server.timeOutMember(userID: harness.account.userID, serverID: lobby, until: nil)
        guard case .ended(let ended, let reason)? = await events.next() else {
            Issue.record("no end")
            return
        }
        #expect(ended == started)
        #expect(reason == .cleared)
        #expect(harness.clock.now == .init(offset: .zero), "no clock moved")
        #expect(harness.client.restrictions.isEmpty)
        await harness.stop()
    }

    @Test(
        "Ready's timeouts: one in force is announced at connect; with the server's clock known, one already past is not"
    )
    func readyTimeouts() async throws {
        let harness = try await SharedClockHarness()
        let lobby = harness.server.lobbyServerID
        let me = harness.account.userID
        // A second server the user is a member of, with no events: Ready is where the client learns it.
        let other = "01J00000000000000000000OTH"
        await harness.server.addServer(
            StoatServer(id: other, owner: harness.server.defaultAccount.userID, name: "Other"))
        await harness.server.addMember(StoatMember(serverID: other, userID: me, joinedAt: SharedClockHarness.start))
        let until = await harness.server.now().addingTimeInterval(120)
        try await harness.server.timeOutMember(userID: me, serverID: lobby, until: until)
        var events = harness.client.restrictionEvents.makeAsyncIterator()
        await harness.connect()
        let started = try await nextStart(&events)
        #expect(started.id == StoatRestriction.ID(.timeout, lobby))
        #expect(close(started.deadline, .milliseconds(121_400)))
        // Now the server's clock is known: a timeout set in the past (stoatchat keeps a member's last one) is
        // decided on the event, without a word, before the clear that follows it.
        let past = await harness.server.now().addingTimeInterval(-30)
        try await harness.server.timeOutMember(userID: me, serverID: other, until: past)
        try await harness.server.timeOutMember(userID: me, serverID: lobby, until: nil)
        guard case .ended(let ended, .cleared)? = await events.next() else {
            Issue.record("the next event is not the lobby's end")
            return
        }
        #expect(ended.id == started.id, "nothing announced for the past timeout")
        #expect(harness.client.restrictions.isEmpty)
        await harness.stop()
    }

    @Test("leaving the server ends its timeout as gone")
    func leftTheServer() async throws {
        let harness = try await SharedClockHarness()
        let me = harness.account.userID
        let other = "01J00000000000000000000OTH"
        await harness.server.addServer(StoatServer(id: other, owner: harness.server.defaultBot.userID, name: "Other"))
        await harness.server.addMember(StoatMember(serverID: other, userID: me, joinedAt: SharedClockHarness.start))
        var events = harness.client.restrictionEvents.makeAsyncIterator()
        await harness.connect()
        try await harness.server.timeOutMember(
            userID: me, serverID: other, until: await harness.server.now().addingTimeInterval(300))
        guard case .started? = await events.next() else {
            Issue.record("no start")
            return
        }
        try await harness.server.removeMember(userID: me, serverID: other, reason: "Kick")
        guard case .ended(let ended, .gone)? = await events.next() else {
            Issue.record("not ended as gone")
            return
        }
        #expect(ended.target == other)
        await harness.stop()
    }

    @Test("a slowmode starts with the send, is restated by a refused one, and ends when the server's count has run out")
    func slowmode() async throws {
        let harness = try await SharedClockHarness()
        var events = harness.client.restrictionEvents.makeAsyncIterator()
        await harness.connect()
        let channel = try await harness.server.addTextChannel(
            serverID: harness.server.lobbyServerID, name: "slow", slowmode: 30)
        _ = try await harness.client.sendAndWait(OutgoingMessage(content: "first"), to: channel.id)
        let started = try await nextStart(&events)
        #expect(started.id == StoatRestriction.ID(.slowmode, channel.id))
        #expect(started.retryAfter == 30)
        #expect(started.deadline == .seconds(31), "30 s from its arrival, plus the second it is rounded to")
        harness.advance(to: 12)
        // A post within the slowmode, made once (the outbox would wait it out), is refused.
        let credentials = SessionCredentials(token: harness.account.token, userID: harness.account.userID)
        await #expect(throws: StoatAPIError.self, "the server refuses a send within the slowmode") {
            try await harness.client.api.sendMessage(OutgoingMessage(content: "too soon"), in: channel.id, credentials)
        }
        // The refusal's UserSlowmodes (18 s left) is on its way on the socket. A timeout set and cleared
        // after it is announced only once every earlier event was read, the refusal's included.
        let lobby = harness.server.lobbyServerID
        let until = await harness.server.now().addingTimeInterval(600)
        try await harness.server.timeOutMember(userID: harness.account.userID, serverID: lobby, until: until)
        guard case .started(let marker)? = await events.next(), marker.kind == .timeout else {
            Issue.record("no timeout")
            return
        }
        try await harness.server.timeOutMember(userID: harness.account.userID, serverID: lobby, until: nil)
        guard case .ended(let markerEnded, _)? = await events.next(), markerEnded.kind == .timeout else {
            Issue.record("no timeout's end")
            return
        }
        #expect(harness.client.slowmode(in: channel.id) == started, "restated, not moved")
        harness.advance(to: 31)
        let end = await events.next()
        guard case .ended(let ended, .confirmed)? = end else {
            Issue.record("not confirmed over: \(String(describing: end))")
            return
        }
        #expect(ended.id == started.id)
        let again = try await harness.client.sendAndWait(OutgoingMessage(content: "second"), to: channel.id)
        #expect(again.content == "second", "the server agrees")
        guard case .started(let next)? = await events.next() else {
            Issue.record("no second slowmode")
            return
        }
        #expect(next.deadline == .seconds(62))
        try await harness.server.setSlowmode(channelID: channel.id, seconds: nil)
        guard case .ended(_, .cleared)? = await events.next() else {
            Issue.record("the channel's slowmode was removed, and the user's with it")
            return
        }
        await harness.stop()
    }

    @Test("a confirmation the server refuses keeps the deadline, awaiting, and asks again after a second")
    func failedConfirmationIsRetried() async throws {
        let harness = try await SharedClockHarness()
        var events = harness.client.restrictionEvents.makeAsyncIterator()
        await harness.connect()
        let channel = try await harness.server.addTextChannel(
            serverID: harness.server.lobbyServerID, name: "slow", slowmode: 5)
        _ = try await harness.client.sendAndWait(OutgoingMessage(content: "first"), to: channel.id)
        guard case .started? = await events.next() else {
            Issue.record("no start")
            return
        }
        // Every REST session check fails (a database incident): the confirmation at 6 s is refused.
        await harness.server.failSessionLookups(for: nil)
        harness.advance(to: 6)
        try await harness.server.waitUntil(timeout: .failureBound) { _, counters in
            counters.outageSessionChecks == 1
        }
        await harness.clock.waitForSleep(until: .init(offset: .seconds(7)))
        #expect(harness.client.slowmode(in: channel.id)?.state == .awaitingConfirmation, "never dropped locally")
        await harness.server.restoreSessionLookups()
        harness.advance(to: 7)
        guard case .ended(_, .confirmed)? = await events.next() else {
            Issue.record("not confirmed over")
            return
        }
        await harness.stop()
    }
}

/// The next deadline event, which must be a start.
func nextStart(_ events: inout AsyncStream<StoatRestrictionEvent>.Iterator) async throws -> StoatRestriction {
    let event = await events.next()
    guard case .started(let deadline)? = event else {
        throw DeadlineTestFailure(expected: "a start", got: event)
    }
    return deadline
}

/// A deadline event other than the one a test waited for.
struct DeadlineTestFailure: Error, CustomStringConvertible {
    let expected: String
    let got: StoatRestrictionEvent?
    var description: String { "expected \(expected), got \(got.map { "\($0)" } ?? "the end of the events")" }
}
