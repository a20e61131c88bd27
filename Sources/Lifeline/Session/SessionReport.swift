import LifelineCore
import Logging

/// What the session's work and the device hand back to the funnel: one case per answer or fact.
///
/// Decision: work reports a value, not a call, so `Session` takes every answer in one line (`reported(_:)`),
/// and which report of the machine each answer is — and whether it is published, logged or counted as stale —
/// is read here, in one place.
enum SessionReport: Sendable {
    /// The device's network changed.
    case networkChanged(NetworkStatus)
    /// The device woke from a suspend.
    case deviceWoke(DeviceWake)
    /// A milestone of the connection attempt `generation`.
    case attempt(ConnectionAttempt.Report, generation: UInt64)
    /// The session check `check` answered.
    case sessionChecked(Result<SessionCheck, any Error>, check: UInt64)
    /// The health poll `poll` answered; `nil` when it failed.
    case healthAnswered(HealthStatus?, poll: UInt64)
    /// The account lookup `lookup` answered; `nil` when it failed.
    case accountStanding(AccountStanding?, lookup: UInt64)
    /// The socket check `check` ended, answered or not (the machine ignores an answer after its deadline).
    case socketChecked(check: UInt64, answered: Bool)
    /// A timer of the machine came due (the machine ignores one it no longer waits for).
    case timerFired(SessionTimer)
    /// A play of the replay plan was answered (the plan ignores an answer after its timeout).
    case playAnswered(UInt64, succeeded: Bool)

    /// Whether the machine ignoring it counts as a stale event: a report of a superseded connection, check or
    /// timer. Every connection returns, superseded or not, and a socket's first milestones change nothing.
    var countsStale: Bool {
        switch self {
        case .attempt(.returned, _), .attempt(.event(.opened), _), .attempt(.event(.authenticated), _): false
        case .attempt, .sessionChecked, .timerFired: true
        case .networkChanged, .deviceWoke, .healthAnswered, .accountStanding, .socketChecked, .playAnswered: false
        }
    }

    /// Logs what is logged before the machine reads it: a wake, and each report of a connection attempt, a
    /// superseded one's too, so a log ties each transition to its connection (`lifeline soak`'s audit reads
    /// them in order, each before the transition it causes).
    func log(to logger: Logger, in state: SessionState) {
        switch self {
        case .attempt(let report, let generation): report.log(generation: generation, to: logger)
        case .deviceWoke(let wake): logger.info("device woke", metadata: wake.logMetadata(in: state))
        default: break
        }
    }

    /// Whether an update it causes changes nothing the interface shows (read before it is applied): a health
    /// answer that leaves the alert as it is, a quiet timer. A transition is published all the same.
    func isQuiet(in machine: Session.Machine) -> Bool {
        switch self {
        case .healthAnswered(let status, _): status == nil || status?.alert == machine.outageAlert
        case .timerFired(let timer): timer.purpose.isQuiet
        default: false
        }
    }

    /// Hands the report to `machine`, at `now` on the session's clock; a network change is logged when the
    /// machine takes it, before the transition it causes.
    func apply(
        to machine: inout Session.Machine, at now: Duration, using random: inout some RandomNumberGenerator,
        logger: Logger
    ) -> Session.Machine.Output {
        let age = machine.connectedFor(at: now)
        switch self {
        case .networkChanged(let status):
            let output = machine.networkChanged(isOnline: status.isOnline, using: &random)
            if output != .ignored {
                logger.info("network changed", metadata: ["lifeline.network": "\(status.rawValue)"])
            }
            return output
        case .deviceWoke:
            return machine.handle(.deviceWoke, using: &random)
        case .attempt(.onboardingNeeded, let generation):
            return machine.onboardingNeeded(generation: generation, using: &random)
        case .attempt(.event(.opened), _), .attempt(.event(.authenticated), _):
            return .ignored
        case .attempt(.event(.ready), let generation):
            return machine.connectionReady(generation: generation, at: now, using: &random)
        case .attempt(.event(.ended(let end)), let generation):
            return machine.connectionEnded(end, generation: generation, connectedFor: age, using: &random)
        case .attempt(.returned, let generation):
            return machine.connectionReturned(generation: generation, connectedFor: age, using: &random)
        case .sessionChecked(let result, let check):
            return machine.sessionChecked(result, check: check, using: &random)
        case .healthAnswered(let status?, let poll):
            return machine.healthAnswered(poll: poll, alert: status.alert, pollInterval: status.pollInterval)
        case .healthAnswered(nil, let poll):
            return machine.healthPollFailed(poll: poll)
        case .accountStanding(let standing, let lookup):
            return machine.accountStandingReceived(standing, lookup: lookup)
        case .socketChecked(let check, let answered):
            return machine.socketChecked(check: check, answered: answered, connectedFor: age, using: &random)
        case .timerFired(let timer):
            return machine.timerFired(timer.id, connectedFor: age, using: &random)
        case .playAnswered(let id, let succeeded):
            return machine.playAnswered(id, succeeded: succeeded)
        }
    }
}

extension Result where Failure == any Error {
    /// The value `body` returns, or the error it throws.
    init(awaiting body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
