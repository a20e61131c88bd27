import LifelineCore

/// One line of a session's log that the soak audits, in the order the session wrote it.
///
/// `Session` logs each connection report (with its generation) before its machine sees it, and each transition
/// as it takes it, from inside its actor: so the order of these entries is the order in which the machine
/// handled them.
enum SessionLogEntry: Sendable, Equatable {
    /// A connection reported a milestone: `opened`, `authenticated`, `ready` or `ended` (with the end's kind,
    /// `temporary`, `permanent` or `loggedOut`, and its code).
    case report(generation: UInt64, milestone: String, end: String?, cause: String?)
    /// A connection's `run` returned.
    case returned(generation: UInt64)
    /// The device's network changed.
    case network(online: Bool)
    /// The lifecycle took a transition; `failures` is the count after it, `cause` the failure's code.
    case transition(from: SessionState, event: SessionEvent.Kind, to: SessionState, failures: Int, cause: String?)
}

/// Checks one session's log against the lifecycle's rules as it is written: every transition an edge of the
/// table, taken from the state the session was in, with the failure count the specification says; and the
/// generation rules — a transition that only a connection can cause (SOCKET_CONNECTED, a failure of the
/// connection, an external LOGOUT) must follow a report of the *live* connection, never of a superseded one; a
/// RETRY never before the formula's earliest delay; the network's transitions only after the network said so.
///
/// The live generation is derived from the transitions alone: every entry into LOGGING_IN, CONNECTING or
/// RECONNECTING starts the next connection attempt (generation 1, 2, …), live until the state is left or an
/// `InvalidSession` is being confirmed. A report from any other generation is stale; ``staleReports`` counts
/// them, and a transition that such a report would explain, and nothing else does, is a violation.
struct TransitionAudit: Sendable {
    /// A live connection's end, not yet explained by a transition.
    enum PendingEnd: Sendable, Equatable {
        case temporary(String)
        case permanent(String)
        case loggedOut
        case returned
    }

    let retryPolicy: RetryPolicy
    /// Whether an `InvalidSession` while connecting is confirmed (the session's policy has checks).
    let confirmsInvalidSession: Bool
    /// How long a connection must last after CONNECTED for its end to start the count again (the machine's
    /// `stabilityWindow`; a soak client's heartbeat interval); nil for the specification's count alone.
    let stabilityWindow: Duration?
    /// How far the log's clock may be from the session's around the window: an end that close to it may
    /// give either count.
    static let windowSlack: Duration = .milliseconds(250)

    private(set) var state: SessionState = .ready
    private(set) var failures = 0
    /// The generation of the current connection attempt (0 before the first).
    private(set) var generation: UInt64 = 0
    /// Transitions checked so far.
    private(set) var transitions = 0
    /// Reports from connections that were not live when they came, which the machine must have ignored.
    private(set) var staleReports = 0
    /// When the session last entered CONNECTED, while it is there.
    private(set) var connectedSince: Duration?
    /// Whether a confirmation of `InvalidSession` is in progress.
    private(set) var isConfirming = false
    /// The count the session entered CONNECTED with, which a short connection continues.
    private(set) var failuresBeforeConnected = 0
    /// How many times the delivery deadline found the socket deaf (TEMPORARY_FAILURE `deliveryStalled`).
    private(set) var deliveryStalls = 0
    /// How many connections ended on a second `Ready` (TEMPORARY_FAILURE `sessionRestarted`: the gateway's
    /// session process restarted under the socket).
    private(set) var sessionRestarts = 0

    private var pendingReady = false
    private var pendingEnd: PendingEnd?
    private var disconnectedAt: Duration = .zero
    private var isOnline = true

    init(retryPolicy: RetryPolicy, confirmsInvalidSession: Bool, stabilityWindow: Duration? = nil) {
        self.retryPolicy = retryPolicy
        self.confirmsInvalidSession = confirmsInvalidSession
        self.stabilityWindow = stabilityWindow
    }

    /// The counts CONNECTED's end may give at `time`: from 1 after a connection that lasted the stability
    /// window, from the count before it after a shorter one, and either near the window.
    private func countsAfterConnected(at time: Duration) -> Set<Int> {
        guard let stabilityWindow, let since = connectedSince else { return [1] }
        let age = time - since
        if age < stabilityWindow - Self.windowSlack { return [failuresBeforeConnected + 1] }
        if age >= stabilityWindow + Self.windowSlack { return [1] }
        return [1, failuresBeforeConnected + 1]
    }

    /// Whether the current attempt's connection is live: reports of `generation` count.
    private var hasLiveConnection: Bool {
        guard generation > 0, !isConfirming else { return false }
        switch state {
        case .loggingIn, .connecting, .reconnecting, .connected: return true
        case .ready, .onboarding, .error, .dispose, .disconnected, .offline: return false
        }
    }

    /// Takes one entry, written at `time`; returns the rules it broke, as sentences.
    mutating func observe(_ entry: SessionLogEntry, at time: Duration) -> [String] {
        switch entry {
        case .report(let reported, let milestone, let end, let cause):
            return report(reported, milestone: milestone, end: end, cause: cause)
        case .returned(let reported):
            if reported == generation, hasLiveConnection, pendingEnd == nil { pendingEnd = .returned }
            return []
        case .network(let online):
            isOnline = online
            return []
        case .transition(let from, let event, let to, let count, let cause):
            return transition(from: from, event: event, to: to, failures: count, cause: cause, at: time)
        }
    }

    private mutating func report(_ reported: UInt64, milestone: String, end: String?, cause: String?) -> [String] {
        if reported > generation {
            return [
                "a report from generation \(reported), ahead of the \(generation) connection attempts the transitions show"
            ]
        }
        guard reported == generation, hasLiveConnection else {
            staleReports += 1
            return []
        }
        switch milestone {
        case "ready":
            if state != .connected { pendingReady = true }
        case "ended":
            let code = cause ?? ""
            switch end {
            case "temporary": pendingEnd = .temporary(code)
            case "permanent":
                pendingEnd = .permanent(code)
                // The machine confirms an InvalidSession met while connecting: no transition yet, and the
                // connection is no longer live.
                if confirmsInvalidSession, code == PermanentFailureReason.Code.invalidSession.rawValue,
                    state != .connected
                {
                    isConfirming = true
                }
            case "loggedOut": pendingEnd = .loggedOut
            default: return ["a connection end of an unknown kind \(end ?? "nil")"]
            }
        default:
            break
        }
        return []
    }

    private mutating func transition(
        from: SessionState, event: SessionEvent.Kind, to: SessionState, failures count: Int, cause: String?,
        at time: Duration
    ) -> [String] {
        transitions += 1
        var broken: [String] = []
        let name = "\(from.rawValue) -->|\(event.rawValue)| \(to.rawValue)"
        if from != state {
            broken.append("\(name) taken from \(from.rawValue), but the session was in \(state.rawValue)")
        }
        if SessionTransitionTable.target(from: from, on: event) != to {
            broken.append("\(name) is not an edge of the transition table")
        }
        let expected: Set<Int> =
            switch to {
            case .disconnected where from == .connected: countsAfterConnected(at: time)
            case .disconnected: [failures + 1]
            case .connected, .dispose: [0]
            default: [failures]
            }
        if !expected.contains(count) {
            let rule = expected.sorted().map(String.init).joined(separator: " or ")
            broken.append("\(name) with \(count) failures where the rules give \(rule)")
        }
        broken += explanation(of: event, from: from, to: to, cause: cause, at: time, name: name)
        enter(to, failures: count, at: time)
        return broken
    }

    /// Whether what the log said before explains the transition; a sentence for each rule it breaks.
    private mutating func explanation(
        of event: SessionEvent.Kind, from: SessionState, to: SessionState, cause: String?, at time: Duration,
        name: String
    ) -> [String] {
        let connectionState = [.loggingIn, .connecting, .reconnecting, .connected].contains(from)
        switch event {
        case .socketConnected:
            guard pendingReady else {
                return ["\(name) without a Ready from the live connection (generation \(generation))"]
            }
            pendingReady = false
        case .temporaryFailure where connectionState:
            if cause == TemporaryFailureCause.Code.deliveryStalled.rawValue {
                // The machine's own delivery deadline, not an end of the connection: only from CONNECTED.
                guard from == .connected else { return ["\(name) (\(cause ?? "")) outside CONNECTED"] }
                deliveryStalls += 1
                return []
            }
            if cause == TemporaryFailureCause.Code.unconfirmedInvalidSession.rawValue {
                guard isConfirming else { return ["\(name) (\(cause ?? "")) with no InvalidSession being confirmed"] }
                isConfirming = false
                return []
            }
            guard let end = pendingEnd else {
                return [
                    "\(name) (\(cause ?? "nil")) with no end reported by the live connection (generation \(generation))"
                ]
            }
            pendingEnd = nil
            if cause == TemporaryFailureCause.Code.sessionRestarted.rawValue { sessionRestarts += 1 }
            switch end {
            case .temporary(let code) where code != cause:
                return ["\(name) says \(cause ?? "nil"), the live connection ended with \(code)"]
            case .permanent where from != .connected, .loggedOut:
                return ["\(name) after a \(end) end, which the table takes elsewhere"]
            default:
                break
            }
        case .permanentFailure where connectionState:
            if isConfirming {
                isConfirming = false
                return []
            }
            if from == .loggingIn, pendingEnd == .loggedOut {
                pendingEnd = nil
                return []
            }
            guard case .permanent? = pendingEnd else {
                return ["\(name) with no permanent end reported by the live connection (generation \(generation))"]
            }
            pendingEnd = nil
        case .logout where connectionState && pendingEnd == .loggedOut:
            pendingEnd = nil
        case .retry:
            let earliest = retryPolicy.nominalDelay(failures: failures) * (1 - retryPolicy.jitter)
            // A millisecond of slack for the rounding of the jittered delay and of the log's clock.
            if time - disconnectedAt < earliest - .milliseconds(1) {
                return [
                    "\(name) \(Self.seconds(time - disconnectedAt)) after DISCONNECTED, before the formula's earliest "
                        + "\(Self.seconds(earliest)) (failures \(failures))"
                ]
            }
        case .deviceOnline where !isOnline:
            return ["\(name) while the network last said offline"]
        case .deviceOffline where isOnline:
            return ["\(name) while the network last said online"]
        default:
            break
        }
        return []
    }

    private mutating func enter(_ target: SessionState, failures count: Int, at time: Duration) {
        if target == .connected { failuresBeforeConnected = failures }
        state = target
        failures = count
        switch target {
        case .loggingIn, .connecting, .reconnecting:
            generation += 1
            pendingReady = false
            pendingEnd = nil
            isConfirming = false
        case .connected:
            pendingEnd = nil
        default:
            pendingReady = false
            pendingEnd = nil
            isConfirming = false
        }
        connectedSince = target == .connected ? time : nil
        if target == .disconnected { disconnectedAt = time }
    }

    static func seconds(_ duration: Duration) -> String {
        let (whole, attoseconds) = duration.components
        let value = Double(whole) + Double(attoseconds) * 1e-18
        return "\((value * 1000).rounded() / 1000) s"
    }
}
