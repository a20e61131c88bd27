import LifelineCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The deadlines the server set for the signed-in user, as pure bookkeeping: facts in — what the socket
/// said, a watch that fired, what a confirmation answered — and actions out: arm or drop a watch, ask the
/// server, announce a start or an end. It reads no clock (`now` comes in) and does no I/O; the
/// ``RestrictionEngine`` performs its actions.
///
/// - A **timeout** is the member's `until`, on the server's clock. It becomes a deadline on the client's
///   monotonic clock through `LifelineCore`'s `ServerClockAnchor` taken from the `Date` header of the
///   member fetch that confirms it (`GET /servers/{id}/members/{user}`); the device's wall clock is never
///   read. Until an anchor is known, a timeout is confirmed with the server first and announced only when
///   the server's clock is before its `until` (`Ready` lists a member's last timeout long after it ended);
///   one confirmation reads the clock for every timeout that waits for it.
/// - A **slowmode** is the server's own count of seconds (`retry_after`, Redis's TTL in whole seconds),
///   counted from its arrival plus one second of resolution, so its deadline is never early.
/// - At a deadline the server is asked (``Action/confirm(_:ticket:)``); only its answer — or the socket —
///   ends one. A confirmation that fails, or finds a timeout still on, is tried again after the
///   `ExpiryRecheckPolicy`'s delay (1 s, 2 s … 60 s by default). Nothing is ever dropped on the client's
///   own reading of a clock.
///
/// Every watch and confirmation carries a ticket: a firing or an answer whose ticket is no longer the
/// entry's (the socket changed the deadline meanwhile) is a benign race and changes nothing.
struct RestrictionBook: Sendable {
    /// What the engine must do.
    enum Action: Sendable, Equatable {
        /// Wake the book at `at` (on the client's clock) with ``watchFired(ticket:now:)``.
        case watch(ticket: UInt64, at: Duration)
        /// Forget the watch with this ticket.
        case unwatch(ticket: UInt64)
        /// Ask the server whether the deadline is still in force, and answer with ``memberAnswered``,
        /// ``channelAnswered(channel:ticket:)``, ``targetGone(_:ticket:)`` or ``confirmationFailed(_:ticket:now:)``.
        case confirm(StoatRestriction.ID, ticket: UInt64)
        /// Tell the observers.
        case announce(StoatRestrictionEvent)
    }

    /// One deadline the book holds, announced or not yet.
    private struct Entry: Sendable {
        var id: StoatRestriction.ID
        var until: Date?
        var retryAfter: Int?
        /// When the client asks the server whether it is over, on the client's clock, once known.
        var check: Duration?
        var state: StoatRestriction.State = .active
        /// Whether observers were told it started (a timeout waits for the server's clock first).
        var announced = false
        var watch: (ticket: UInt64, at: Duration)?
        /// The confirmation in flight.
        var confirmation: UInt64?
        /// Confirmations that failed, or found a timeout still on after its deadline, in a row.
        var checks = 0
        /// A timeout that waits for another's confirmation to read the server's clock.
        var waitsForAnchor = false

        var deadline: StoatRestriction? {
            guard let check else { return nil }
            return StoatRestriction(id: id, until: until, retryAfter: retryAfter, deadline: check, state: state)
        }
    }

    /// A slowmode's `retry_after` is whole seconds: its deadline is counted one second later, never early.
    static let slowmodeResolution: Duration = .seconds(1)

    /// The delays between confirmations that failed or found a timeout still on.
    let recheck: ExpiryRecheckPolicy
    /// The latest reading of the server's clock, from a confirmation's `Date` header.
    private(set) var anchor: ServerClockAnchor?
    private var entries: [StoatRestriction.ID: Entry] = [:]
    private var nextTicket: UInt64 = 0

    init(recheck: ExpiryRecheckPolicy = .standard) {
        self.recheck = recheck
    }

    /// The deadlines announced and not ended, earliest first.
    var restrictions: [StoatRestriction] {
        entries.values.filter(\.announced).compactMap(\.deadline).sorted {
            ($0.deadline, $0.id) < ($1.deadline, $1.id)
        }
    }

    /// Whether a deadline is held for `id`, announced or waiting for the server's clock.
    func holds(_ id: StoatRestriction.ID) -> Bool { entries[id] != nil }

    // MARK: - What the server said

    /// The user's member in `server` has a `timeout` until `until` (from `Ready` or a `ServerMemberUpdate`).
    mutating func timeoutSet(server: String, until: Date, now: Duration) -> [Action] {
        let id = StoatRestriction.ID(.timeout, server)
        if let known = entries[id], known.until == until { return [] }
        var entry = entries[id] ?? Entry(id: id)
        let actions = stopWatching(&entry)
        entry.until = until
        entry.confirmation = nil  // an answer to an earlier question is about the earlier timeout
        entry.checks = 0
        guard let anchor else {
            // The server's clock is not known yet: one confirmation reads it (its Date header) for all. (This
            // entry's own earlier question, superseded, does not count: its failure would be ignored.)
            entries[id] = nil
            entry.waitsForAnchor = isReadingTheClock
            entries[id] = entry
            return entry.waitsForAnchor ? actions : actions + confirm(id)
        }
        return actions + decide(&entry, anchor, now: now)
    }

    /// The server says the user has to wait `retryAfter` seconds before sending in `channel` again
    /// (`UserSlowmodes`, or a send refused `InSlowmode`).
    ///
    /// `retryAfter` is clamped to `ServerHorizon.longestWait` (366 days): the deadline is then confirmed with the
    /// server, never ended on the client's count, so a longer slowmode is only asked about sooner.
    mutating func slowmodeSet(channel: String, retryAfter stated: Int, now: Duration) -> [Action] {
        let id = StoatRestriction.ID(.slowmode, channel)
        let retryAfter = ServerHorizon.seconds(Int64(stated))
        guard retryAfter > 0 else { return ended(id, .cleared) }
        let check = now + .seconds(retryAfter) + Self.slowmodeResolution
        if let known = entries[id], let previous = known.check, check <= previous + Self.slowmodeResolution {
            // The same slowmode restated (a refused send reports the time left): the earlier bound holds.
            return []
        }
        var entry = entries[id] ?? Entry(id: id)
        var actions = stopWatching(&entry)
        entry.retryAfter = retryAfter
        entry.confirmation = nil
        entry.checks = 0
        actions += start(&entry, at: check)
        return actions
    }

    /// `Ready` arrived: `timeouts` are the user's own member timeouts in every server it lists. A timeout
    /// the book holds for a server without one in `Ready` is over; confirmations waiting after a failure
    /// (the server was unreachable) are sent now.
    mutating func ready(timeouts: [String: Date], now: Duration) -> [Action] {
        var actions: [Action] = []
        for id in entries.keys.sorted() where id.kind == .timeout && timeouts[id.target] == nil {
            actions += ended(id, .cleared)
        }
        for (server, until) in timeouts.sorted(by: { $0.key < $1.key }) {
            actions += timeoutSet(server: server, until: until, now: now)
        }
        for id in entries.keys.sorted() {
            guard var entry = entries[id], entry.checks > 0, entry.confirmation == nil, entry.watch != nil else {
                continue
            }
            actions += stopWatching(&entry)
            entries[id] = entry
            actions += confirm(id)
        }
        return actions
    }

    /// The deadline ended as the server said on the socket (`reason` `.cleared` or `.gone`).
    mutating func ended(_ id: StoatRestriction.ID, _ reason: StoatRestriction.EndReason) -> [Action] {
        guard var entry = entries.removeValue(forKey: id) else { return [] }
        var actions = stopWatching(&entry)
        if entry.announced, let deadline = entry.deadline { actions.append(.announce(.ended(deadline, reason))) }
        return actions + serveWaiting()
    }

    /// Forgets every deadline without announcing anything: the session ended (DISPOSE).
    mutating func reset() -> [Action] {
        let tickets = entries.values.compactMap { $0.watch?.ticket }.sorted()
        entries = [:]
        return tickets.map { .unwatch(ticket: $0) }
    }

    // MARK: - Watches and confirmations

    /// A watch fired: its deadline has come on the client's estimate of the server's clock.
    mutating func watchFired(ticket: UInt64, now: Duration) -> [Action] {
        guard let id = entries.first(where: { $0.value.watch?.ticket == ticket })?.key, var entry = entries[id] else {
            return []  // dropped or re-armed after it had fired
        }
        entry.watch = nil
        if entry.announced { entry.state = .awaitingConfirmation }
        entries[id] = entry
        return confirm(id)
    }

    /// The member fetch answered: the member's `timeout` (or none) and the server's clock when it did.
    mutating func memberAnswered(
        server: String, ticket: UInt64, timeout: Date?, anchor reading: ServerClockAnchor, now: Duration
    ) -> [Action] {
        anchor = reading
        var actions: [Action] = []
        // Every timeout that waited for the server's clock is decided with it.
        for waiting in entries.keys.sorted() where entries[waiting]?.waitsForAnchor == true {
            guard var entry = entries[waiting] else { continue }
            entry.waitsForAnchor = false
            actions += decide(&entry, reading, now: now)
        }
        let id = StoatRestriction.ID(.timeout, server)
        guard var entry = entries[id], entry.confirmation == ticket else { return actions }
        entry.confirmation = nil
        guard let timeout, reading.serverTime < WallClockTime(timeout) else {
            // Over on the server's clock (its Date header is truncated, so its true time is no earlier).
            return actions + ended(id, .confirmed)
        }
        let moved = entry.until != timeout
        entry.until = timeout
        var check = Self.checkTime(for: timeout, reading, now: now)
        if entry.state == .awaitingConfirmation && !moved {
            // Still on after the deadline: the server's clock is behind the estimate (it was set back, or
            // the two clocks drift). Check again at the new reading's deadline, never in a loop.
            check = max(check, now + recheck.delay(afterChecks: entry.checks))
            entry.checks += 1
        } else {
            entry.checks = 0
        }
        let announce = !entry.announced || moved
        entry.state = .active
        entry.check = check
        entry.announced = true
        actions += watch(&entry, at: check)
        entries[id] = entry
        if announce, let deadline = entry.deadline { actions.append(.announce(.started(deadline))) }
        return actions
    }

    /// The channel fetch answered after a slowmode's deadline: the server's count has run out.
    mutating func channelAnswered(channel: String, ticket: UInt64) -> [Action] {
        let id = StoatRestriction.ID(.slowmode, channel)
        guard entries[id]?.confirmation == ticket else { return [] }
        return ended(id, .confirmed)
    }

    /// The confirmation found the server or the channel gone for the user (`NotFound`).
    mutating func targetGone(_ id: StoatRestriction.ID, ticket: UInt64) -> [Action] {
        guard entries[id]?.confirmation == ticket else { return serveWaiting() }
        return ended(id, .gone)
    }

    /// The confirmation failed (the network, a 5xx, an invalid session, a missing `Date`): the deadline
    /// stays and is confirmed again after the re-check delay.
    mutating func confirmationFailed(_ id: StoatRestriction.ID, ticket: UInt64, now: Duration) -> [Action] {
        guard var entry = entries[id], entry.confirmation == ticket else { return serveWaiting() }
        entry.confirmation = nil
        let at = now + recheck.delay(afterChecks: entry.checks)
        entry.checks += 1
        let actions = watch(&entry, at: at)
        entries[id] = entry
        return actions  // its retry reads the server's clock for the timeouts waiting for it
    }

    // MARK: - Internals

    /// Decides a timeout with a reading of the server's clock: dropped without a word when the server's
    /// clock has certainly passed it, otherwise announced and watched until its check.
    private mutating func decide(_ entry: inout Entry, _ anchor: ServerClockAnchor, now: Duration) -> [Action] {
        guard let until = entry.until, anchor.localDeadline(for: WallClockTime(until)) > now else {
            // Ready lists a member's last timeout even after it ended, and a moderator may restate one as
            // already over.
            var actions = stopWatching(&entry)
            entries[entry.id] = nil
            if entry.announced, let ended = entry.deadline { actions.append(.announce(.ended(ended, .cleared))) }
            return actions
        }
        return start(&entry, at: Self.checkTime(for: until, anchor, now: now))
    }

    /// Whether a timeout's confirmation, in flight or waiting for its retry, will read the server's clock.
    private var isReadingTheClock: Bool {
        anchor == nil
            && entries.values.contains {
                $0.id.kind == .timeout && !$0.waitsForAnchor && ($0.confirmation != nil || $0.watch != nil)
            }
    }

    /// Makes sure the timeouts waiting for the server's clock get it: when the timeout whose confirmation
    /// was to read it is gone, the next one asks.
    private mutating func serveWaiting() -> [Action] {
        guard anchor == nil, !isReadingTheClock,
            let next = entries.keys.sorted().first(where: { entries[$0]?.waitsForAnchor == true })
        else { return [] }
        entries[next]?.waitsForAnchor = false
        return confirm(next)
    }

    /// When to ask whether a timeout is over: once the server's clock has certainly passed `until`, plus the
    /// `Date` header's resolution, so that the answer's truncated `Date` shows it passed too — or, for a
    /// timeout further away than `ServerHorizon.longestWait` (366 days, a server's absurd `until`), at that
    /// horizon: asked then, the server says it is still on, and the book watches again.
    static func checkTime(for until: Date, _ anchor: ServerClockAnchor, now: Duration) -> Duration {
        min(anchor.localDeadline(for: WallClockTime(until)) + anchor.resolution, now + ServerHorizon.longestWait)
    }

    /// Makes `entry` active until `check`, watched, and announced as started.
    private mutating func start(_ entry: inout Entry, at check: Duration) -> [Action] {
        entry.check = check
        entry.state = .active
        entry.announced = true
        var actions = watch(&entry, at: check)
        entries[entry.id] = entry
        if let deadline = entry.deadline { actions.append(.announce(.started(deadline))) }
        return actions
    }

    private mutating func watch(_ entry: inout Entry, at: Duration) -> [Action] {
        var actions = stopWatching(&entry)
        let ticket = takeTicket()
        entry.watch = (ticket, at)
        actions.append(.watch(ticket: ticket, at: at))
        return actions
    }

    private func stopWatching(_ entry: inout Entry) -> [Action] {
        guard let watch = entry.watch else { return [] }
        entry.watch = nil
        return [.unwatch(ticket: watch.ticket)]
    }

    private mutating func confirm(_ id: StoatRestriction.ID) -> [Action] {
        let ticket = takeTicket()
        entries[id]?.confirmation = ticket
        return [.confirm(id, ticket: ticket)]
    }

    private mutating func takeTicket() -> UInt64 {
        nextTicket &+= 1
        return nextTicket
    }
}
