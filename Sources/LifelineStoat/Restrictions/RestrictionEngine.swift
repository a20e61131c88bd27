import Lifeline
import LifelineCore
import Logging

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Runs a ``StoatClient``'s ``RestrictionBook``: feeds it what the events socket says, the watches that
/// fire and the server's answers, and performs what it decides.
///
/// The engine runs on Lifeline's `EngineDriver`: the book is behind its lock, so a fact costs one locked update on
/// the path that brings it, and what the book decides is done under that lock, in the book's order: the watches
/// are entries in the driver's one timer on the client's clock (one sleep however many deadlines), and each
/// confirmation is posted to run as a child task of ``run()``, so nothing outlives it.
final class RestrictionEngine: Sendable {
    /// The observers' key in the cache's change signals.
    static let signalKey = ChangeKey.restrictions

    private let driver: EngineDriver<RestrictionBook, Never, Watch<UInt64>>
    /// Every announcement, unbounded: one per deadline that starts or ends (a slowmode, a timeout), rare
    /// enough that an observer that never reads holds little, and each tells a state the interface shows.
    private let announcements = Broadcaster<StoatRestrictionEvent>(buffering: .unbounded)
    private let hub: Broadcaster<BonfireEvent>
    /// The socket's events, subscribed to when the client was made, so none is missed before ``run``.
    private let firstEvents: AsyncThrowingStream<BonfireEvent, any Error>
    private let api: StoatAPI
    private let cache: CacheEngine
    private let credentials: ClientCaches.Credentials
    private let logger: Logger

    init(
        api: StoatAPI, cache: CacheEngine, credentials: ClientCaches.Credentials, clock: some Clock<Duration>,
        recheck: ExpiryRecheckPolicy, logger: Logger
    ) {
        driver = EngineDriver(RestrictionBook(recheck: recheck), clock: SessionClock(clock))
        hub = cache.events
        firstEvents = cache.events.throwingStream()
        self.api = api
        self.cache = cache
        self.credentials = credentials
        self.logger = logger
    }

    // MARK: - Reading

    /// The time on the client's clock that ``StoatRestriction/deadline`` is stated on.
    var now: Duration { driver.now }

    /// The deadlines in force, earliest first.
    var restrictions: [StoatRestriction] { driver.withLock { $0.restrictions } }

    /// Starts and ends from now on.
    func subscribe() -> AsyncStream<StoatRestrictionEvent> { announcements.subscribe() }

    // MARK: - Running

    /// The client was disposed of (the session's DISPOSE hook): its deadlines are no one's any more.
    func disposed() {
        apply { book, _ in book.reset() }
    }

    /// Follows the socket's events (from the client's creation on) and the session, and performs the book's
    /// actions, until the calling task is cancelled; then drops every watch and ends the announcements.
    func run() async {
        driver.addChild { await self.followEvents() }
        await driver.run { batch in
            for watch in batch { self.apply { $0.watchFired(ticket: watch.id, now: $1) } }
        }
        announcements.finish()
    }

    /// A send was refused `InSlowmode`: the REST answer's `retry_after` starts (or restates) the slowmode.
    func slowmodeRefused(channel: String, retryAfter stated: Duration) {
        // Clamped before its components are read: they trap beyond `Int64.max` seconds.
        let retryAfter = ServerHorizon.wait(stated)
        let seconds = Int(retryAfter.components.seconds) + (retryAfter.components.attoseconds > 0 ? 1 : 0)
        apply { $0.slowmodeSet(channel: channel, retryAfter: seconds, now: $1) }
    }

    // MARK: - The socket

    private func followEvents() async {
        var events = firstEvents
        while !Task.isCancelled {
            do {
                for try await event in events { handle(event) }
                return
            } catch {
                events = hub.throwingStream()
                // This observer fell behind and missed events. The cache missed none: its memberships say
                // which timeouts are in force. A slowmode missed meanwhile is not known until the next one.
                logger.info("restrictions: events missed, timeouts read from the cache")
                let timeouts = cache.read { cache in
                    var timeouts: [String: Date] = [:]
                    for server in cache.servers.keys {
                        if let until = cache.ownMembership(in: server)?.timeout { timeouts[server] = until }
                    }
                    return timeouts
                }
                apply { $0.ready(timeouts: timeouts, now: $1) }
            }
        }
    }

    /// Feeds the book what one event says about the user's deadlines.
    private func handle(_ event: BonfireEvent) {
        switch event {
        case .ready(let ready):
            // The viewer as the cache knows it — the session's user id, else `Ready`'s user whose relationship is
            // `User` — never a position in `users` (bonfire lists the viewer last, the gateway first). The cache
            // applied this `Ready` before any observer receives it.
            guard let me = cache.read({ $0.userID }) else { return }
            var timeouts: [String: Date] = [:]
            for member in ready.members where member.id.user == me {
                if let until = member.timeout { timeouts[member.id.server] = until }
            }
            apply { $0.ready(timeouts: timeouts, now: $1) }
        case .serverMemberUpdate(let id, let data, let clear):
            guard id.user == cache.read({ $0.userID }) else { return }
            if clear.contains(.timeout) {
                // `clear` applies after `data`: a cleared timeout is over whatever `data` said.
                apply { book, _ in book.ended(StoatRestriction.ID(.timeout, id.server), .cleared) }
            } else if let until = data.timeout {
                apply { $0.timeoutSet(server: id.server, until: until, now: $1) }
            }
        case .serverMemberLeave(let server, let user, _):
            guard user == cache.read({ $0.userID }) else { return }
            apply { book, _ in book.ended(StoatRestriction.ID(.timeout, server), .gone) }
        case .serverDelete(let server):
            apply { book, _ in book.ended(StoatRestriction.ID(.timeout, server), .gone) }
        case .userSlowmodes(let slowmodes):
            for slowmode in slowmodes {
                apply { $0.slowmodeSet(channel: slowmode.channelID, retryAfter: slowmode.retryAfter, now: $1) }
            }
        case .channelUpdate(let id, let data, let clear):
            // Stoat checks a user's slowmode only while the channel has one: without it, they may send.
            guard clear.contains(.slowmode) || data.slowmode == 0 else { return }
            apply { book, _ in book.ended(StoatRestriction.ID(.slowmode, id), .cleared) }
        case .channelDelete(let id):
            apply { book, _ in book.ended(StoatRestriction.ID(.slowmode, id), .gone) }
        case .bulk(let events):
            for event in events { handle(event) }
        default:
            break
        }
    }

    // MARK: - Confirmations

    /// Asks the server whether a deadline is over: the user's member for a timeout (its `Date` header
    /// anchors the server's clock), the channel for a slowmode.
    private func confirm(_ id: StoatRestriction.ID, ticket: UInt64) async {
        guard let credentials = credentials.value, let me = cache.read({ $0.userID }) ?? credentials.userID else {
            apply { $0.confirmationFailed(id, ticket: ticket, now: $1) }
            return
        }
        do throws(StoatAPIError) {
            switch id.kind {
            case .timeout:
                let answer = try await api.member(me, in: id.target, credentials)
                let receivedAt = driver.now
                guard let date = answer.serverDate else {
                    // Without the server's clock the answer cannot be compared: never the device's clock.
                    logger.info(
                        "restrictions: a member answer without a Date header", metadata: ["lifeline.deadline": "\(id)"])
                    apply { $0.confirmationFailed(id, ticket: ticket, now: $1) }
                    return
                }
                let anchor = ServerClockAnchor(
                    serverTime: WallClockTime(date), resolution: .seconds(1), roundTrip: answer.roundTrip,
                    receivedAt: receivedAt)
                apply {
                    $0.memberAnswered(
                        server: id.target, ticket: ticket, timeout: answer.value.timeout, anchor: anchor, now: $1)
                }
            default:
                _ = try await api.channel(id.target, credentials)
                apply { book, _ in book.channelAnswered(channel: id.target, ticket: ticket) }
            }
        } catch {
            switch error.code {
            case .cancelled:
                return  // the client is stopping
            case .notFound, .unknownChannel, .unknownServer:
                apply { book, _ in book.targetGone(id, ticket: ticket) }
            case .missingPermission where id.kind == .slowmode:
                // The user may no longer see the channel, let alone send in it.
                apply { book, _ in book.targetGone(id, ticket: ticket) }
            default:
                logger.info(
                    "restrictions: a confirmation failed",
                    metadata: ["lifeline.deadline": "\(id)", "lifeline.error": "\(error.code)"])
                apply { $0.confirmationFailed(id, ticket: ticket, now: $1) }
            }
        }
    }

    // MARK: - Applying

    /// Runs one fact through the book with the current time, and does what it decided in its order.
    private func apply(_ fact: (inout RestrictionBook, Duration) -> [RestrictionBook.Action]) {
        let now = driver.now
        let changed = driver.withLock { book in
            let before = book.restrictions
            for action in fact(&book, now) {
                switch action {
                case .watch(let ticket, let at): driver.schedule(Watch(id: ticket), at: at)
                case .unwatch(let ticket): driver.cancel(ticket)
                case .confirm(let id, let ticket): driver.addChild { await self.confirm(id, ticket: ticket) }
                // Under the lock: observers receive starts and ends in the book's order.
                case .announce(let event): announcements.publish(event)
                }
            }
            return book.restrictions != before
        }
        if changed { cache.signals.signal([Self.signalKey]) }
    }
}
