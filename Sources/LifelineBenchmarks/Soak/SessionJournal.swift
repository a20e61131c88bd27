import LifelineCLIOutput
import LifelineCore
import Logging
import Synchronization

/// What the soak found wrong, as it finds it: each violation is counted, and printed as its own line (the first
/// ``printedPerKind`` of each kind; the rest are counted and summed up at the end).
final class ViolationLog: Sendable {
    /// One violation.
    struct Violation: Sendable {
        var kind: String
        var session: Int?
        var time: Double
        var detail: String
    }

    static let printedPerKind = 50

    private let state = Mutex<(count: Int, byKind: [String: Int])>((0, [:]))
    private let json: Bool
    private let origin: ContinuousClock.Instant

    init(json: Bool, origin: ContinuousClock.Instant) {
        self.json = json
        self.origin = origin
    }

    /// How many violations so far.
    var count: Int { state.withLock { $0.count } }

    /// Violations by kind.
    var byKind: [String: Int] { state.withLock { $0.byKind } }

    /// Records a violation and prints it, unless its kind has already printed its share.
    func record(_ kind: String, session: Int? = nil, _ detail: String) {
        let time = origin.duration(to: .now).secondsValue
        let printed = state.withLock { state in
            state.count += 1
            state.byKind[kind, default: 0] += 1
            return state.byKind[kind, default: 0] <= Self.printedPerKind
        }
        guard printed else { return }
        let rounded = (time * 1000).rounded() / 1000
        if json {
            emit(
                JSONLine.encode([
                    "type": .string("violation"), "kind": .string(kind),
                    "session": session.map { .integer($0) } ?? .null,
                    "time": .number(rounded), "detail": .string(detail),
                ]))
        } else {
            emit("violation [\(kind)] \(session.map { "session \($0) " } ?? "")at \(rounded) s: \(detail)")
        }
    }

    /// A line for each kind that printed only part of its violations.
    func summariseUnprinted() {
        for (kind, count) in byKind.sorted(by: { $0.key < $1.key }) where count > Self.printedPerKind {
            let detail = "\(count - Self.printedPerKind) more violations of this kind were counted, not printed"
            if json {
                emit(
                    JSONLine.encode([
                        "type": .string("violation"), "kind": .string(kind), "session": .null,
                        "time": .number((origin.duration(to: .now).secondsValue * 1000).rounded() / 1000),
                        "detail": .string(detail),
                    ]))
            } else {
                emit("violation [\(kind)] \(detail)")
            }
        }
    }
}

/// One session's log, audited as it is written (``TransitionAudit``): the session logs into it through
/// ``JournalLogHandler`` from inside its actor, so the audit sees reports and transitions in the order the
/// machine handled them.
final class SessionJournal: Sendable {
    /// What the checkers read of the audit.
    struct Reading: Sendable {
        var state: SessionState
        var failures: Int
        var transitions: Int
        /// The current connection attempt (0 before the first).
        var generation: UInt64 = 0
        var connectedSince: Duration?
        var staleReports: Int
        var deliveryStalls = 0
        /// Delivery stalls on connection attempts the soak had not deafened (``deafened``).
        var undeafenedStalls = 0
        var sessionRestarts = 0
    }

    /// The connection attempts the soak deafened: those live from just before the server was asked to just after
    /// it answered — an attempt still opening its socket then is deaf once CONNECTED. On them the history may miss
    /// what the socket did not deliver, until the delivery deadline or the delivery check notices (a new attempt).
    let deafened = Mutex<ClosedRange<UInt64>?>(nil)
    private let undeafenedStalls = Mutex(0)

    /// Whether connection attempt `generation` is one the soak deafened (``deafened``).
    func isDeafened(_ generation: UInt64) -> Bool {
        deafened.withLock { $0?.contains(generation) ?? false }
    }

    let index: Int
    private let audit: Mutex<TransitionAudit>
    /// The last ``recentCount`` entries with their times, for a violation to say what led to it.
    private let recent = Mutex<[(at: Duration, entry: SessionLogEntry)]>([])
    static let recentCount = 16
    private let violations: ViolationLog
    private let origin: ContinuousClock.Instant

    init(index: Int, audit: TransitionAudit, violations: ViolationLog, origin: ContinuousClock.Instant) {
        self.index = index
        self.audit = Mutex(audit)
        self.violations = violations
        self.origin = origin
    }

    /// The audit's view now.
    var reading: Reading {
        audit.withLock {
            Reading(
                state: $0.state, failures: $0.failures, transitions: $0.transitions, generation: $0.generation,
                connectedSince: $0.connectedSince,
                staleReports: $0.staleReports, deliveryStalls: $0.deliveryStalls,
                undeafenedStalls: undeafenedStalls.withLock { $0 }, sessionRestarts: $0.sessionRestarts)
        }
    }

    /// The last entries, each with its time, for a violation's detail.
    var recentEntries: String {
        recent.withLock { recent in
            recent.map { "\(TransitionAudit.seconds($0.at)) \(Self.describe($0.entry))" }.joined(separator: "; ")
        }
    }

    private static func describe(_ entry: SessionLogEntry) -> String {
        switch entry {
        case .report(let generation, let milestone, let end, let cause):
            "#\(generation) \(milestone)" + (end.map { " \($0)" } ?? "") + (cause.map { " (\($0))" } ?? "")
        case .returned(let generation): "#\(generation) returned"
        case .network(let online): online ? "online" : "offline"
        case .transition(let from, let event, let to, _, let cause):
            "\(from.rawValue) -\(event.rawValue)-> \(to.rawValue)" + (cause.map { " (\($0))" } ?? "")
        }
    }

    /// Takes one log event; the lines the audit does not read are dropped at once.
    func take(_ event: LogEvent) {
        guard let entry = Self.entry(event) else { return }
        take(entry)
    }

    /// Audits one entry. Every fault of the soak is transient, so entering ERROR is a violation of its own,
    /// recorded with its cause as it happens (the session will not be back at the end either).
    func take(_ entry: SessionLogEntry) {
        let time = origin.duration(to: .now)
        let (broken, stalledOn) = audit.withLock { audit in
            let stalls = audit.deliveryStalls
            let generation = audit.generation
            let broken = audit.observe(entry, at: time)
            return (broken, audit.deliveryStalls > stalls ? generation : nil)
        }
        if let stalledOn, !isDeafened(stalledOn) {
            undeafenedStalls.withLock { $0 += 1 }
        }
        recent.withLock { recent in
            if recent.count == Self.recentCount { recent.removeFirst() }
            recent.append((time, entry))
        }
        for sentence in broken { violations.record("transition", session: index, sentence) }
        if case .transition(let from, let event, .error, _, let cause) = entry {
            violations.record(
                "error", session: index,
                "\(from.rawValue) -->|\(event.rawValue)| ERROR (\(cause ?? "no cause")), though every fault is transient"
            )
        }
    }

    /// The audited entry a log event is, if it is one.
    static func entry(_ event: LogEvent) -> SessionLogEntry? {
        let message = event.message.description
        guard Self.audited.contains(message) else { return nil }
        return entry(message: message, metadata: (event.metadata ?? [:]).mapValues { "\($0)" })
    }

    /// The messages the audit reads.
    static let audited: Set<String> = ["transition", "connection report", "connection returned", "network changed"]

    /// The audited entry a log line is, if it is one.
    static func entry(message: String, metadata: [String: String]) -> SessionLogEntry? {
        func value(_ key: String) -> String? { metadata[key] }
        switch message {
        case "transition":
            guard let from = value("lifeline.from").flatMap(SessionState.init(rawValue:)),
                let kind = value("lifeline.event").flatMap(SessionEvent.Kind.init(rawValue:)),
                let to = value("lifeline.state").flatMap(SessionState.init(rawValue:)),
                let failures = value("lifeline.failures").flatMap({ Int($0) })
            else { return nil }
            return .transition(from: from, event: kind, to: to, failures: failures, cause: value("lifeline.cause"))
        case "connection report":
            guard let generation = value("lifeline.generation").flatMap({ UInt64($0) }),
                let milestone = value("lifeline.event")
            else { return nil }
            return .report(
                generation: generation, milestone: milestone, end: value("lifeline.end"), cause: value("lifeline.cause")
            )
        case "connection returned":
            return value("lifeline.generation").flatMap { UInt64($0) }.map { .returned(generation: $0) }
        case "network changed":
            return value("lifeline.network").map { .network(online: $0 == "online") }
        default:
            return nil
        }
    }
}

/// A log handler that hands a session's log to its ``SessionJournal``, at `.debug` so that the connection
/// reports reach it. Nothing is printed or kept but what the audit keeps.
struct JournalLogHandler: LogHandler {
    let journal: SessionJournal
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        journal.take(event)
    }
}
