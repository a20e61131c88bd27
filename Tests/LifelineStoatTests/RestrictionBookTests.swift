import Foundation
import LifelineCore
import Testing

@testable import LifelineStoat

/// The deadline book's stories: one line per fact, then the actions it decided.
@Suite("RestrictionBook: the server's deadlines as facts in, actions out")
struct RestrictionBookTests {
    static let server = "S1"
    static let timeout = StoatRestriction.ID(.timeout, server)
    static let channel = "C1"
    static let slowmode = StoatRestriction.ID(.slowmode, channel)

    /// A time on the server's clock, in seconds since the epoch.
    static func server(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

    /// What a `GET /servers/{id}/members/{me}` told of the server's clock: its Date header (whole seconds),
    /// received at `receivedAt` on the client's clock after a `roundTrip`.
    static func reading(
        date seconds: Int64, receivedAt: Duration, roundTrip: Duration = .milliseconds(100)
    ) -> ServerClockAnchor {
        ServerClockAnchor(
            serverTime: WallClockTime(secondsSince1970: seconds), resolution: .seconds(1), roundTrip: roundTrip,
            receivedAt: receivedAt)
    }

    /// A book that announced a timeout until server time 1 060, anchored when the server said 1 000 at
    /// client time 5 s: asked about at 5 + 60 + 1 = 66 s (ticket 2).
    static func announcedTimeout() -> RestrictionBook {
        var book = RestrictionBook()
        _ = book.timeoutSet(server: server, until: server(1_060), now: .seconds(5))
        _ = book.memberAnswered(
            server: server, ticket: 1, timeout: server(1_060), anchor: reading(date: 1_000, receivedAt: .seconds(5)),
            now: .seconds(5))
        return book
    }

    @Test("a timeout met before the server's clock is known is confirmed first, then announced and watched")
    func timeoutAnchoredByItsConfirmation() {
        var book = RestrictionBook()
        #expect(
            book.timeoutSet(server: Self.server, until: Self.server(1_060), now: .seconds(5)) == [
                .confirm(Self.timeout, ticket: 1)
            ])
        #expect(book.restrictions.isEmpty, "not announced before the server's clock says it is on")
        let answer = book.memberAnswered(
            server: Self.server, ticket: 1, timeout: Self.server(1_060),
            anchor: Self.reading(date: 1_000, receivedAt: .seconds(5)), now: .seconds(5))
        // The server's clock read at least 1 000 at 5 s: it passes 1 060 by 65 s; the check waits for the
        // Date header's second too, so the answer then shows it passed.
        let started = StoatRestriction(id: Self.timeout, until: Self.server(1_060), deadline: .seconds(66))
        #expect(answer == [.watch(ticket: 2, at: .seconds(66)), .announce(.started(started))])
        #expect(book.restrictions == [started])
    }

    @Test("at the check the server is asked; an answer whose Date has passed the timeout ends it, confirmed")
    func confirmedAtTheCheck() {
        var book = Self.announcedTimeout()
        #expect(book.watchFired(ticket: 2, now: .seconds(66)) == [.confirm(Self.timeout, ticket: 3)])
        var awaiting = StoatRestriction(id: Self.timeout, until: Self.server(1_060), deadline: .seconds(66))
        awaiting.state = .awaitingConfirmation
        #expect(book.restrictions == [awaiting], "listed, awaiting the server's word")
        let answer = book.memberAnswered(
            server: Self.server, ticket: 3, timeout: Self.server(1_060),
            anchor: Self.reading(date: 1_061, receivedAt: .seconds(66.1)), now: .seconds(66.1))
        #expect(answer == [.announce(.ended(awaiting, .confirmed))])
        #expect(book.restrictions.isEmpty)
    }

    @Test("a member without a timeout any more is over too")
    func clearedMemberIsOver() {
        var book = Self.announcedTimeout()
        _ = book.watchFired(ticket: 2, now: .seconds(66))
        let answer = book.memberAnswered(
            server: Self.server, ticket: 3, timeout: nil, anchor: Self.reading(date: 1_061, receivedAt: .seconds(66)),
            now: .seconds(66))
        #expect(answer.count == 1)
        #expect(book.restrictions.isEmpty)
    }

    @Test("a server whose clock is still before the timeout at the check keeps it: re-anchored, asked again later")
    func stillOnIsCheckedAgain() {
        var book = Self.announcedTimeout()
        _ = book.watchFired(ticket: 2, now: .seconds(66))
        // The server's clock was set back 10 s: it says 1 051 at 66 s.
        let answer = book.memberAnswered(
            server: Self.server, ticket: 3, timeout: Self.server(1_060),
            anchor: Self.reading(date: 1_051, receivedAt: .seconds(66)), now: .seconds(66))
        #expect(answer == [.watch(ticket: 4, at: .seconds(76))], "no announcement: the same timeout, still on")
        #expect(book.restrictions.map(\.state) == [.active])
        #expect(book.restrictions.map(\.deadline) == [.seconds(76)])
        // Asked again and still on: at the new reading's check, never sooner than the re-check delay (1 s,
        // 2 s, 4 s…), so a server whose clock stands still is not asked in a loop.
        _ = book.watchFired(ticket: 4, now: .seconds(76))
        let again = book.memberAnswered(
            server: Self.server, ticket: 5, timeout: Self.server(1_060),
            anchor: Self.reading(date: 1_059, receivedAt: .seconds(76)), now: .seconds(76))
        #expect(again == [.watch(ticket: 6, at: .seconds(78))])
        _ = book.watchFired(ticket: 6, now: .seconds(78))
        let stalled = book.memberAnswered(
            server: Self.server, ticket: 7, timeout: Self.server(1_060),
            anchor: Self.reading(date: 1_059, receivedAt: .seconds(78)), now: .seconds(78))
        #expect(stalled == [.watch(ticket: 8, at: .seconds(82))], "4 s, not the reading's 80 s")
    }

    @Test("one confirmation reads the server's clock for every timeout waiting for it, and decides them all")
    func oneReadingForAll() {
        var book = RestrictionBook()
        let timeouts = ["S1": Self.server(1_060), "S2": Self.server(990), "S3": Self.server(1_030)]
        #expect(book.ready(timeouts: timeouts, now: .seconds(5)) == [.confirm(Self.timeout, ticket: 1)])
        let answer = book.memberAnswered(
            server: "S1", ticket: 1, timeout: Self.server(1_060),
            anchor: Self.reading(date: 1_000, receivedAt: .seconds(5)), now: .seconds(5))
        let third = StoatRestriction(id: .init(.timeout, "S3"), until: Self.server(1_030), deadline: .seconds(36))
        let first = StoatRestriction(id: Self.timeout, until: Self.server(1_060), deadline: .seconds(66))
        #expect(
            answer == [
                .watch(ticket: 2, at: .seconds(36)), .announce(.started(third)),
                .watch(ticket: 3, at: .seconds(66)), .announce(.started(first)),
            ], "S2's timeout, long over, is dropped without a word")
        #expect(book.restrictions == [third, first])
        #expect(!book.holds(.init(.timeout, "S2")))
    }

    @Test("when the timeout whose confirmation was to read the clock is cleared, the next one waiting asks")
    func readingHandedOn() {
        var book = RestrictionBook()
        let timeouts = ["S1": Self.server(1_060), "S2": Self.server(1_030)]
        #expect(book.ready(timeouts: timeouts, now: .seconds(5)) == [.confirm(Self.timeout, ticket: 1)])
        #expect(book.ended(Self.timeout, .cleared) == [.confirm(.init(.timeout, "S2"), ticket: 2)])
        // The cleared one's answer still reads the clock; S2's own question decides it.
        #expect(
            book.memberAnswered(
                server: "S1", ticket: 1, timeout: Self.server(1_060),
                anchor: Self.reading(date: 1_000, receivedAt: .seconds(5)), now: .seconds(5)) == [])
        #expect(
            book.confirmationFailed(.init(.timeout, "S2"), ticket: 2, now: .seconds(5)) == [
                .watch(ticket: 3, at: .seconds(6))
            ])
    }

    @Test("a confirmation that fails keeps the deadline, asks again after 1 s, 2 s…, and at once on Ready")
    func failedConfirmations() {
        var book = Self.announcedTimeout()
        _ = book.watchFired(ticket: 2, now: .seconds(66))
        #expect(
            book.confirmationFailed(Self.timeout, ticket: 3, now: .seconds(66)) == [
                .watch(ticket: 4, at: .seconds(67))
            ])
        #expect(book.restrictions.map(\.state) == [.awaitingConfirmation], "never dropped locally")
        #expect(book.watchFired(ticket: 4, now: .seconds(67)) == [.confirm(Self.timeout, ticket: 5)])
        #expect(
            book.confirmationFailed(Self.timeout, ticket: 5, now: .seconds(67)) == [
                .watch(ticket: 6, at: .seconds(69))
            ])
        // The session reconnected: Ready still lists the timeout, and the server is asked now.
        #expect(
            book.ready(timeouts: [Self.server: Self.server(1_060)], now: .seconds(68)) == [
                .unwatch(ticket: 6), .confirm(Self.timeout, ticket: 7),
            ])
    }

    @Test("with the server's clock known, a timeout already past is dropped without a word (Ready's last timeout)")
    func pastTimeoutIgnored() {
        var book = RestrictionBook()
        _ = book.memberAnswered(
            server: "other", ticket: 99, timeout: nil, anchor: Self.reading(date: 1_000, receivedAt: .seconds(5)),
            now: .seconds(5))
        #expect(book.anchor != nil, "any answer's Date reads the server's clock")
        #expect(book.timeoutSet(server: Self.server, until: Self.server(990), now: .seconds(5)) == [])
        #expect(book.restrictions.isEmpty)
        #expect(!book.holds(Self.timeout))
        // One that is on is announced at once, without asking.
        let actions = book.timeoutSet(server: Self.server, until: Self.server(1_030), now: .seconds(5))
        let started = StoatRestriction(id: Self.timeout, until: Self.server(1_030), deadline: .seconds(36))
        #expect(actions == [.watch(ticket: 1, at: .seconds(36)), .announce(.started(started))])
    }

    @Test("the socket's clear ends it at once, and a confirmation's late answer changes nothing")
    func clearedBySocket() {
        var book = Self.announcedTimeout()
        _ = book.watchFired(ticket: 2, now: .seconds(66))
        let awaiting = book.restrictions[0]
        #expect(book.ended(Self.timeout, .cleared) == [.announce(.ended(awaiting, .cleared))])
        let late = book.memberAnswered(
            server: Self.server, ticket: 3, timeout: Self.server(1_060),
            anchor: Self.reading(date: 1_050, receivedAt: .seconds(66)), now: .seconds(66))
        #expect(late == [])
        #expect(book.restrictions.isEmpty)
    }

    @Test("a longer timeout moves the deadline and is announced again; Ready without it ends it")
    func movedThenEndedByReady() {
        var book = Self.announcedTimeout()
        let moved = book.timeoutSet(server: Self.server, until: Self.server(1_120), now: .seconds(10))
        let started = StoatRestriction(id: Self.timeout, until: Self.server(1_120), deadline: .seconds(126))
        #expect(moved == [.unwatch(ticket: 2), .watch(ticket: 3, at: .seconds(126)), .announce(.started(started))])
        #expect(
            book.ready(timeouts: [:], now: .seconds(20)) == [
                .unwatch(ticket: 3), .announce(.ended(started, .cleared)),
            ])
    }

    @Test("a slowmode counts from its arrival plus a second; restated it changes nothing; ended by its channel")
    func slowmodes() {
        var book = RestrictionBook()
        let started = StoatRestriction(id: Self.slowmode, retryAfter: 30, deadline: .seconds(41))
        #expect(
            book.slowmodeSet(channel: Self.channel, retryAfter: 30, now: .seconds(10)) == [
                .watch(ticket: 1, at: .seconds(41)), .announce(.started(started)),
            ])
        // A refused send 12 s later says 18 s are left: the same slowmode.
        #expect(book.slowmodeSet(channel: Self.channel, retryAfter: 18, now: .seconds(22)) == [])
        #expect(book.watchFired(ticket: 1, now: .seconds(41)) == [.confirm(Self.slowmode, ticket: 2)])
        var awaiting = started
        awaiting.state = .awaitingConfirmation
        #expect(book.channelAnswered(channel: Self.channel, ticket: 2) == [.announce(.ended(awaiting, .confirmed))])
        // A new one, then the channel loses its slowmode.
        _ = book.slowmodeSet(channel: Self.channel, retryAfter: 30, now: .seconds(50))
        #expect(book.ended(Self.slowmode, .cleared).count == 2)
        #expect(book.restrictions.isEmpty)
    }

    @Test("a confirmation that finds the server or channel gone ends it as gone")
    func gone() {
        var book = RestrictionBook()
        _ = book.slowmodeSet(channel: Self.channel, retryAfter: 5, now: .zero)
        _ = book.watchFired(ticket: 1, now: .seconds(6))
        let awaiting = book.restrictions[0]
        #expect(book.targetGone(Self.slowmode, ticket: 2) == [.announce(.ended(awaiting, .gone))])
    }

    @Test("a watch that fired after it was replaced, and DISPOSE, change nothing that was not asked")
    func staleWatchAndReset() {
        var book = Self.announcedTimeout()
        _ = book.timeoutSet(server: Self.server, until: Self.server(1_120), now: .seconds(10))
        #expect(book.watchFired(ticket: 2, now: .seconds(66)) == [], "the replaced watch")
        _ = book.slowmodeSet(channel: Self.channel, retryAfter: 5, now: .zero)
        #expect(book.reset() == [.unwatch(ticket: 3), .unwatch(ticket: 4)], "no announcement")
        #expect(book.restrictions.isEmpty)
    }
}
