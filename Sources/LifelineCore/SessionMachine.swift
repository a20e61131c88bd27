/// The session lifecycle as a pure state machine: events in, actions out.
///
/// `SessionMachine` holds the lifecycle's state and the bookkeeping the specification asks for (the
/// connection-failure count, the device's network, health polling, the current connection's generation)
/// and nothing else. Each event method returns the ``SessionAction``s the runtime must perform, in order;
/// the machine performs no I/O, reads no clock and draws no random number of its own (the random source
/// for the retry jitter is passed in).
///
/// Transitions follow ``SessionTransitionTable`` exactly. An event the current state does not accept is
/// *rejected*: the state does not change, ``rejectedEvents`` counts it, and ``Output/rejected(_:in:)`` says
/// so — the network and the user may send anything at any time, and the machine never traps on it.
///
/// ```swift
/// var machine = SessionMachine()
/// var random = SystemRandomNumberGenerator()
/// let output = machine.handle(.loginCached(credentials), using: &random)
/// // output == .transitioned([READY → CONNECTING], actions: [.connect(credentials, generation: 1)])
/// ```
public struct SessionMachine: Sendable {
    /// What handling one event produced.
    public enum Output: Sendable, Hashable {
        /// The event was accepted: the transitions taken (two when entering DISCONNECTED with the device
        /// offline chains DEVICE_OFFLINE) and the actions to perform, in order.
        case transitioned([SessionTransition], actions: [SessionAction])
        /// The state does not accept the event; nothing changed but ``SessionMachine/rejectedEvents``.
        case rejected(SessionEvent.Kind, in: SessionState)

        /// The actions to perform; empty for a rejection.
        public var actions: [SessionAction] {
            if case .transitioned(_, let actions) = self { return actions }
            return []
        }

        /// The transitions taken; empty for a rejection.
        public var transitions: [SessionTransition] {
            if case .transitioned(let transitions, _) = self { return transitions }
            return []
        }
    }

    /// The state with the data valid in it, and only that.
    @usableFromInline
    enum State: Sendable {
        case ready
        case loggingIn(SessionCredentials, generation: UInt64)
        case onboarding(SessionCredentials)
        case error(PermanentError, SessionCredentials)
        case dispose
        case connecting(SessionCredentials, generation: UInt64)
        case connected(SessionCredentials, generation: UInt64)
        case disconnected(SessionCredentials, retryDelay: Duration)
        case reconnecting(SessionCredentials, generation: UInt64)
        case offline(SessionCredentials)
    }

    @usableFromInline var current: State = .ready

    /// The retry policy DISCONNECTED uses.
    public let retryPolicy: RetryPolicy

    /// The failure count at which health polling starts (DESIGN decision 11). Default 3.
    public let healthThreshold: Int

    /// The connection-failure count: +1 on entering DISCONNECTED, reset to 0 on entering CONNECTED.
    public private(set) var failures = 0

    /// Whether the device has a network, as last reported. Entering DISCONNECTED while offline chains
    /// DEVICE_OFFLINE instead of arming the retry timer.
    public private(set) var isDeviceOnline = true

    /// Whether the runtime is polling the health service (between ``SessionAction/startHealthPolling``
    /// and ``SessionAction/stopHealthPolling``).
    public private(set) var isPollingHealth = false

    /// The health service's current outage alert, shown while polling.
    public private(set) var outageAlert: OutageAlert?

    /// The notice the login screen shows, set by an external logout or a failed login.
    public private(set) var notice: Notice?

    /// How many events were rejected because the state did not accept them.
    public private(set) var rejectedEvents = 0

    /// The generation of the last connection the machine asked for; each ``SessionAction/connect(_:generation:)``
    /// and ``SessionAction/authenticate(_:generation:)`` uses the next one.
    public private(set) var generation: UInt64 = 0

    /// Whether the session being disposed of ended by an external logout, so READY shows "You were logged out".
    @usableFromInline var pendingExternalLogout = false

    /// Creates a machine in READY.
    ///
    /// - Parameters:
    ///   - retryPolicy: The delay policy for DISCONNECTED's retry timer.
    ///   - healthThreshold: The failure count at which health polling starts.
    public init(retryPolicy: RetryPolicy = .spec, healthThreshold: Int = 3) {
        precondition(healthThreshold >= 1, "healthThreshold must be at least 1, got \(healthThreshold)")
        self.retryPolicy = retryPolicy
        self.healthThreshold = healthThreshold
    }

    // MARK: - Reading

    /// The current state.
    public var state: SessionState {
        switch current {
        case .ready: .ready
        case .loggingIn: .loggingIn
        case .onboarding: .onboarding
        case .error: .error
        case .dispose: .dispose
        case .connecting: .connecting
        case .connected: .connected
        case .disconnected: .disconnected
        case .reconnecting: .reconnecting
        case .offline: .offline
        }
    }

    /// The session the lifecycle is working with, or `nil` in READY and DISPOSE.
    public var credentials: SessionCredentials? {
        switch current {
        case .ready, .dispose: nil
        case .loggingIn(let c, _), .onboarding(let c), .error(_, let c), .connecting(let c, _),
            .connected(let c, _), .disconnected(let c, _), .reconnecting(let c, _), .offline(let c):
            c
        }
    }

    /// The generation of the connection (or authentication attempt) that is live, or `nil` when none is.
    ///
    /// Exactly one connection is live in LOGGING_IN, CONNECTING, CONNECTED and RECONNECTING; none elsewhere.
    /// The runtime drops every connection event whose generation differs (DESIGN decision 8).
    public var liveGeneration: UInt64? {
        switch current {
        case .loggingIn(_, let g), .connecting(_, let g), .connected(_, let g), .reconnecting(_, let g): g
        case .ready, .onboarding, .error, .dispose, .disconnected, .offline: nil
        }
    }

    /// Whether the retry timer is armed: exactly while in DISCONNECTED.
    public var isRetryTimerArmed: Bool {
        if case .disconnected = current { return true }
        return false
    }

    /// What the interface shows now.
    public var presentation: Presentation {
        switch current {
        case .ready: Presentation(screen: .login, notice: notice)
        case .loggingIn, .dispose: Presentation(screen: .loading)
        case .onboarding: Presentation(screen: .usernameSelection)
        case .error(let error, _): Presentation(screen: .permanentError(error))
        case .connecting: Presentation(screen: .client, banner: .connecting, outageAlert: outageAlert)
        case .connected: Presentation(screen: .client)
        case .disconnected(_, let delay):
            Presentation(screen: .client, banner: .disconnected, outageAlert: outageAlert, retryDelay: delay)
        case .reconnecting: Presentation(screen: .client, banner: .reconnecting, outageAlert: outageAlert)
        case .offline: Presentation(screen: .client, banner: .deviceOffline, outageAlert: outageAlert)
        }
    }

    // MARK: - Facts that are not transitions

    /// Records the device's network state, and fires the transition it means where the state accepts one:
    /// DEVICE_OFFLINE in DISCONNECTED, DEVICE_ONLINE in OFFLINE.
    ///
    /// A network change elsewhere is only recorded: going offline while CONNECTED is noticed when the
    /// socket fails, and DISCONNECTED then goes straight on to OFFLINE.
    ///
    /// - Returns: The output of the transition, or `nil` when the change only was recorded.
    public mutating func networkChanged(
        isOnline: Bool,
        using generator: inout some RandomNumberGenerator
    ) -> Output? {
        isDeviceOnline = isOnline
        switch (isOnline, current) {
        case (false, .disconnected): return handle(.deviceOffline, using: &generator)
        case (true, .offline): return handle(.deviceOnline, using: &generator)
        default: return nil
        }
    }

    /// Records the account standing a ``SessionAction/fetchAccountStanding(userID:)`` found, which tailors
    /// the permanent error. `nil` means the lookup failed; the error then stays untailored.
    ///
    /// - Returns: Whether the presentation changed (only in ERROR).
    @discardableResult
    public mutating func accountStandingReceived(_ standing: AccountStanding?) -> Bool {
        guard case .error(var error, let credentials) = current, error.isCheckingAccount else { return false }
        error.standing = standing
        error.isCheckingAccount = false
        current = .error(error, credentials)
        return true
    }

    /// Records the health service's alert (or its absence). Ignored unless health is being polled, so a
    /// late answer after CONNECTED cannot bring an alert back.
    ///
    /// - Returns: Whether the presentation changed.
    @discardableResult
    public mutating func healthAlertReceived(_ alert: OutageAlert?) -> Bool {
        guard isPollingHealth, outageAlert != alert else { return false }
        outageAlert = alert
        return true
    }

    /// Records why a login at the login interface failed, for the login screen's notice. Only READY shows
    /// it; in any other state it is ignored.
    ///
    /// - Returns: Whether the presentation changed.
    @discardableResult
    public mutating func loginFailed(_ failure: LoginFailure) -> Bool {
        guard case .ready = current else { return false }
        notice = .loginFailed(failure)
        return true
    }

    // MARK: - Events

    /// Handles one event: takes the table's edge, or rejects the event.
    ///
    /// - Parameters:
    ///   - event: The fact that happened.
    ///   - generator: The random source for the retry jitter.
    /// - Returns: The transitions and the actions to perform, or the rejection.
    public mutating func handle(_ event: SessionEvent, using generator: inout some RandomNumberGenerator) -> Output {
        var actions: [SessionAction] = []
        guard let steps = handle(event, using: &generator, appendingTo: &actions) else {
            return .rejected(event.kind, in: state)
        }
        return .transitioned(steps.transitions, actions: actions)
    }

    /// Handles one event, appending the actions to a buffer the caller owns: the allocation-free form of
    /// ``handle(_:using:)`` for runtimes that handle many events (clear the buffer and reuse it).
    ///
    /// - Parameters:
    ///   - event: The fact that happened.
    ///   - generator: The random source for the retry jitter.
    ///   - actions: The buffer the actions are appended to, in the order to perform them.
    /// - Returns: The transitions taken, or `nil` when the state does not accept the event.
    public mutating func handle(
        _ event: SessionEvent,
        using generator: inout some RandomNumberGenerator,
        appendingTo actions: inout [SessionAction]
    ) -> Steps? {
        switch event {
        case .deviceOffline: isDeviceOnline = false
        case .deviceOnline: isDeviceOnline = true
        default: break
        }
        let from = state
        guard let to = SessionTransitionTable.target(from: from, on: event.kind) else {
            rejectedEvents += 1
            return nil
        }
        exit(to: to, into: &actions)
        enter(to, on: event, from: from, into: &actions)
        var steps = Steps(first: SessionTransition(from: from, event: event.kind, to: to, failures: failures))
        // DISCONNECTED's entry: "If the device is offline, trigger transition to OFFLINE."
        if to == .disconnected && !isDeviceOnline {
            steps.chained = SessionTransition(
                from: .disconnected, event: .deviceOffline, to: .offline, failures: failures)
            enter(.offline, on: .deviceOffline, from: .disconnected, into: &actions)
        } else if case .disconnected(let credentials, _) = current {
            let delay = retryPolicy.delay(failures: failures, using: &generator)
            current = .disconnected(credentials, retryDelay: delay)
            actions.append(.armRetryTimer(delay: delay, failures: failures))
        }
        return steps
    }

    /// The transitions one accepted event took: one, or two when entering DISCONNECTED with the device
    /// offline chained DEVICE_OFFLINE.
    public struct Steps: Sendable, Hashable {
        /// The transition the event took.
        public var first: SessionTransition
        /// The transition the target's entry chained, if any.
        public var chained: SessionTransition?

        /// The transitions in order.
        public var transitions: [SessionTransition] { chained.map { [first, $0] } ?? [first] }
    }

    /// The exit effects of the current state when leaving for `target`.
    private mutating func exit(to target: SessionState, into actions: inout [SessionAction]) {
        switch current {
        case .disconnected:
            actions.append(.cancelRetryTimer)
        case .loggingIn(_, let g), .connecting(_, let g), .connected(_, let g), .reconnecting(_, let g):
            // SOCKET_CONNECTED keeps the connection that just connected; every other exit ends it.
            if target != .connected { actions.append(.closeConnection(generation: g)) }
        case .ready, .onboarding, .error, .dispose, .offline:
            break
        }
    }

    /// The entry effects of `state`, entered from `from` on `event`.
    private mutating func enter(
        _ state: SessionState,
        on event: SessionEvent,
        from: SessionState,
        into actions: inout [SessionAction]
    ) {
        let credentials = self.credentials
        /// The session every state after READY carries; the table admits no other path (an invariant).
        func session() -> SessionCredentials {
            guard let session = event.credentials ?? credentials else {
                preconditionFailure("entering \(state) from \(from) on \(event.kind) without a session")
            }
            return session
        }
        switch state {
        case .ready:
            notice = pendingExternalLogout ? .loggedOut : nil
            pendingExternalLogout = false
            current = .ready
        case .loggingIn:
            let session = session()
            generation &+= 1
            notice = nil
            current = .loggingIn(session, generation: generation)
            actions.append(.authenticate(session, generation: generation))
        case .onboarding:
            current = .onboarding(session())
        case .error:
            stopHealthPolling(into: &actions)
            let error: PermanentError
            switch event {
            case .permanentFailure(let reason):
                let lookUp = reason.code == .invalidSession && credentials?.userID != nil
                error = PermanentError(failure: .permanent(reason), isCheckingAccount: lookUp)
                if lookUp, let userID = credentials?.userID { actions.append(.fetchAccountStanding(userID: userID)) }
            case .temporaryFailure(let cause):
                error = PermanentError(failure: .temporary(cause))
            default:
                preconditionFailure("ERROR entered on \(event.kind) from \(from); the table allows only failures")
            }
            current = .error(error, session())
        case .dispose:
            stopHealthPolling(into: &actions)
            if case .logout(let external) = event {
                pendingExternalLogout = external
                if !external, let credentials { actions.append(.endSession(credentials)) }
            }
            failures = 0
            current = .dispose
            actions.append(.dispose)
        case .connecting:
            let session = session()
            generation &+= 1
            notice = nil
            current = .connecting(session, generation: generation)
            actions.append(.connect(session, generation: generation))
        case .connected:
            failures = 0
            stopHealthPolling(into: &actions)
            guard let g = liveGeneration else {
                preconditionFailure("entering CONNECTED from \(from) with no live connection")
            }
            current = .connected(session(), generation: g)
            actions.append(.replaySignificantEvents(generation: g))
        case .disconnected:
            failures += 1
            if failures >= healthThreshold && !isPollingHealth {
                isPollingHealth = true
                actions.append(.startHealthPolling)
            }
            // The retry delay is drawn by `handle` once it knows the device is online.
            current = .disconnected(session(), retryDelay: .zero)
        case .reconnecting:
            let session = session()
            actions.append(.invalidateCaches)
            generation &+= 1
            current = .reconnecting(session, generation: generation)
            actions.append(.connect(session, generation: generation))
        case .offline:
            current = .offline(session())
        }
    }

    private mutating func stopHealthPolling(into actions: inout [SessionAction]) {
        guard isPollingHealth else { return }
        isPollingHealth = false
        outageAlert = nil
        actions.append(.stopHealthPolling)
    }
}

/// One step of the lifecycle: from a state, on an event, to a state, with the failure count after the
/// target's entry effects.
public struct SessionTransition: Sendable, Hashable, CustomStringConvertible {
    /// The state left.
    public var from: SessionState
    /// The event that moved it.
    public var event: SessionEvent.Kind
    /// The state entered.
    public var to: SessionState
    /// The failure count after entering ``to``.
    public var failures: Int

    /// Creates a transition record.
    public init(from: SessionState, event: SessionEvent.Kind, to: SessionState, failures: Int = 0) {
        self.from = from
        self.event = event
        self.to = to
        self.failures = failures
    }

    /// The transition in the specification's notation, with the failure count.
    public var description: String { "\(from.rawValue) -->|\(event.rawValue)| \(to.rawValue) (failures: \(failures))" }
}

extension SessionEvent {
    /// The session a LOGIN event carries.
    var credentials: SessionCredentials? {
        switch self {
        case .loginCached(let c), .loginUncached(let c): c
        default: nil
        }
    }
}
