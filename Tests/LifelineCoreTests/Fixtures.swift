import LifelineCore
import LifelineTesting

/// The runtime's timer token as the machine's tests stand it in: the timer's id.
struct MockTimer: Hashable, Sendable {
    var id: UInt64
}

/// The runtime's connection token as the machine's tests stand it in: the connection's generation.
struct MockConnection: Hashable, Sendable {
    var generation: UInt64
}

/// The machine the tests drive, over mock tokens.
typealias SessionMachine = LifelineCore.SessionMachine<MockTimer, MockConnection>

/// The actions of the machine the tests drive.
typealias SessionAction = LifelineCore.SessionAction<MockTimer, MockConnection>

extension LifelineCore.SessionAction where TimerToken == MockTimer, ConnectionToken == MockConnection {
    /// Cancelling the timer `id`: the mock token the tests handed over for it.
    static func cancelTimer(id: UInt64) -> Self { .cancelTimer(MockTimer(id: id)) }

    /// Closing the connection `generation`: the mock token the tests handed over for it.
    static func closeConnection(generation: UInt64) -> Self { .closeConnection(MockConnection(generation: generation)) }
}

extension LifelineCore.SessionMachine where TimerToken == MockTimer, ConnectionToken == MockConnection {
    /// Hands the machine a mock token for every timer `output` arms and every connection it makes, as the
    /// runtime does, and returns `output`.
    @discardableResult
    mutating func tokens(for output: Output) -> Output {
        for action in output.actions {
            switch action {
            case .armTimer(let timer):
                let spare = timerArmed(timer.id, token: MockTimer(id: timer.id))
                precondition(spare == nil, "the machine refused the token of timer \(timer.id), which it just armed")
            case .connect(_, let generation), .authenticate(_, let generation):
                let spare = connectionMade(MockConnection(generation: generation), generation: generation)
                precondition(spare == nil, "the machine refused the token of connection \(generation)")
            default:
                break
            }
        }
        return output
    }
}

/// The session every test logs in with.
let credentials = SessionCredentials(token: "token-secret", userID: "user-1", sessionID: "session-1")

/// A policy without jitter, so that stories can state exact delays.
let exactPolicy = try! RetryPolicy(unit: .seconds(1), ceiling: .seconds(300), jitter: 0)

/// The retry timer DISCONNECTED arms, as the machine issues it.
func retryTimer(id: UInt64, failures: Int, delay: Duration) -> SessionAction {
    .armTimer(SessionTimer(id: id, purpose: .retry(failures: failures), delay: delay))
}

/// One sample event of each kind, with the payload the stories expect.
func sample(_ kind: SessionEvent.Kind) -> SessionEvent {
    switch kind {
    case .loginUncached: .loginUncached(credentials)
    case .loginCached: .loginCached(credentials)
    case .noUser: .noUser
    case .userCreated: .userCreated
    case .cancel: .cancel
    case .dismiss: .dismiss
    case .ready: .ready
    case .socketConnected: .socketConnected
    case .temporaryFailure: .temporaryFailure(.socketDropped)
    case .permanentFailure: .permanentFailure(.invalidSession)
    case .retry: .retry
    case .deviceOffline: .deviceOffline
    case .deviceOnline: .deviceOnline
    case .logout: .logout(external: false)
    case .reconnectNow: .reconnectNow
    case .deviceWoke: .deviceWoke
    }
}

/// The events that lead from READY to each state, the shortest way.
func path(to state: SessionState) -> [SessionEvent] {
    switch state {
    case .ready: []
    case .loggingIn: [.loginUncached(credentials)]
    case .onboarding: path(to: .loggingIn) + [.noUser]
    case .error: path(to: .loggingIn) + [.permanentFailure(.invalidSession)]
    case .dispose: path(to: .error) + [.dismiss]
    case .connecting: [.loginCached(credentials)]
    case .connected: path(to: .connecting) + [.socketConnected]
    case .disconnected: path(to: .connected) + [.temporaryFailure(.socketDropped)]
    case .reconnecting: path(to: .disconnected) + [.retry]
    case .offline: path(to: .disconnected) + [.deviceOffline]
    }
}

/// A machine and its random source, held by reference so a story can send events inside `#expect`.
final class Story {
    var machine: SessionMachine
    var random: SeededRandomNumberGenerator
    /// The last account lookup the machine asked for.
    var lookup: UInt64?

    /// A story that starts with a machine driven from READY into `state`.
    init(
        in state: SessionState = .ready, policy: RetryPolicy = exactPolicy,
        sessionCheck: SessionCheckPolicy = .standard, seed: UInt64 = 1
    ) {
        machine = SessionMachine(retryPolicy: policy, sessionCheckPolicy: sessionCheck)
        random = SeededRandomNumberGenerator(seed: seed)
        for event in path(to: state) { send(event) }
        precondition(machine.state == state, "the path to \(state) ended in \(machine.state)")
    }

    /// The last timer the machine asked to arm.
    var lastArmedTimer: UInt64 = 0

    /// Notes the lookup and the timer an output asks for, and returns the output.
    func noting(_ output: SessionMachine.Output) -> SessionMachine.Output {
        machine.tokens(for: output)
        for case .fetchAccountStanding(_, let id) in output.actions { lookup = id }
        for case .armTimer(let timer) in output.actions { lastArmedTimer = timer.id }
        for case .pollHealth(let asked) in output.actions { poll = asked }
        return output
    }

    /// Sends one event.
    @discardableResult
    func send(_ event: SessionEvent) -> SessionMachine.Output { noting(machine.handle(event, using: &random)) }

    /// Reports that a connection ended, after `connectedFor` in CONNECTED when given.
    @discardableResult
    func ended(
        _ end: SessionFailure, generation: UInt64? = nil, connectedFor: Duration? = nil
    ) -> SessionMachine.Output {
        noting(
            machine.connectionEnded(
                end, generation: generation ?? machine.liveGeneration ?? 0, connectedFor: connectedFor, using: &random))
    }

    /// Reports a check of the session.
    @discardableResult
    func checked(_ result: Result<SessionCheck, any Error>, check: UInt64) -> SessionMachine.Output {
        noting(machine.sessionChecked(result, check: check, using: &random))
    }

    /// Reports that a timer fired.
    @discardableResult
    func fired(_ id: UInt64, connectedFor: Duration? = nil) -> SessionMachine.Output {
        noting(machine.timerFired(id, connectedFor: connectedFor, using: &random))
    }

    /// Reports the device's network.
    @discardableResult
    func network(isOnline: Bool) -> SessionMachine.Output {
        noting(machine.networkChanged(isOnline: isOnline, using: &random))
    }

    /// Reports the account's standing to the last lookup the machine asked for; returns whether the
    /// presentation changed.
    @discardableResult
    func standing(_ standing: AccountStanding?) -> Bool {
        machine.accountStandingReceived(standing, lookup: lookup ?? 0) != .ignored
    }

    /// The last poll of the health service the machine asked for.
    var poll: UInt64 = 0

    /// Answers the last poll the machine asked for with the health service's alert; returns whether the
    /// presentation's alert changed.
    @discardableResult
    func alert(_ alert: OutageAlert?) -> Bool {
        let shown = machine.outageAlert
        _ = noting(machine.healthAnswered(poll: poll, alert: alert, pollInterval: nil))
        return machine.outageAlert != shown
    }

    /// Reports a failed login at the login interface; returns whether READY took it.
    @discardableResult
    func loginFailed(_ failure: LoginFailure, userID: String? = nil) -> Bool {
        noting(machine.loginFailed(failure, userID: userID)) != .ignored
    }
}
