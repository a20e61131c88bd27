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
/// The machine holds the runtime's handles too, as postgres-nio's `PoolStateMachine` holds its timer
/// cancellation tokens: the runtime hands over the token of each timer it armed (``timerArmed(_:token:)``)
/// and of each connection it made (``connectionMade(_:generation:)``), and the machine gives the token back in
/// the action that cancels the timer or closes the connection, so the runtime keeps no table of its own.
/// `TimerToken` and `ConnectionToken` are the runtime's types; tests pass plain values.
///
/// Only the tokens are generic. The lifecycle's logic and state are a non-generic core in this module, which
/// names a timer by its id and a connection by its generation; this type holds the core and the tokens and puts
/// the tokens in the core's actions, and it is inlined into its caller, so it runs specialized to the runtime's
/// tokens there. A generic machine called from another module ran unspecialized, four times slower
/// (<doc:SessionLifecycle>, "The machine holds the runtime's handles").
///
/// See <doc:SessionLifecycle> for every decision the machine takes where the specification is silent.
public struct SessionMachine<TimerToken: Hashable & Sendable, ConnectionToken: Hashable & Sendable>: Sendable {
    /// What the runtime performs: the actions over this machine's tokens.
    public typealias Action = SessionAction<TimerToken, ConnectionToken>

    /// What handling one event or report produced.
    public enum Output: Sendable, Hashable {
        /// The event was accepted: the transitions taken (two when entering DISCONNECTED with the device
        /// offline chains DEVICE_OFFLINE) and the actions to perform, in order.
        case transitioned([SessionTransition], actions: [Action])
        /// The report was accepted without a transition: the bookkeeping or the presentation changed, and
        /// these actions (a check of the session, a timer, a lookup) are to be performed.
        case updated(actions: [Action])
        /// The state does not accept the event; nothing changed but ``SessionMachine/rejectedEvents``.
        case rejected(SessionEvent.Kind, in: SessionState)
        /// A report the machine does not act on: from a superseded connection, timer, check or lookup, or a
        /// fact that changes nothing in this state. Nothing changed.
        case ignored

        /// The actions to perform; empty for a rejection or an ignored report.
        public var actions: [Action] {
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

    /// What a session last failed with (``lastError``).
    public enum LastError: Sendable {
        /// A failure the lifecycle took an edge on, or the server's logout (``SessionFailure/loggedOut``).
        case failure(SessionFailure)
        /// The server refused to complete onboarding (a username taken, say): a message for people (never
        /// a token) and the refusal.
        case onboardingRefused(message: String, cause: any Error)
    }

    /// The transitions one accepted event took (``handle(_:using:appendingTo:)``).
    package typealias Steps = SessionSteps

    // MARK: - Storage

    /// The machine's logic and state, not generic (``SessionCore``).
    @usableFromInline var core: SessionCore

    /// Every armed timer, with its token once the runtime handed it over (``timerArmed(_:token:)``). A list, not
    /// a dictionary: a handful of timers are armed at a time, and searching them costs less than hashing an id
    /// on every arm and cancel.
    @usableFromInline var timers: [TimerSlot] = []

    /// The live connection's token, and its generation, once the runtime handed it over
    /// (``connectionMade(_:generation:)``); dropped when the connection is closed or ends by itself.
    @usableFromInline var connection: (generation: UInt64, token: ConnectionToken)?

    /// The core's actions of the event being handled, before their tokens are put in: kept between events,
    /// so the allocation-free form allocates nothing.
    @usableFromInline var scratch: [SessionCore.Action] = []

    /// Creates a machine in READY.
    ///
    /// - Parameters:
    ///   - retryPolicy: The delay policy for DISCONNECTED's retry timer.
    ///   - healthThreshold: The failure count at which health polling starts; at least 1.
    ///   - sessionCheckPolicy: How an `InvalidSession` is confirmed.
    ///   - stabilityWindow: How long a connection must last after CONNECTED for its end to start the failure
    ///     count again; not negative. Default 30 s, one heartbeat interval.
    ///   - deliveryWatchPolicy: How long CONNECTED waits for a delivery the socket owes.
    ///   - replay: The replay plan the machine runs (its mode, retry limit and delay), empty.
    ///   - healthPollInterval: The wait between health polls when the service does not say.
    ///   - healthPollBounds: The bounds any wait between health polls is kept within.
    ///   - pollsHealth: Whether there is a health service to poll.
    ///   - replayTimeout: How long a pending play may take before it fails.
    ///   - subscriptionRenewal: How often CONNECTED plays the recorded subscriptions again; `nil` for never.
    ///   - wakeCheckTimeout: How long CONNECTED waits for its socket's answer after the device woke; positive.
    public init(
        retryPolicy: RetryPolicy = .spec, healthThreshold: Int = 3, sessionCheckPolicy: SessionCheckPolicy = .standard,
        stabilityWindow: Duration = .seconds(30), deliveryWatchPolicy: DeliveryWatchPolicy = .standard,
        replay: ReplayPlan = ReplayPlan(), healthPollInterval: Duration = .seconds(60),
        healthPollBounds: ClosedRange<Duration> = .seconds(10)...(.seconds(900)), pollsHealth: Bool = true,
        replayTimeout: Duration = .seconds(10), subscriptionRenewal: Duration? = nil,
        wakeCheckTimeout: Duration = .seconds(3)
    ) {
        core = SessionCore(
            retryPolicy: retryPolicy, healthThreshold: healthThreshold, sessionCheckPolicy: sessionCheckPolicy,
            stabilityWindow: stabilityWindow, deliveryWatchPolicy: deliveryWatchPolicy, replay: replay,
            healthPollInterval: healthPollInterval, healthPollBounds: healthPollBounds, pollsHealth: pollsHealth,
            replayTimeout: replayTimeout, subscriptionRenewal: subscriptionRenewal, wakeCheckTimeout: wakeCheckTimeout)
    }

    // MARK: - Reading

    /// The retry policy DISCONNECTED uses.
    @inlinable public var retryPolicy: RetryPolicy { core.retryPolicy }

    /// The failure count at which health polling starts. Default 3.
    @inlinable public var healthThreshold: Int { core.healthThreshold }

    /// How an `InvalidSession` is confirmed before the session is given up.
    @inlinable public var sessionCheckPolicy: SessionCheckPolicy { core.sessionCheckPolicy }

    /// How long CONNECTED waits for the socket to deliver a message the server stored.
    @inlinable public var deliveryWatchPolicy: DeliveryWatchPolicy { core.deliveryWatchPolicy }

    /// How long CONNECTED waits, after the device woke, for its socket to answer the check made at once
    /// (``SessionAction/checkSocket(generation:check:)``) before it leaves it as dead. Default 3 s: under a
    /// tenth of the heartbeat's worst case (a 30 s interval and a 10 s Pong timeout), and long enough for a
    /// live socket's round trip; a network that comes back slower than that after a suspend costs a
    /// reconnect, which it would likely have needed anyway.
    @inlinable public var wakeCheckTimeout: Duration { core.wakeCheckTimeout }

    /// The replay of significant events, as the machine's sub-machine: CONNECTED's entry starts it, leaving
    /// CONNECTED stops it (blaming a refused frame's kind), DISPOSE forgets it; the runtime reports plays to
    /// the machine (`SessionCore+Replay.swift`) and performs the plan's actions as ``SessionAction/replay(_:)``.
    @inlinable public var replay: ReplayPlan { core.replay }

    /// The connection-failure count: +1 on entering DISCONNECTED, reset to 0 on entering CONNECTED — except
    /// that a connection which ends within ``stabilityWindow`` of CONNECTED continues from the count it
    /// started with (see ``connectionEnded(_:generation:connectedFor:using:)``).
    @inlinable public var failures: Int { core.failures }

    /// How long a connection must have lasted after CONNECTED for its end to start the failure count again
    /// from 1; a shorter one continues from the count before it. Default 30 s, one heartbeat interval.
    @inlinable public var stabilityWindow: Duration { core.stabilityWindow }

    /// The failure count when the live connection entered CONNECTED: what a connection that ends within
    /// ``stabilityWindow`` continues from.
    @inlinable public var failuresBeforeConnected: Int { core.failuresBeforeConnected }

    /// When the live connection entered CONNECTED, on the runtime's clock, when the runtime said
    /// (``connectionReady(generation:at:using:)``): what ``connectedFor(at:)`` measures a connection's age
    /// from, so the runtime keeps no record of its own. `nil` outside CONNECTED.
    @inlinable public var connectedAt: Duration? { core.connectedAt }

    /// When the current run of connection attempts began, on the runtime's clock, as the runtime said
    /// (``connectionStarted(generation:at:)``): LOGGING_IN's authentication starts it again, a connection
    /// of CONNECTING or RECONNECTING keeps the one before it, through DISCONNECTED's retries, until the
    /// session leaves CONNECTED or is disposed of. What ``timeToConnected`` measures from.
    @inlinable public var connectingSince: Duration? { core.connectingSince }

    /// How long the live connection took to reach CONNECTED from when its run of attempts began
    /// (``connectingSince`` to ``connectedAt``): the time-to-connected the runtime reports. `nil` outside
    /// CONNECTED, or when the runtime gave the machine no times.
    @inlinable public var timeToConnected: Duration? { core.timeToConnected }

    /// Whether the device has a network, as last reported. Entering DISCONNECTED while offline chains
    /// DEVICE_OFFLINE instead of arming the retry timer.
    @inlinable public var isDeviceOnline: Bool { core.isDeviceOnline }

    /// Whether the runtime is polling the health service (between ``SessionAction/startHealthPolling``
    /// and ``SessionAction/stopHealthPolling``).
    @inlinable public var isPollingHealth: Bool { core.isPollingHealth }

    /// Whether there is a health service to poll: without one, the failure count never starts polling.
    @inlinable public var pollsHealth: Bool { core.pollsHealth }

    /// How long one pending play of a significant event may take before it fails
    /// (``SessionTimer/Purpose/playTimeout(play:)``). Default 10 s.
    @inlinable public var replayTimeout: Duration { core.replayTimeout }

    /// How often CONNECTED plays the recorded subscriptions again (``SessionTimer/Purpose/renewal``), or `nil`
    /// for never. Stoat's subscriptions expire after 15 minutes.
    @inlinable public var subscriptionRenewal: Duration? { core.subscriptionRenewal }

    /// How long to wait between health polls when the service does not say. Default 60 s.
    @inlinable public var healthPollInterval: Duration { core.healthPollInterval }

    /// The bounds any wait between health polls is kept within, whatever the service asks for. Default
    /// 10 s to 15 min.
    @inlinable public var healthPollBounds: ClosedRange<Duration> { core.healthPollBounds }

    /// The health service's current outage alert, shown while polling.
    @inlinable public var outageAlert: OutageAlert? { core.outageAlert }

    /// The notice the login screen shows, set by an external logout or a failed login.
    @inlinable public var notice: Notice? { core.notice }

    /// How many events were rejected because the state did not accept them.
    @inlinable public var rejectedEvents: Int { core.rejectedEvents }

    /// The generation of the last connection the machine asked for; each ``SessionAction/connect(_:generation:)``
    /// and ``SessionAction/authenticate(_:generation:)`` uses the next one.
    @inlinable public var generation: UInt64 { core.generation }

    /// The current state.
    @inlinable public var state: SessionState { core.state }

    /// The session the lifecycle is working with, or `nil` in READY and DISPOSE.
    @inlinable public var credentials: SessionCredentials? { core.credentials }

    /// The generation of the connection (or authentication attempt) that is live, or `nil` when none is.
    ///
    /// At most one connection is live: in LOGGING_IN, CONNECTING and RECONNECTING (unless the session is
    /// being checked after an `InvalidSession`), and in CONNECTED; none elsewhere. Reports about any other
    /// generation are ignored.
    @inlinable public var liveGeneration: UInt64? { core.liveGeneration }

    /// Whether the session is being checked after the server called it invalid: the connection is closed,
    /// the state (and what the interface shows) is unchanged, and the checks decide between
    /// PERMANENT_FAILURE and TEMPORARY_FAILURE.
    @inlinable public var isConfirmingSession: Bool { core.isConfirmingSession }

    /// Whether the retry timer is armed: exactly while in DISCONNECTED.
    @inlinable public var isRetryTimerArmed: Bool { core.isRetryTimerArmed }

    /// The id of the armed retry timer (``SessionTimer/Purpose/retry(failures:)``), or `nil`: set exactly while
    /// in DISCONNECTED. What lets a runtime find the retry's deadline without searching its other timers.
    @inlinable public var retryTimerID: UInt64? { core.retryTimerID }

    /// The delivery CONNECTED is waiting for, by the key the runtime gave it, or `nil`: set exactly while a
    /// delivery timer (``SessionTimer/Purpose/deliveryWatch``) is armed, and only in CONNECTED.
    @inlinable public var watchedDelivery: String? { core.watchedDelivery }

    /// What the interface shows now.
    @inlinable public var presentation: Presentation { core.presentation }

    /// What the session last failed with, as its snapshot reports it: set by TEMPORARY_FAILURE,
    /// PERMANENT_FAILURE and the server's LOGOUT (in one place, ``handle(_:using:)``, which every report such
    /// as ``connectionEnded(_:generation:connectedFor:using:)`` goes through) and by a refused onboarding (``onboardingRefused(_:message:)``), cleared by SOCKET_CONNECTED
    /// and by a new login. DISPOSE and READY keep it, so the login screen can
    /// still say what went wrong.
    @inlinable public var lastError: LastError? {
        switch core.lastError {
        case nil: nil
        case .failure(let failure): .failure(failure)
        case .onboardingRefused(let message, let cause): .onboardingRefused(message: message, cause: cause)
        }
    }

    // MARK: - Events and reports

    /// A check of the session (``SessionAction/checkSession(_:check:)``) answered.
    ///
    /// "Invalid" counts towards the policy's ``SessionCheckPolicy/checks``: the last one needed is
    /// PERMANENT_FAILURE, an earlier one arms the timer before the next check. "Valid", or a check that
    /// failed in any other way, is TEMPORARY_FAILURE with ``TemporaryFailureCode/unconfirmedInvalidSession``.
    ///
    /// - Parameters:
    ///   - result: The answer, or the error of a check that found none.
    ///   - check: The check's id.
    ///   - generator: The random source for the jitter.
    /// - Returns: What to do, or ``Output/ignored`` for a check the machine no longer waits for.
    @inlinable
    public mutating func sessionChecked(
        _ result: Result<SessionCheck, any Error>, check: UInt64, using generator: inout some RandomNumberGenerator
    ) -> Output {
        translated(core.sessionChecked(result, check: check, using: &generator))
    }

    /// The runtime started the connection (or authentication) `generation` the machine asked for, at `now` on
    /// its clock: the machine records when the run of attempts began (``connectingSince``). LOGGING_IN's
    /// attempt starts a new run; any other keeps the run's start, so the time to CONNECTED
    /// (``timeToConnected``) counts the failed attempts and the retries' waits before it.
    ///
    /// - Returns: ``Output/updated(actions:)`` with no action, or ``Output/ignored`` for a generation that is
    ///   not the live one.
    @inlinable
    @discardableResult
    public mutating func connectionStarted(generation: UInt64, at now: Duration) -> Output {
        translated(core.connectionStarted(generation: generation, at: now))
    }

    /// The connection `generation` has loaded its initial data: SOCKET_CONNECTED, if it is the live one. Given
    /// `now` on the runtime's clock, the machine records when CONNECTED began (``connectedAt``), which the
    /// runtime's later reports measure the connection's age from (``connectedFor(at:)``).
    ///
    /// - Returns: The transition, or ``Output/ignored`` for a superseded generation.
    @inlinable
    public mutating func connectionReady(
        generation: UInt64, at now: Duration? = nil, using generator: inout some RandomNumberGenerator
    ) -> Output {
        translated(core.connectionReady(generation: generation, at: now, using: &generator))
    }

    /// How long the live connection has been in CONNECTED at `now`, when the runtime said when it got there
    /// (``connectedAt``); `nil` outside CONNECTED.
    @inlinable
    public func connectedFor(at now: Duration) -> Duration? {
        core.connectedFor(at: now)
    }

    /// The connection `generation`'s run returned. A superseded connection returning is its normal end (it was
    /// closed, or it reported its end first): ``Output/ignored``, and not a stale report. The live one returning
    /// has ended without saying why: a TEMPORARY_FAILURE ``TemporaryFailureCode/socketDropped``, as
    /// ``connectionEnded(_:generation:connectedFor:using:)`` takes it.
    ///
    /// - Parameters:
    ///   - generation: The connection's generation.
    ///   - connectedFor: How long the connection had been in CONNECTED, on the runtime's clock.
    ///   - generator: The random source for the retry jitter.
    /// - Returns: What to do, or ``Output/ignored`` for a connection that is not the live one.
    @inlinable
    public mutating func connectionReturned(
        generation: UInt64, connectedFor: Duration? = nil, using generator: inout some RandomNumberGenerator
    ) -> Output {
        forgetEndedConnection(generation)
        return translated(
            core.connectionReturned(generation: generation, connectedFor: connectedFor, using: &generator))
    }

    /// The onboarding check of attempt `generation` found that the account has no user yet: NO_USER.
    ///
    /// - Returns: The transition, or ``Output/ignored`` for a superseded generation.
    @inlinable
    public mutating func onboardingNeeded(
        generation: UInt64, using generator: inout some RandomNumberGenerator
    ) -> Output {
        translated(core.onboardingNeeded(generation: generation, using: &generator))
    }

    /// The connection `generation` ended: decides what the ending means in the current state, so that
    /// every end of a live connection takes an edge of the table (or starts a confirmation).
    ///
    /// - A temporary end is TEMPORARY_FAILURE.
    /// - `InvalidSession` while connecting (LOGGING_IN, CONNECTING, RECONNECTING) is confirmed first: the
    ///   connection has ended and the session is checked (``SessionAction/checkSession(_:check:)``), the
    ///   state unchanged, until ``sessionChecked(_:check:using:)`` decides. With
    ///   ``SessionCheckPolicy/none`` it is PERMANENT_FAILURE at once, like any other permanent end there.
    /// - CONNECTED has no PERMANENT_FAILURE edge: a permanent end there is the socket dropping
    ///   (TEMPORARY_FAILURE); the reconnect meets the invalid session from RECONNECTING, which has the edge.
    /// - The server's logout is an external LOGOUT; in LOGGING_IN, which has no LOGOUT edge, it is
    ///   PERMANENT_FAILURE with ``PermanentFailureCode/loggedOut``.
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
    @inlinable
    public mutating func connectionEnded(
        _ end: SessionFailure, generation: UInt64, connectedFor: Duration? = nil,
        using generator: inout some RandomNumberGenerator
    ) -> Output {
        forgetEndedConnection(generation)
        return translated(
            core.connectionEnded(end, generation: generation, connectedFor: connectedFor, using: &generator))
    }

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
    @inlinable
    public mutating func deliveryExpected(
        _ key: String, generation: UInt64, using generator: inout some RandomNumberGenerator
    ) -> Output {
        translated(core.deliveryExpected(key, generation: generation, using: &generator))
    }

    /// The socket delivered what ``deliveryExpected(_:generation:using:)`` named `key`: its deadline's timer is
    /// cancelled.
    ///
    /// - Returns: ``Output/updated(actions:)`` with the cancellation, or ``Output/ignored`` when `key` is not the
    ///   delivery awaited (another message, or one whose deadline already passed).
    @inlinable
    public mutating func deliverySeen(_ key: String) -> Output {
        translated(core.deliverySeen(key))
    }

    /// Records the device's network state, and fires the transition it means where the state accepts one:
    /// DEVICE_OFFLINE in DISCONNECTED, DEVICE_ONLINE in OFFLINE.
    ///
    /// A network change elsewhere is only recorded: going offline while CONNECTED is noticed when the
    /// socket fails, and DISCONNECTED then goes straight on to OFFLINE.
    ///
    /// - Returns: The transition; ``Output/updated(actions:)`` with no action when the change was only
    ///   recorded; ``Output/ignored`` when the network did not change.
    @inlinable
    public mutating func networkChanged(
        isOnline: Bool,
        using generator: inout some RandomNumberGenerator
    ) -> Output {
        translated(core.networkChanged(isOnline: isOnline, using: &generator))
    }

    /// Records the account standing a ``SessionAction/fetchAccountStanding(userID:lookup:)`` found: it
    /// tailors ERROR's message, or READY's notice after an external logout or a login refused as
    /// `Disabled`. `nil` means the lookup failed; what it would have tailored stays as it is.
    ///
    /// - Parameters:
    ///   - standing: The standing, or `nil` when the lookup failed.
    ///   - lookup: The lookup's id; an answer to any lookup but the pending one is ignored.
    /// - Returns: ``Output/updated(actions:)`` (with no action) when the presentation changed, else
    ///   ``Output/ignored``.
    @inlinable
    @discardableResult
    public mutating func accountStandingReceived(_ standing: AccountStanding?, lookup: UInt64) -> Output {
        translated(core.accountStandingReceived(standing, lookup: lookup))
    }

    /// The server refused to complete onboarding (``SessionAction`` has none: the interface asked for it):
    /// the machine records it as the ``lastError``, in whatever state the session is now.
    ///
    /// - Parameters:
    ///   - cause: The refusal.
    ///   - message: A message for people; never a token or a password.
    /// - Returns: ``Output/updated(actions:)`` with no action: the last error changed.
    @inlinable
    @discardableResult
    public mutating func onboardingRefused(_ cause: any Error, message: String) -> Output {
        translated(core.onboardingRefused(cause, message: message))
    }

    /// The health service answered poll `poll` (``SessionAction/pollHealth(poll:)``): the machine records its
    /// alert (or its absence) and arms the timer of the next poll, after the service's `pollInterval` (or
    /// ``healthPollInterval``) kept within ``healthPollBounds``.
    ///
    /// - Returns: The timer to arm, or ``Output/ignored`` for a poll the machine no longer waits for (polling
    ///   stopped, or a later poll began). Whether the presentation changed shows in ``outageAlert``.
    @inlinable
    public mutating func healthAnswered(poll: UInt64, alert: OutageAlert?, pollInterval: Duration?) -> Output {
        translated(core.healthAnswered(poll: poll, alert: alert, pollInterval: pollInterval))
    }

    /// Poll `poll` of the health service failed (no answer): the alert shown stays, and the next poll is
    /// armed after ``healthPollInterval``.
    ///
    /// - Returns: The timer to arm, or ``Output/ignored`` for a poll the machine no longer waits for.
    @inlinable
    public mutating func healthPollFailed(poll: UInt64) -> Output {
        translated(core.healthPollFailed(poll: poll))
    }

    /// Records why a login at the login interface failed, for the login screen's notice. Only READY shows
    /// it. A login refused as `Disabled` carries the account's user id: the account's standing is looked
    /// up, and a suspended, banned, deleted or spam account is named as such when the answer comes.
    ///
    /// - Parameters:
    ///   - failure: Why the login failed.
    ///   - userID: The account's user id when the refusal names it (Stoat's `Disabled`), else `nil`.
    /// - Returns: The lookup to perform, or ``Output/ignored`` outside READY.
    @inlinable
    public mutating func loginFailed(_ failure: LoginFailure, userID: String? = nil) -> Output {
        translated(core.loginFailed(failure, userID: userID))
    }

    /// The server named the session's user — the client read it from `Ready` (the user whose relationship is
    /// `User`) — for a session that began without one (a token alone): its credentials carry it from now on, so
    /// that an ending the session meets later (a suspension, a ban) is looked up and named. A session that already
    /// names its user keeps it: the user id it signed in with is the one source of who the user is.
    ///
    /// - Parameter userID: The user the server named.
    /// - Returns: ``Output/updated(actions:)`` with no action when the credentials changed, else
    ///   ``Output/ignored``.
    @inlinable
    @discardableResult
    public mutating func userIdentified(_ userID: String) -> Output {
        translated(core.userIdentified(userID))
    }

    /// The app asked for a significant event (subscribe, begin typing…): played now if connected, recorded
    /// for every reconnect when its kind is recorded (``ReplayPlan/requested(_:playable:)``).
    ///
    /// - Parameters:
    ///   - event: The event.
    ///   - playable: Whether the protocol has a frame for it (an opposite without one only updates the record).
    /// - Returns: ``Output/updated(actions:)`` with the actions, in order (the record changed, if nothing else).
    @inlinable
    public mutating func requested(_ event: SignificantEvent, playable: Bool = true) -> Output {
        translated(core.requested(event, playable: playable))
    }

    /// A play answered: `succeeded`, or it failed. A play the plan no longer waits for (answered after its
    /// timeout or its connection's end) changes nothing: ``Output/ignored``.
    @inlinable
    public mutating func playAnswered(_ id: UInt64, succeeded: Bool) -> Output {
        translated(core.playAnswered(id, succeeded: succeeded))
    }

    /// The play `id` (``ReplayAction/play(_:)``) is awaited (`PlayStart.pending` in the runtime): its
    /// timeout is armed, ``replayTimeout`` from now, and firing fails it. A play answered at once needs none.
    ///
    /// - Returns: The timer to arm, or ``Output/ignored`` for a play the plan does not wait for, or whose
    ///   timeout is armed already.
    @inlinable
    public mutating func playPending(_ id: UInt64) -> Output {
        translated(core.playPending(id))
    }

    /// Plays recorded events of one kind again, at most `limit`, before the server forgets them: only while
    /// CONNECTED (``ReplayPlan/renew(_:limit:)``).
    @inlinable
    public mutating func renew(_ kind: SignificantEvent.Kind, limit: Int) -> Output {
        translated(core.renew(kind, limit: limit))
    }

    /// A timer the machine armed (``SessionAction/armTimer(_:)``) fired: RETRY for DISCONNECTED's retry
    /// timer, the next check of a session being confirmed, the next health poll, TEMPORARY_FAILURE
    /// ``TemporaryFailureCode/deliveryStalled`` for a delivery deadline, TEMPORARY_FAILURE
    /// ``TemporaryFailureCode/wakeCheckFailed`` for the deadline of a check made on waking, a play's timeout or
    /// retry, the renewal of the subscriptions.
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
    @inlinable
    public mutating func timerFired(
        _ id: UInt64, connectedFor: Duration? = nil, using generator: inout some RandomNumberGenerator
    ) -> Output {
        // Fired: its token is spent.
        _ = removeTimer(id)
        return translated(core.timerFired(id, connectedFor: connectedFor, using: &generator))
    }

    /// Handles one event: takes the table's edge, or rejects the event.
    ///
    /// SOCKET_CONNECTED and NO_USER are facts about the live connection: with none live (the session is
    /// being checked after an `InvalidSession`) they are rejected.
    ///
    /// - Parameters:
    ///   - event: The fact that happened.
    ///   - generator: The random source for the retry jitter.
    /// - Returns: The transitions and the actions to perform, or the rejection.
    @inlinable
    public mutating func handle(_ event: SessionEvent, using generator: inout some RandomNumberGenerator) -> Output {
        translated(core.handle(event, using: &generator))
    }

    /// Handles one event, appending the actions to a buffer the caller owns: the allocation-free core of
    /// ``handle(_:using:)``, which `lifeline bench`'s `machine` measures (clear the buffer and reuse it). Its
    /// transitions carry no ``SessionTransition/cause`` and it records no failure as the ``lastError`` (it
    /// clears it on SOCKET_CONNECTED and a login): copying the cause cost `machine` 15 % of its transitions
    /// per second, so ``handle(_:using:)``, the one public form, sets both, in one place.
    ///
    /// - Parameters:
    ///   - event: The fact that happened.
    ///   - generator: The random source for the retry jitter.
    ///   - actions: The buffer the actions are appended to, in the order to perform them.
    /// - Returns: The transitions taken, or `nil` when the state does not accept the event.
    @inlinable
    package mutating func handle(
        _ event: SessionEvent,
        using generator: inout some RandomNumberGenerator,
        appendingTo actions: inout [Action]
    ) -> SessionSteps? {
        var coreActions: [SessionCore.Action] = []
        swap(&coreActions, &scratch)
        defer {
            coreActions.removeAll(keepingCapacity: true)
            swap(&coreActions, &scratch)
        }
        let steps = core.handle(event, using: &generator, appendingTo: &coreActions)
        for action in coreActions { translate(action, into: &actions) }
        return steps
    }

    /// Whether CONNECTED is checking its socket after the device woke (a check pending, its deadline armed).
    @inlinable
    public var isCheckingSocket: Bool { core.isCheckingSocket }

    /// The check of the socket the machine asked for on waking (``SessionAction/checkSocket(generation:check:)``)
    /// finished: `answered` — the peer answered (a `Pong`) — cancels its deadline; otherwise the socket could
    /// not be checked (it is not open, the frame could not be written) and CONNECTED leaves it at once, as the
    /// deadline would: TEMPORARY_FAILURE ``TemporaryFailureCode/wakeCheckFailed``.
    ///
    /// - Parameters:
    ///   - check: The check's id.
    ///   - answered: Whether the peer answered.
    ///   - connectedFor: How long the live connection had been in CONNECTED, on the runtime's clock (the
    ///     stability window applies, as for a delivery deadline).
    ///   - generator: The random source for the retry jitter.
    /// - Returns: What to do, or ``Output/ignored`` for a check that is not pending (superseded, or its
    ///   deadline passed first).
    @inlinable
    public mutating func socketChecked(
        check: UInt64, answered: Bool, connectedFor: Duration? = nil, using generator: inout some RandomNumberGenerator
    ) -> Output {
        translated(core.socketChecked(check: check, answered: answered, connectedFor: connectedFor, using: &generator))
    }
}
