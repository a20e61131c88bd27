/// The session lifecycle as a pure state machine: events in, actions out.
///
/// `SessionMachine` holds the lifecycle's state and the bookkeeping the specification asks for (the
/// connection-failure count, the device's network, health polling, the current connection's generation),
/// and Lifeline's own decisions about what the runtime reports: what a connection's end means in each
/// state, the confirmation of an `InvalidSession`, the timers it needs and the account lookups that tailor
/// what the user reads. Each method returns the ``SessionAction``s the runtime must perform, in order; the
/// machine performs no I/O, reads no clock and draws no random number of its own (the random source for
/// the jitter is passed in).
///
/// Transitions follow ``SessionTransitionTable`` exactly. An event the current state does not accept is
/// *rejected*: the state does not change, ``rejectedEvents`` counts it, and ``Output/rejected(_:in:)`` says
/// so — the network and the user may send anything at any time, and the machine never traps on it. A
/// report about a superseded connection, timer, check or lookup is *ignored* (``Output/ignored``).
///
/// ```swift
/// var machine = SessionMachine()
/// var random = SystemRandomNumberGenerator()
/// let output = machine.handle(.loginCached(credentials), using: &random)
/// // output == .transitioned([READY → CONNECTING], actions: [.connect(credentials, generation: 1)])
/// ```
///
/// See <doc:SessionLifecycle> for every decision the machine takes where the specification is silent.
public struct SessionMachine: Sendable {
    /// What handling one event or report produced.
    public enum Output: Sendable, Hashable {
        /// The event was accepted: the transitions taken (two when entering DISCONNECTED with the device
        /// offline chains DEVICE_OFFLINE) and the actions to perform, in order.
        case transitioned([SessionTransition], actions: [SessionAction])
        /// The report was accepted without a transition: the bookkeeping or the presentation changed, and
        /// these actions (a check of the session, a timer, a lookup) are to be performed.
        case updated(actions: [SessionAction])
        /// The state does not accept the event; nothing changed but ``SessionMachine/rejectedEvents``.
        case rejected(SessionEvent.Kind, in: SessionState)
        /// A report the machine does not act on: from a superseded connection, timer, check or lookup, or a
        /// fact that changes nothing in this state. Nothing changed.
        case ignored

        /// The actions to perform; empty for a rejection or an ignored report.
        public var actions: [SessionAction] {
            switch self {
            case .transitioned(_, let actions), .updated(let actions): actions
            case .rejected, .ignored: []
            }
        }

        /// The transitions taken; empty unless the event was accepted with a transition.
        public var transitions: [SessionTransition] {
            if case .transitioned(let transitions, _) = self { return transitions }
            return []
        }
    }

    /// What a connecting state (LOGGING_IN, CONNECTING, RECONNECTING) is doing.
    @usableFromInline
    enum Attempt: Sendable {
        /// A connection (or an authentication attempt) is live.
        case connection(generation: UInt64)
        /// The connection met `InvalidSession` and was closed; the session is being checked. The
        /// confirmation's data is kept beside the state (``SessionMachine/confirmation``), so the state every
        /// transition copies holds nothing to count.
        case confirming
    }

    /// The confirmation of an `InvalidSession` (``SessionCheckPolicy``).
    @usableFromInline
    struct Confirmation: Sendable {
        /// What the server said.
        var reason: PermanentFailureReason
        /// How many checks answered "invalid" so far.
        var invalidAnswers: Int
        /// The check in flight, or the timer before the next one.
        var pending: Pending

        @usableFromInline
        enum Pending: Sendable {
            case check(UInt64)
            case timer(UInt64)
        }
    }

    /// What a pending account lookup tailors on the login screen.
    @usableFromInline
    enum NoticeLookup: Sendable {
        /// An external logout's "You were logged out".
        case logout
        /// A login refused as `Disabled`.
        case disabled
    }

    /// The state with the data valid in it, and only that.
    @usableFromInline
    enum State: Sendable {
        case ready
        case loggingIn(SessionCredentials, Attempt)
        case onboarding(SessionCredentials)
        case error(PermanentError, SessionCredentials, lookup: UInt64?)
        case dispose
        case connecting(SessionCredentials, Attempt)
        case connected(SessionCredentials, generation: UInt64)
        case disconnected(SessionCredentials, retryDelay: Duration, timer: UInt64)
        case reconnecting(SessionCredentials, Attempt)
        case offline(SessionCredentials)
    }

    @usableFromInline var current: State = .ready

    /// The confirmation of an `InvalidSession`: set exactly while a connecting state's attempt is
    /// ``Attempt/confirming``.
    private var confirmation: Confirmation?

    /// A delivery the socket owes (``deliveryExpected(_:generation:using:)``) and the timer of its deadline:
    /// set only while CONNECTED, cleared by ``deliverySeen(_:)``, by the timer and on leaving CONNECTED. Kept
    /// beside the state, as ``confirmation`` is, so the state every transition copies holds nothing to count.
    private var deliveryWatch: DeliveryWatch?

    /// One awaited delivery: what the runtime names it by, and its deadline's timer.
    @usableFromInline
    struct DeliveryWatch: Sendable {
        var key: String
        var timer: UInt64
        var delay: Duration
    }

    /// The retry policy DISCONNECTED uses.
    public let retryPolicy: RetryPolicy

    /// The failure count at which health polling starts. Default 3.
    public let healthThreshold: Int

    /// How an `InvalidSession` is confirmed before the session is given up.
    public let sessionCheckPolicy: SessionCheckPolicy

    /// How long CONNECTED waits for the socket to deliver a message the server stored.
    public let deliveryWatchPolicy: DeliveryWatchPolicy

    /// The connection-failure count: +1 on entering DISCONNECTED, reset to 0 on entering CONNECTED — except
    /// that a connection which ends within ``stabilityWindow`` of CONNECTED continues from the count it
    /// started with (see ``connectionEnded(_:generation:connectedFor:using:)``).
    public private(set) var failures = 0

    /// How long a connection must have lasted after CONNECTED for its end to start the failure count again
    /// from 1; a shorter one continues from the count before it. Default 30 s, one heartbeat interval.
    public let stabilityWindow: Duration

    /// The failure count when the live connection entered CONNECTED: what a connection that ends within
    /// ``stabilityWindow`` continues from.
    public private(set) var failuresBeforeConnected = 0

    /// Set while the end of a connection that did not last ``stabilityWindow`` is being handled, for
    /// DISCONNECTED's entry.
    private var endedBeforeStable = false

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

    /// The last id given to a timer, a check or a lookup; each new one takes the next.
    private var lastTicket: UInt64 = 0

    /// Whether the session being disposed of ended by an external logout, so READY shows "You were logged out".
    @usableFromInline var pendingExternalLogout = false

    /// The account lookup that tailors the login screen's notice, if one is pending.
    private var noticeLookup: (id: UInt64, purpose: NoticeLookup)?

    /// The standing an external logout's lookup found while the client was being disposed of.
    private var logoutStanding: AccountStanding?

    /// Creates a machine in READY.
    ///
    /// - Parameters:
    ///   - retryPolicy: The delay policy for DISCONNECTED's retry timer.
    ///   - healthThreshold: The failure count at which health polling starts; at least 1.
    ///   - sessionCheckPolicy: How an `InvalidSession` is confirmed.
    ///   - stabilityWindow: How long a connection must last after CONNECTED for its end to start the failure
    ///     count again; not negative. Default 30 s, one heartbeat interval.
    ///   - deliveryWatchPolicy: How long CONNECTED waits for a delivery the socket owes.
    public init(
        retryPolicy: RetryPolicy = .spec, healthThreshold: Int = 3, sessionCheckPolicy: SessionCheckPolicy = .standard,
        stabilityWindow: Duration = .seconds(30), deliveryWatchPolicy: DeliveryWatchPolicy = .standard
    ) {
        precondition(healthThreshold >= 1, "healthThreshold must be at least 1, got \(healthThreshold)")
        precondition(stabilityWindow >= .zero, "stabilityWindow must not be negative, got \(stabilityWindow)")
        self.retryPolicy = retryPolicy
        self.healthThreshold = healthThreshold
        self.sessionCheckPolicy = sessionCheckPolicy
        self.stabilityWindow = stabilityWindow
        self.deliveryWatchPolicy = deliveryWatchPolicy
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
        case .loggingIn(let c, _), .onboarding(let c), .error(_, let c, _), .connecting(let c, _),
            .connected(let c, _), .disconnected(let c, _, _), .reconnecting(let c, _), .offline(let c):
            c
        }
    }

    /// The generation of the connection (or authentication attempt) that is live, or `nil` when none is.
    ///
    /// At most one connection is live: in LOGGING_IN, CONNECTING and RECONNECTING (unless the session is
    /// being checked after an `InvalidSession`), and in CONNECTED; none elsewhere. Reports about any other
    /// generation are ignored.
    public var liveGeneration: UInt64? {
        switch current {
        case .loggingIn(_, .connection(let g)), .connecting(_, .connection(let g)),
            .reconnecting(_, .connection(let g)), .connected(_, let g):
            g
        case .loggingIn, .connecting, .reconnecting, .ready, .onboarding, .error, .dispose, .disconnected,
            .offline:
            nil
        }
    }

    /// Whether the session is being checked after the server called it invalid: the connection is closed,
    /// the state (and what the interface shows) is unchanged, and the checks decide between
    /// PERMANENT_FAILURE and TEMPORARY_FAILURE.
    public var isConfirmingSession: Bool {
        if case .confirming = attempt?.attempt { return true }
        return false
    }

    /// Whether the client is being disposed of because the server ended the session (DISPOSE after an
    /// external LOGOUT): READY will say "You were logged out".
    public var isEndingExternalLogout: Bool { pendingExternalLogout }

    /// Whether the retry timer is armed: exactly while in DISCONNECTED.
    public var isRetryTimerArmed: Bool {
        if case .disconnected = current { return true }
        return false
    }

    /// The delivery CONNECTED is waiting for, by the key the runtime gave it, or `nil`: set exactly while a
    /// delivery timer (``SessionTimer/Purpose/deliveryWatch``) is armed, and only in CONNECTED.
    public var watchedDelivery: String? { deliveryWatch?.key }

    /// What the interface shows now.
    public var presentation: Presentation {
        switch current {
        case .ready: Presentation(screen: .login, notice: notice)
        case .loggingIn, .dispose: Presentation(screen: .loading)
        case .onboarding: Presentation(screen: .usernameSelection)
        case .error(let error, _, _): Presentation(screen: .permanentError(error))
        case .connecting: Presentation(screen: .client, banner: .connecting, outageAlert: outageAlert)
        case .connected: Presentation(screen: .client)
        case .disconnected(_, let delay, _):
            Presentation(screen: .client, banner: .disconnected, outageAlert: outageAlert, retryDelay: delay)
        case .reconnecting: Presentation(screen: .client, banner: .reconnecting, outageAlert: outageAlert)
        case .offline: Presentation(screen: .client, banner: .deviceOffline, outageAlert: outageAlert)
        }
    }

    // MARK: - What the runtime reports about connections

    /// The connection `generation` has loaded its initial data: SOCKET_CONNECTED, if it is the live one.
    ///
    /// - Returns: The transition, or ``Output/ignored`` for a superseded generation.
    public mutating func connectionReady(
        generation: UInt64, using generator: inout some RandomNumberGenerator
    ) -> Output {
        guard liveGeneration == generation else { return .ignored }
        return handle(.socketConnected, using: &generator)
    }

    /// The onboarding check of attempt `generation` found that the account has no user yet: NO_USER.
    ///
    /// - Returns: The transition, or ``Output/ignored`` for a superseded generation.
    public mutating func onboardingNeeded(
        generation: UInt64, using generator: inout some RandomNumberGenerator
    ) -> Output {
        guard liveGeneration == generation else { return .ignored }
        return handle(.noUser, using: &generator)
    }

    /// The connection `generation` ended: decides what the ending means in the current state, so that
    /// every end of a live connection takes an edge of the table (or starts a confirmation).
    ///
    /// - A temporary end is TEMPORARY_FAILURE.
    /// - `InvalidSession` while connecting (LOGGING_IN, CONNECTING, RECONNECTING) is confirmed first: the
    ///   connection is closed and the session checked (``SessionAction/checkSession(_:check:)``), the
    ///   state unchanged, until ``sessionChecked(_:check:using:)`` decides. With
    ///   ``SessionCheckPolicy/none`` it is PERMANENT_FAILURE at once, like any other permanent end there.
    /// - CONNECTED has no PERMANENT_FAILURE edge: a permanent end there is the socket dropping
    ///   (TEMPORARY_FAILURE); the reconnect meets the invalid session from RECONNECTING, which has the edge.
    /// - The server's logout is an external LOGOUT; in LOGGING_IN, which has no LOGOUT edge, it is
    ///   PERMANENT_FAILURE with ``PermanentFailureReason/Code/loggedOut``.
    ///
    /// A connection that ends in CONNECTED less than ``stabilityWindow`` after it got there (`connectedFor`)
    /// does not wipe the failure history: DISCONNECTED counts from ``failuresBeforeConnected``, so a server
    /// that accepts every connection and drops it at once meets the growing retry delays of one that refuses
    /// it, instead of a reconnect every retry unit. An unknown age (`nil`, the event API) keeps the
    /// specification's count.
    ///
    /// - Parameters:
    ///   - end: Why the connection ended.
    ///   - generation: The connection's generation.
    ///   - connectedFor: How long the connection had been in CONNECTED, on the runtime's clock; `nil` when
    ///     it never got there or the runtime does not say.
    ///   - generator: The random source for the retry jitter.
    /// - Returns: What to do, or ``Output/ignored`` for a superseded generation.
    public mutating func connectionEnded(
        _ end: SessionFailure, generation: UInt64, connectedFor: Duration? = nil,
        using generator: inout some RandomNumberGenerator
    ) -> Output {
        guard liveGeneration == generation else { return .ignored }
        if case .connected = current, let connectedFor, connectedFor < stabilityWindow { endedBeforeStable = true }
        defer { endedBeforeStable = false }
        switch (end, current) {
        case (.temporary(let cause), _):
            return handle(.temporaryFailure(cause), using: &generator)
        case (.permanent(let reason), .connected):
            let cause = TemporaryFailureCause(
                code: .socketDropped, message: "the server ended the connection (\(reason))", cause: reason)
            return handle(.temporaryFailure(cause), using: &generator)
        case (.permanent(let reason), _) where reason.code == .invalidSession && sessionCheckPolicy.checks > 0:
            return startConfirming(reason, generation: generation)
        case (.permanent(let reason), _):
            return handle(.permanentFailure(reason), using: &generator)
        case (.loggedOut, .loggingIn):
            let reason = PermanentFailureReason(code: .loggedOut, message: "the server ended the session")
            return handle(.permanentFailure(reason), using: &generator)
        case (.loggedOut, _):
            return handle(.logout(external: true), using: &generator)
        }
    }

    /// A check of the session (``SessionAction/checkSession(_:check:)``) answered.
    ///
    /// "Invalid" counts towards the policy's ``SessionCheckPolicy/checks``: the last one needed is
    /// PERMANENT_FAILURE, an earlier one arms the timer before the next check. "Valid", or a check that
    /// failed in any other way, is TEMPORARY_FAILURE with ``TemporaryFailureCause/Code/unconfirmedInvalidSession``.
    ///
    /// - Parameters:
    ///   - result: The answer, or the error of a check that found none.
    ///   - check: The check's id.
    ///   - generator: The random source for the jitter.
    /// - Returns: What to do, or ``Output/ignored`` for a check the machine no longer waits for.
    public mutating func sessionChecked(
        _ result: Result<SessionCheck, any Error>, check: UInt64, using generator: inout some RandomNumberGenerator
    ) -> Output {
        guard case .confirming? = attempt?.attempt, var confirmation, case .check(let pending) = confirmation.pending,
            pending == check
        else { return .ignored }
        switch result {
        case .success(.invalid):
            confirmation.invalidAnswers += 1
            if confirmation.invalidAnswers >= sessionCheckPolicy.checks {
                return handle(.permanentFailure(confirmation.reason), using: &generator)
            }
            let delay = sessionCheckPolicy.backoff.delay(failures: confirmation.invalidAnswers, using: &generator)
            let timer = SessionTimer(
                id: nextTicket(), purpose: .sessionCheck(answers: confirmation.invalidAnswers), delay: delay)
            confirmation.pending = .timer(timer.id)
            self.confirmation = confirmation
            return .updated(actions: [.armTimer(timer)])
        case .success(.valid):
            let cause = TemporaryFailureCause(
                code: .unconfirmedInvalidSession,
                message: "the server said \(confirmation.reason.message), but a check found the session valid")
            return handle(.temporaryFailure(cause), using: &generator)
        case .failure(let error):
            let cause = TemporaryFailureCause(
                code: .unconfirmedInvalidSession,
                message: "the server said \(confirmation.reason.message), and the session could not be checked",
                cause: error)
            return handle(.temporaryFailure(cause), using: &generator)
        }
    }

    /// A timer the machine armed (``SessionAction/armTimer(_:)``) fired: RETRY for DISCONNECTED's retry
    /// timer, the next check of a session being confirmed, TEMPORARY_FAILURE
    /// ``TemporaryFailureCause/Code/deliveryStalled`` for a delivery deadline.
    ///
    /// A delivery deadline ends the connection as a connection's own end does: one that had been in CONNECTED
    /// less than ``stabilityWindow`` (`connectedFor`) keeps the failure history, so a server that stays deaf
    /// meets growing retry delays instead of a reconnect every deadline.
    ///
    /// - Parameters:
    ///   - id: The timer's id.
    ///   - connectedFor: How long the live connection had been in CONNECTED, on the runtime's clock; `nil` when
    ///     the runtime does not say (the specification's count).
    ///   - generator: The random source for the jitter.
    /// - Returns: What to do, or ``Output/ignored`` for a timer that was cancelled or superseded.
    public mutating func timerFired(
        _ id: UInt64, connectedFor: Duration? = nil, using generator: inout some RandomNumberGenerator
    ) -> Output {
        if case .disconnected(_, _, let timer) = current, timer == id {
            return handle(.retry, using: &generator)
        }
        if let watch = deliveryWatch, watch.timer == id {
            // Fired: CONNECTED's exit has no timer left to cancel.
            deliveryWatch = nil
            if case .connected = current, let connectedFor, connectedFor < stabilityWindow { endedBeforeStable = true }
            defer { endedBeforeStable = false }
            let cause = TemporaryFailureCause(
                code: .deliveryStalled,
                message: "the socket delivered no event for a message the server stored, within \(watch.delay)")
            return handle(.temporaryFailure(cause), using: &generator)
        }
        guard let (credentials, waiting) = attempt, case .confirming = waiting, var confirmation,
            case .timer(let pending) = confirmation.pending, pending == id
        else { return .ignored }
        let check = nextTicket()
        confirmation.pending = .check(check)
        self.confirmation = confirmation
        return .updated(actions: [.checkSession(credentials, check: check)])
    }

    // MARK: - Deliveries the socket owes

    /// The server stored something whose event the live connection must deliver — the user's own message,
    /// which the REST answer carried — so the socket has until the delivery deadline to bring it
    /// (``DeliveryWatchPolicy``): the deadline's timer is armed, as data.
    ///
    /// One delivery is watched at a time: while one is awaited, another changes nothing (the first one's
    /// deadline already proves the socket). A watch needs the connection the fact was observed on:
    /// `generation` is the connection that was CONNECTED when the send started, so a send that straddled a
    /// reconnect (its event may have gone to the old socket) is not watched. The machine never resets or
    /// counts failures here; only the firing deadline is a TEMPORARY_FAILURE.
    ///
    /// - Parameters:
    ///   - key: What the runtime names the delivery by (the message's nonce), for ``deliverySeen(_:)``.
    ///   - generation: The connection the send started on.
    ///   - generator: The random source for the deadline's jitter.
    /// - Returns: ``Output/updated(actions:)`` with the timer to arm, or ``Output/ignored`` outside CONNECTED,
    ///   for another connection, while a delivery is already watched, or with the watch disabled.
    public mutating func deliveryExpected(
        _ key: String, generation: UInt64, using generator: inout some RandomNumberGenerator
    ) -> Output {
        guard deliveryWatchPolicy.isEnabled, case .connected(_, let live) = current, live == generation,
            deliveryWatch == nil
        else { return .ignored }
        let delay = deliveryWatchPolicy.delay(using: &generator)
        let timer = SessionTimer(id: nextTicket(), purpose: .deliveryWatch, delay: delay)
        deliveryWatch = DeliveryWatch(key: key, timer: timer.id, delay: delay)
        return .updated(actions: [.armTimer(timer)])
    }

    /// The socket delivered what ``deliveryExpected(_:generation:using:)`` named `key`: its deadline's timer is
    /// cancelled.
    ///
    /// - Returns: ``Output/updated(actions:)`` with the cancellation, or ``Output/ignored`` when `key` is not the
    ///   delivery awaited (another message, or one whose deadline already passed).
    public mutating func deliverySeen(_ key: String) -> Output {
        guard let watch = deliveryWatch, watch.key == key else { return .ignored }
        deliveryWatch = nil
        return .updated(actions: [.cancelTimer(id: watch.timer)])
    }

    // MARK: - Facts that are not transitions

    /// Records the device's network state, and fires the transition it means where the state accepts one:
    /// DEVICE_OFFLINE in DISCONNECTED, DEVICE_ONLINE in OFFLINE.
    ///
    /// A network change elsewhere is only recorded: going offline while CONNECTED is noticed when the
    /// socket fails, and DISCONNECTED then goes straight on to OFFLINE.
    ///
    /// - Returns: The transition; ``Output/updated(actions:)`` with no action when the change was only
    ///   recorded; ``Output/ignored`` when the network did not change.
    public mutating func networkChanged(
        isOnline: Bool,
        using generator: inout some RandomNumberGenerator
    ) -> Output {
        guard isOnline != isDeviceOnline else { return .ignored }
        isDeviceOnline = isOnline
        switch (isOnline, current) {
        case (false, .disconnected): return handle(.deviceOffline, using: &generator)
        case (true, .offline): return handle(.deviceOnline, using: &generator)
        default: return .updated(actions: [])
        }
    }

    /// Records the account standing a ``SessionAction/fetchAccountStanding(userID:lookup:)`` found: it
    /// tailors ERROR's message, or READY's notice after an external logout or a login refused as
    /// `Disabled`. `nil` means the lookup failed; what it would have tailored stays as it is.
    ///
    /// - Parameters:
    ///   - standing: The standing, or `nil` when the lookup failed.
    ///   - lookup: The lookup's id; an answer to any lookup but the pending one is ignored.
    /// - Returns: Whether the presentation changed.
    @discardableResult
    public mutating func accountStandingReceived(_ standing: AccountStanding?, lookup: UInt64) -> Bool {
        if case .error(var error, let credentials, let pending?) = current, pending == lookup {
            error.standing = standing
            error.isCheckingAccount = false
            current = .error(error, credentials, lookup: nil)
            return true
        }
        guard let pending = noticeLookup, pending.id == lookup else { return false }
        noticeLookup = nil
        // An account in good standing keeps the notice the lookup would have tailored: "You were logged
        // out", or the refused login's "This account has been disabled".
        guard let standing, standing != .loggedOut else { return false }
        switch (pending.purpose, current) {
        case (.logout, .dispose):
            logoutStanding = standing
            return false
        case (.logout, .ready) where notice == .loggedOut, (.disabled, .ready):
            notice = .accountStanding(standing)
            return true
        default:
            return false
        }
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
    /// it. A login refused as `Disabled` carries the account's user id: the account's standing is looked
    /// up, and a suspended, banned, deleted or spam account is named as such when the answer comes.
    ///
    /// - Parameters:
    ///   - failure: Why the login failed.
    ///   - userID: The account's user id when the refusal names it (Stoat's `Disabled`), else `nil`.
    /// - Returns: The lookup to perform, or ``Output/ignored`` outside READY.
    public mutating func loginFailed(_ failure: LoginFailure, userID: String? = nil) -> Output {
        guard case .ready = current else { return .ignored }
        notice = .loginFailed(failure)
        guard let userID else {
            noticeLookup = nil
            return .updated(actions: [])
        }
        let lookup = nextTicket()
        noticeLookup = (lookup, .disabled)
        return .updated(actions: [.fetchAccountStanding(userID: userID, lookup: lookup)])
    }

    // MARK: - Events

    /// Handles one event: takes the table's edge, or rejects the event.
    ///
    /// SOCKET_CONNECTED and NO_USER are facts about the live connection: with none live (the session is
    /// being checked after an `InvalidSession`) they are rejected.
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
        var transitions = steps.transitions
        transitions[0].cause = event.failure
        return .transitioned(transitions, actions: actions)
    }

    /// Handles one event, appending the actions to a buffer the caller owns: the allocation-free form of
    /// ``handle(_:using:)`` for runtimes that handle many events (clear the buffer and reuse it). Its
    /// transitions carry no ``SessionTransition/cause``: the caller has the event's
    /// (``SessionEvent/failure``).
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
        case .socketConnected, .noUser:
            guard liveGeneration != nil else {
                rejectedEvents += 1
                return nil
            }
        default: break
        }
        let from = state
        guard let to = SessionTransitionTable.target(from: from, on: event.kind) else {
            rejectedEvents += 1
            return nil
        }
        exit(to: to, into: &actions)
        enter(to, on: event, from: from, into: &actions)
        // The cause is left to the caller, who has the event (`event.failure`): copying it here would cost
        // more than the rest of the transition in the allocation-free form.
        var steps = Steps(firstStep: .init(from: from, event: event.kind, to: to, failures: failures))
        // DISCONNECTED's entry: "If the device is offline, trigger transition to OFFLINE."
        if to == .disconnected && !isDeviceOnline {
            steps.chainedStep = .init(from: .disconnected, event: .deviceOffline, to: .offline, failures: failures)
            enter(.offline, on: .deviceOffline, from: .disconnected, into: &actions)
        } else if case .disconnected(let credentials, _, _) = current {
            let delay = retryPolicy.delay(failures: failures, using: &generator)
            let timer = SessionTimer(id: nextTicket(), purpose: .retry(failures: failures), delay: delay)
            current = .disconnected(credentials, retryDelay: delay, timer: timer.id)
            actions.append(.armTimer(timer))
        }
        return steps
    }

    /// The transitions one accepted event took: one, or two when entering DISCONNECTED with the device
    /// offline chained DEVICE_OFFLINE.
    ///
    /// Stored as plain values, so that the allocation-free form returns nothing that needs counting; the
    /// transitions are made when asked for, without a cause (the caller has the event's).
    public struct Steps: Sendable, Hashable {
        @usableFromInline
        struct Step: Sendable, Hashable {
            var from: SessionState
            var event: SessionEvent.Kind
            var to: SessionState
            var failures: Int

            var transition: SessionTransition {
                SessionTransition(from: from, event: event, to: to, failures: failures)
            }
        }

        @usableFromInline var firstStep: Step
        @usableFromInline var chainedStep: Step?

        /// The transition the event took.
        public var first: SessionTransition { firstStep.transition }
        /// The transition the target's entry chained, if any.
        public var chained: SessionTransition? { chainedStep?.transition }
        /// Whether the target's entry chained a second transition.
        public var isChained: Bool { chainedStep != nil }

        /// The transitions in order.
        public var transitions: [SessionTransition] {
            chainedStep.map { [first, $0.transition] } ?? [first]
        }
    }

    // MARK: - Entry and exit effects

    /// The exit effects of the current state when leaving for `target`.
    private mutating func exit(to target: SessionState, into actions: inout [SessionAction]) {
        switch current {
        case .disconnected(_, _, let timer):
            actions.append(.cancelTimer(id: timer))
        case .loggingIn(_, let attempt), .connecting(_, let attempt), .reconnecting(_, let attempt):
            switch attempt {
            case .connection(let g):
                // SOCKET_CONNECTED keeps the connection that just connected; every other exit ends it.
                if target != .connected { actions.append(.closeConnection(generation: g)) }
            case .confirming:
                // The connection was closed when the confirmation began; a check in flight is ignored.
                if case .timer(let id) = confirmation?.pending { actions.append(.cancelTimer(id: id)) }
                confirmation = nil
            }
        case .connected(_, let g):
            if let watch = deliveryWatch {
                actions.append(.cancelTimer(id: watch.timer))
                deliveryWatch = nil
            }
            actions.append(.closeConnection(generation: g))
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
            if pendingExternalLogout {
                notice = logoutStanding.map(Notice.accountStanding) ?? .loggedOut
            } else {
                notice = nil
                noticeLookup = nil
            }
            pendingExternalLogout = false
            logoutStanding = nil
            current = .ready
        case .loggingIn:
            let session = session()
            generation &+= 1
            clearNotice()
            current = .loggingIn(session, .connection(generation: generation))
            actions.append(.authenticate(session, generation: generation))
        case .onboarding:
            current = .onboarding(session())
        case .error:
            stopHealthPolling(into: &actions)
            let error: PermanentError
            var lookup: UInt64?
            switch event {
            case .permanentFailure(let reason):
                let tailors = reason.code == .invalidSession || reason.code == .loggedOut
                if tailors, let userID = credentials?.userID {
                    let id = nextTicket()
                    lookup = id
                    actions.append(.fetchAccountStanding(userID: userID, lookup: id))
                }
                error = PermanentError(failure: .permanent(reason), isCheckingAccount: lookup != nil)
            case .temporaryFailure(let cause):
                error = PermanentError(failure: .temporary(cause))
            default:
                preconditionFailure("ERROR entered on \(event.kind) from \(from); the table allows only failures")
            }
            current = .error(error, session(), lookup: lookup)
        case .dispose:
            stopHealthPolling(into: &actions)
            if case .logout(let external) = event {
                pendingExternalLogout = external
                if external, let userID = credentials?.userID {
                    let id = nextTicket()
                    noticeLookup = (id, .logout)
                    actions.append(.fetchAccountStanding(userID: userID, lookup: id))
                }
                if !external, let credentials { actions.append(.endSession(credentials)) }
            }
            // A cancelled onboarding and a dismissed error leave a session the server may still hold (a fresh
            // one from the login interface): end it, as a user's logout does. One the server already ended
            // answers as ended, which is what was asked for.
            if event.kind == .cancel || event.kind == .dismiss, let credentials {
                actions.append(.endSession(credentials))
            }
            failures = 0
            current = .dispose
            actions.append(.dispose)
        case .connecting:
            let session = session()
            generation &+= 1
            clearNotice()
            current = .connecting(session, .connection(generation: generation))
            actions.append(.connect(session, generation: generation))
        case .connected:
            failuresBeforeConnected = failures
            failures = 0
            stopHealthPolling(into: &actions)
            guard let g = liveGeneration else {
                preconditionFailure("entering CONNECTED from \(from) with no live connection")
            }
            current = .connected(session(), generation: g)
            actions.append(.replaySignificantEvents(generation: g))
        case .disconnected:
            // A connection that did not prove stable continues the count it started from (the lifecycle's
            // extension "A short connection keeps the failure count").
            if from == .connected && endedBeforeStable { failures = failuresBeforeConnected }
            failures += 1
            if failures >= healthThreshold && !isPollingHealth {
                isPollingHealth = true
                actions.append(.startHealthPolling)
            }
            // The retry delay and timer are drawn by `handle` once it knows the device is online.
            current = .disconnected(session(), retryDelay: .zero, timer: 0)
        case .reconnecting:
            let session = session()
            actions.append(.invalidateCaches)
            generation &+= 1
            current = .reconnecting(session, .connection(generation: generation))
            actions.append(.connect(session, generation: generation))
        case .offline:
            current = .offline(session())
        }
    }

    /// A new login clears the login screen's notice and forgets the lookup that would have tailored it.
    private mutating func clearNotice() {
        notice = nil
        noticeLookup = nil
        logoutStanding = nil
        pendingExternalLogout = false
    }

    private mutating func stopHealthPolling(into actions: inout [SessionAction]) {
        guard isPollingHealth else { return }
        isPollingHealth = false
        outageAlert = nil
        actions.append(.stopHealthPolling)
    }

    // MARK: - Confirming an invalid session

    /// The credentials and the attempt of a connecting state (LOGGING_IN, CONNECTING, RECONNECTING).
    private var attempt: (credentials: SessionCredentials, attempt: Attempt)? {
        switch current {
        case .loggingIn(let c, let a), .connecting(let c, let a), .reconnecting(let c, let a): (c, a)
        case .ready, .onboarding, .error, .dispose, .connected, .disconnected, .offline: nil
        }
    }

    private mutating func setAttempt(_ attempt: Attempt) {
        switch current {
        case .loggingIn(let c, _): current = .loggingIn(c, attempt)
        case .connecting(let c, _): current = .connecting(c, attempt)
        case .reconnecting(let c, _): current = .reconnecting(c, attempt)
        case .ready, .onboarding, .error, .dispose, .connected, .disconnected, .offline:
            preconditionFailure("an attempt set in \(state), which makes none")
        }
    }

    /// Closes the connection that met `InvalidSession` and checks the session, the state unchanged.
    private mutating func startConfirming(_ reason: PermanentFailureReason, generation: UInt64) -> Output {
        guard let credentials else { preconditionFailure("confirming a session in \(state), which has none") }
        let check = nextTicket()
        setAttempt(.confirming)
        confirmation = Confirmation(reason: reason, invalidAnswers: 0, pending: .check(check))
        return .updated(actions: [.closeConnection(generation: generation), .checkSession(credentials, check: check)])
    }

    private mutating func nextTicket() -> UInt64 {
        lastTicket &+= 1
        return lastTicket
    }
}

extension SessionEvent {
    /// The session a LOGIN event carries.
    var credentials: SessionCredentials? {
        switch self {
        case .loginCached(let c), .loginUncached(let c): c
        default: nil
        }
    }

    /// The failure a TEMPORARY_FAILURE or PERMANENT_FAILURE carries.
    public var failure: SessionFailure? {
        switch self {
        case .temporaryFailure(let cause): .temporary(cause)
        case .permanentFailure(let reason): .permanent(reason)
        default: nil
        }
    }
}
