/// The logic of ``SessionMachine``, not generic: its state, transitions, facts, replay, confirmation, delivery
/// watch, wake check and timers, compiled once in this module and fully specialized.
///
/// The machine's public face is generic over the runtime's tokens, and a generic type used from another
/// module runs unspecialized there (four times slower in `lifeline bench`'s `machine`). So the core names
/// what the runtime holds by plain values — a timer by its id, a connection by its generation, in actions of
/// its own (``Action``) — and ``SessionMachine``, a thin book of tokens inlined into its caller, translates
/// them. Every member documented on ``SessionMachine`` is documented there only.
@usableFromInline
struct SessionCore: Sendable {
    /// The core's actions: ``SessionAction``'s, with a timer to cancel named by its id and a connection to close
    /// by its generation, which ``SessionMachine`` turns into the runtime's tokens. Its own type, not
    /// `SessionAction<UInt64, UInt64>`: a generic enum's copies and destructions go through its generic value
    /// witnesses wherever it is used, which cost `lifeline bench`'s `machine` a sixth of its time.
    @usableFromInline
    enum Action: Sendable, Hashable {
        case authenticate(SessionCredentials, generation: UInt64)
        case connect(SessionCredentials, generation: UInt64)
        /// Close the live connection, `generation`.
        case closeConnection(UInt64)
        case invalidateCaches
        case armTimer(SessionTimer)
        /// Cancel the timer with this id.
        case cancelTimer(UInt64)
        case checkSession(SessionCredentials, check: UInt64)
        case startHealthPolling
        case pollHealth(poll: UInt64)
        case stopHealthPolling
        case fetchAccountStanding(userID: String, lookup: UInt64)
        case replaySignificantEvents(generation: UInt64)
        case replay(ReplayAction)
        case checkSocket(generation: UInt64, check: UInt64)
        case endSession(SessionCredentials)
        case dispose
    }

    /// What handling one event or report produced.
    @usableFromInline
    enum Output: Sendable, Hashable {
        /// The event was accepted: the transitions taken (two when entering DISCONNECTED with the device
        /// offline chains DEVICE_OFFLINE) and the actions to perform, in order.
        case transitioned([SessionTransition], actions: [Action])
        /// The report was accepted without a transition: the bookkeeping or the presentation changed, and
        /// these actions (a check of the session, a timer, a lookup) are to be performed.
        case updated(actions: [Action])
        /// The state does not accept the event; nothing changed but ``rejectedEvents``.
        case rejected(SessionEvent.Kind, in: SessionState)
        /// A report the machine does not act on: from a superseded connection, timer, check or lookup, or a
        /// fact that changes nothing in this state. Nothing changed.
        case ignored

        /// The actions to perform; empty for a rejection or an ignored report.
        @usableFromInline var actions: [Action] {
            switch self {
            case .transitioned(_, let actions), .updated(let actions): actions
            case .rejected, .ignored: []
            }
        }

        /// The transitions taken; empty unless the event was accepted with a transition.
        @usableFromInline var transitions: [SessionTransition] {
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
        /// confirmation's data is kept beside the state (``confirmation``), so the state every
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
    var confirmation: Confirmation?

    /// A delivery the socket owes (``deliveryExpected(_:generation:using:)``) and the timer of its deadline:
    /// set only while CONNECTED, cleared by ``deliverySeen(_:)``, by the timer and on leaving CONNECTED. Kept
    /// beside the state, as ``confirmation`` is, so the state every transition copies holds nothing to count.
    var deliveryWatch: DeliveryWatch?

    /// The check of the socket made when the device woke (``SessionEvent/deviceWoke``) and its deadline's
    /// timer: set only while CONNECTED, cleared by the answer, by the timer and on leaving CONNECTED.
    var socketCheck: SocketCheck?

    /// One check of the socket after a wake: the runtime's check and its deadline's timer.
    @usableFromInline
    struct SocketCheck: Sendable {
        var check: UInt64
        var timer: UInt64
    }

    /// One awaited delivery: what the runtime names it by, and its deadline's timer.
    @usableFromInline
    struct DeliveryWatch: Sendable {
        var key: String
        var timer: UInt64
        var delay: Duration
    }

    /// The retry policy DISCONNECTED uses.
    @usableFromInline let retryPolicy: RetryPolicy

    /// The failure count at which health polling starts. Default 3.
    @usableFromInline let healthThreshold: Int

    /// How an `InvalidSession` is confirmed before the session is given up.
    @usableFromInline let sessionCheckPolicy: SessionCheckPolicy

    /// How long CONNECTED waits for the socket to deliver a message the server stored.
    @usableFromInline let deliveryWatchPolicy: DeliveryWatchPolicy

    /// How long CONNECTED waits, after the device woke, for its socket to answer the check made at once
    /// (``SessionAction/checkSocket(generation:check:)``) before it leaves it as dead. Default 3 s: under a
    /// tenth of the heartbeat's worst case (a 30 s interval and a 10 s Pong timeout), and long enough for a
    /// live socket's round trip; a network that comes back slower than that after a suspend costs a
    /// reconnect, which it would likely have needed anyway.
    @usableFromInline let wakeCheckTimeout: Duration

    /// The replay of significant events, as the machine's sub-machine: CONNECTED's entry starts it, leaving
    /// CONNECTED stops it (blaming a refused frame's kind), DISPOSE forgets it; the runtime reports plays to
    /// the machine (`SessionCore+Replay.swift`) and performs the plan's actions as ``SessionAction/replay(_:)``.
    @usableFromInline var replay: ReplayPlan

    /// The connection-failure count: +1 on entering DISCONNECTED, reset to 0 on entering CONNECTED — except
    /// that a connection which ends within ``stabilityWindow`` of CONNECTED continues from the count it
    /// started with (see ``connectionEnded(_:generation:connectedFor:using:)``).
    @usableFromInline var failures = 0

    /// How long a connection must have lasted after CONNECTED for its end to start the failure count again
    /// from 1; a shorter one continues from the count before it. Default 30 s, one heartbeat interval.
    @usableFromInline let stabilityWindow: Duration

    /// The failure count when the live connection entered CONNECTED: what a connection that ends within
    /// ``stabilityWindow`` continues from.
    @usableFromInline var failuresBeforeConnected = 0

    /// When the live connection entered CONNECTED, on the runtime's clock, when the runtime said
    /// (``connectionReady(generation:at:using:)``): what ``connectedFor(at:)`` measures a connection's age
    /// from, so the runtime keeps no record of its own. `nil` outside CONNECTED.
    @usableFromInline var connectedAt: Duration?

    /// When the current run of connection attempts began, on the runtime's clock, as the runtime said
    /// (``connectionStarted(generation:at:)``): LOGGING_IN's authentication starts it again, a connection
    /// of CONNECTING or RECONNECTING keeps the one before it, through DISCONNECTED's retries, until the
    /// session leaves CONNECTED or is disposed of. What ``timeToConnected`` measures from.
    @usableFromInline var connectingSince: Duration?

    /// What the session last failed with, as its snapshot reports it: set by TEMPORARY_FAILURE,
    /// PERMANENT_FAILURE and the server's LOGOUT (in one place, ``handle(_:using:)``, which every report such
    /// as ``connectionEnded(_:generation:connectedFor:using:)`` goes through) and by a refused onboarding (``onboardingRefused(_:message:)``), cleared by SOCKET_CONNECTED
    /// and by a new login. DISPOSE and READY keep it, so the login screen can
    /// still say what went wrong.
    @usableFromInline var lastError: LastError?

    /// What a session last failed with (``lastError``).
    @usableFromInline
    enum LastError: Sendable {
        /// A failure the lifecycle took an edge on, or the server's logout (``SessionFailure/loggedOut``).
        case failure(SessionFailure)
        /// The server refused to complete onboarding (a username taken, say): a message for people (never
        /// a token) and the refusal.
        case onboardingRefused(message: String, cause: any Error)
    }

    /// Set while the end of a connection that did not last ``stabilityWindow`` is being handled, for
    /// DISCONNECTED's entry.
    var endedBeforeStable = false

    /// How long the live connection took to reach CONNECTED from when its run of attempts began
    /// (``connectingSince`` to ``connectedAt``): the time-to-connected the runtime reports. `nil` outside
    /// CONNECTED, or when the runtime gave the machine no times.
    @usableFromInline var timeToConnected: Duration? {
        guard case .connected = current, let connectedAt, let connectingSince else { return nil }
        return connectedAt - connectingSince
    }

    /// Whether the device has a network, as last reported. Entering DISCONNECTED while offline chains
    /// DEVICE_OFFLINE instead of arming the retry timer.
    @usableFromInline var isDeviceOnline = true

    /// Whether the runtime is polling the health service (between ``SessionAction/startHealthPolling``
    /// and ``SessionAction/stopHealthPolling``).
    @usableFromInline var isPollingHealth = false

    /// While polling health: the poll in flight, or the timer before the next one.
    var healthPoll: HealthPoll?

    /// The last id given to a health poll; polls count apart from the tickets, so starting to poll moves no
    /// timer's id.
    var lastHealthPoll: UInt64 = 0

    /// What health polling waits for.
    enum HealthPoll: Sendable {
        case asking(UInt64)
        case waiting(timer: UInt64)
    }

    /// Whether there is a health service to poll: without one, the failure count never starts polling.
    @usableFromInline let pollsHealth: Bool

    /// How long one pending play of a significant event may take before it fails
    /// (``SessionTimer/Purpose/playTimeout(play:)``). Default 10 s.
    @usableFromInline let replayTimeout: Duration

    /// How often CONNECTED plays the recorded subscriptions again (``SessionTimer/Purpose/renewal``), or `nil`
    /// for never. Stoat's subscriptions expire after 15 minutes.
    @usableFromInline let subscriptionRenewal: Duration?

    /// The timers of the replay — the plays' timeouts and retries — by id, and by purpose: the plan names its
    /// plays, the machine turns their timers into ``SessionTimer``s it arms and cancels.
    var replayTimers: [UInt64: SessionTimer.Purpose] = [:]
    var replayTimerIDs: [SessionTimer.Purpose: UInt64] = [:]

    /// CONNECTED's renewal timer, while armed.
    var renewalTimer: UInt64?

    /// How long to wait between health polls when the service does not say. Default 60 s.
    @usableFromInline let healthPollInterval: Duration

    /// The bounds any wait between health polls is kept within, whatever the service asks for. Default
    /// 10 s to 15 min.
    @usableFromInline let healthPollBounds: ClosedRange<Duration>

    /// The health service's current outage alert, shown while polling.
    @usableFromInline var outageAlert: OutageAlert?

    /// The notice the login screen shows, set by an external logout or a failed login.
    @usableFromInline var notice: Notice?

    /// How many events were rejected because the state did not accept them.
    @usableFromInline var rejectedEvents = 0

    /// The generation of the last connection the machine asked for; each ``SessionAction/connect(_:generation:)``
    /// and ``SessionAction/authenticate(_:generation:)`` uses the next one.
    @usableFromInline var generation: UInt64 = 0

    /// The last id given to a timer, a check or a lookup; each new one takes the next.
    var lastTicket: UInt64 = 0

    /// Whether the session being disposed of ended by an external logout, so READY shows "You were logged out".
    @usableFromInline var pendingExternalLogout = false

    /// The account lookup that tailors the login screen's notice, if one is pending.
    var noticeLookup: (id: UInt64, purpose: NoticeLookup)?

    /// The standing an external logout's lookup found while the client was being disposed of.
    var logoutStanding: AccountStanding?

    /// Creates a machine in READY with the settings `SessionMachine.init` takes, which documents each and gives
    /// the defaults; the one caller passes every one.
    @usableFromInline
    init(
        retryPolicy: RetryPolicy, healthThreshold: Int, sessionCheckPolicy: SessionCheckPolicy,
        stabilityWindow: Duration, deliveryWatchPolicy: DeliveryWatchPolicy, replay: ReplayPlan,
        healthPollInterval: Duration, healthPollBounds: ClosedRange<Duration>, pollsHealth: Bool,
        replayTimeout: Duration, subscriptionRenewal: Duration?, wakeCheckTimeout: Duration
    ) {
        precondition(healthThreshold >= 1, "healthThreshold must be at least 1, got \(healthThreshold)")
        precondition(stabilityWindow >= .zero, "stabilityWindow must not be negative, got \(stabilityWindow)")
        precondition(wakeCheckTimeout > .zero, "wakeCheckTimeout must be positive, got \(wakeCheckTimeout)")
        self.wakeCheckTimeout = wakeCheckTimeout
        self.retryPolicy = retryPolicy
        self.healthThreshold = healthThreshold
        self.sessionCheckPolicy = sessionCheckPolicy
        self.stabilityWindow = stabilityWindow
        self.deliveryWatchPolicy = deliveryWatchPolicy
        self.replay = replay
        self.healthPollInterval = healthPollInterval
        self.healthPollBounds = healthPollBounds
        self.pollsHealth = pollsHealth
        self.replayTimeout = replayTimeout
        self.subscriptionRenewal = subscriptionRenewal
    }

    // MARK: - Reading

    /// The current state.
    @usableFromInline var state: SessionState {
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
    @usableFromInline var credentials: SessionCredentials? {
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
    @usableFromInline var liveGeneration: UInt64? {
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
    @usableFromInline var isConfirmingSession: Bool {
        if case .confirming = attempt?.attempt { return true }
        return false
    }

    /// Whether the retry timer is armed: exactly while in DISCONNECTED.
    @usableFromInline var isRetryTimerArmed: Bool {
        if case .disconnected = current { return true }
        return false
    }

    /// The id of the armed retry timer (``SessionTimer/Purpose/retry(failures:)``), or `nil`: set exactly while
    /// in DISCONNECTED. What lets a runtime find the retry's deadline without searching its other timers.
    @usableFromInline var retryTimerID: UInt64? {
        if case .disconnected(_, _, let timer) = current { return timer }
        return nil
    }

    /// The delivery CONNECTED is waiting for, by the key the runtime gave it, or `nil`: set exactly while a
    /// delivery timer (``SessionTimer/Purpose/deliveryWatch``) is armed, and only in CONNECTED.
    @usableFromInline var watchedDelivery: String? { deliveryWatch?.key }

    /// What the interface shows now.
    @usableFromInline var presentation: Presentation {
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
