public import CoreMetrics
public import LifelineCore
public import Logging

/// One chat session kept alive: the runtime that owns a `SessionMachine`, performs every action it
/// returns — connections, timers, lookups — and feeds what happens back in as events.
///
/// Create it with its dependencies, call ``run()`` in a task for as long as the session should live, and
/// drive it from the interface with ``logIn(_:cached:)``, ``submitUsername(_:)``, ``logOut()`` and the
/// rest. Observe it through ``states``.
///
/// ```swift
/// let session = Session(connections: stoat, authenticator: stoat, network: LinuxNetworkMonitor())
/// Task { await session.run() }
/// await session.logIn(cachedCredentials, cached: true)
/// for await snapshot in session.states {
///     render(snapshot.presentation)
/// }
/// ```
///
/// Time comes from the injected `Clock` and randomness from the injected generator, so a test drives a
/// session through minutes of retries without waiting. At most one connection exists at a time; the
/// machine ignores reports from a superseded connection, timer, check or lookup.
///
/// Everything the session does runs inside ``run()``, as children of one task group: nothing outlives it, no
/// timer is a task, and a connection is stopped by its own ``SessionConnection/close()``. The machine holds
/// the token of every timer armed and of the live connection, and decides what a late report means. See
/// <doc:HowLifelineIsBuilt>.
public actor Session {
    /// What makes each connection, from the machine's ask to its end.
    private let attempts: ConnectionAttempt
    /// The requests around the session: checks, polls, lookups, ending it on the server.
    private let requests: SessionRequests
    private let hooks: (any SessionHooks)?
    private let network: any NetworkMonitor
    let clock: SessionClock
    var random: any RandomNumberGenerator & Sendable
    let logger: Logger
    let metrics: SessionMetrics
    let configuration: Configuration

    /// The machine, holding the tokens of the timers the session armed and of the connection it made.
    var machine: Machine
    typealias Machine = SessionMachine<DeadlineTimer<SessionTimer>.Token, SessionWork>
    /// Every piece of work and every timer of the session.
    nonisolated let workload: SessionWorkload
    private let broadcaster: Broadcaster<SessionSnapshot>
    private var pendingCacheInvalidation = false
    /// The replay plan's plays on the live connection.
    let player = ReplayPlayer()

    /// Creates a session in READY.
    ///
    /// - Parameters:
    ///   - connections: Opens the connections (for Stoat, `LifelineStoat`'s WebSocket).
    ///   - authenticator: The onboarding check and completion, the session check, the account lookup,
    ///     ending a session.
    ///   - health: The health service polled at high failure counts; `nil` for none.
    ///   - hooks: Told of the lifecycle: caches invalidated on every entry into RECONNECTING and discarded on
    ///     DISPOSE, CONNECTED entered and left, the session ended; `nil` for none.
    ///   - network: The device's network; `nil` (the default) is the platform's own,
    ///     ``SystemNetworkMonitor/make(logger:)`` logging to `logger`. Pass a ``ManualNetworkMonitor`` for a
    ///     network you drive yourself (tests, or an app that knows better).
    ///   - clock: The clock for every timer; `ContinuousClock` by default, a test clock in tests.
    ///   - random: The random source for the retry jitter.
    ///   - configuration: The lifecycle's tunables.
    ///   - logger: Where the session logs (at `.info` and below, never a token). Silent by default.
    ///   - metrics: Where the session's metrics go; the global `MetricsSystem.factory` by default.
    public init(
        connections: any ConnectionFactory,
        authenticator: any Authenticator,
        health: (any HealthService)? = nil,
        hooks: (any SessionHooks)? = nil,
        network: (any NetworkMonitor)? = nil,
        clock: some Clock<Duration> = ContinuousClock(),
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "lifeline.session", factory: { _ in SwiftLogNoOpLogHandler() }),
        metrics: (any MetricsFactory)? = nil
    ) {
        attempts = ConnectionAttempt(connections: connections, authenticator: authenticator, hooks: hooks)
        requests = SessionRequests(authenticator: authenticator, health: health, logger: logger)
        self.hooks = hooks
        self.network = network ?? SystemNetworkMonitor.make(logger: logger)
        self.clock = SessionClock(clock)
        self.random = random
        self.configuration = configuration
        self.logger = logger
        self.metrics = SessionMetrics(factory: metrics ?? MetricsSystem.factory, logger: logger)
        machine = Machine(configuration, pollsHealth: health != nil)
        broadcaster = Broadcaster(current: SessionSnapshot(machine), buffering: .coalescing(SessionSnapshot.merging))
        workload = SessionWorkload(clock: self.clock)
    }

    // MARK: - Running and observing

    /// The snapshots, starting with the current one, for any number of observers (see ``SessionStates``
    /// for how an observer that falls behind is served).
    public nonisolated var states: SessionStates { SessionStates(broadcaster: broadcaster) }

    /// The current snapshot.
    public nonisolated var snapshot: SessionSnapshot { broadcaster.latest }

    /// How many pieces of work the session is running now (connections, checks, lookups, polling, plays),
    /// besides following the network and its deadline timer's loop (its timers are entries in that timer,
    /// not work). Zero once ``run()`` has returned.
    public nonisolated var runningTasks: Int { workload.count }

    /// How many pieces of work the current client is running: its connection, checks, health
    /// polling and plays. DISPOSE waits until this is zero before READY, so nothing of a disposed client is
    /// left running when the login form comes back.
    public nonisolated var runningClientTasks: Int { workload.clientCount }

    /// Runs the session: follows the device's network and runs every piece of the session's work, in one
    /// task group, until the calling task is cancelled; then ends them all and finishes ``states``.
    ///
    /// Call it once, in a task (or hand the session to a service group); the API works only while it runs
    /// (what is asked before it starts waits for it).
    public func run() async {
        logger.debug("session running")
        workload.addChild { [network] in
            for await status in network.statuses() { await self.reported(.networkChanged(status)) }
        }
        if let wakes = configuration.wakeMonitor?.wakes() {
            workload.addChild { for await wake in wakes { await self.reported(.deviceWoke(wake)) } }
        }
        await workload.run { due in await self.deadlinesPassed(due) }
        broadcaster.finish()
        logger.debug("session stopped")
    }

    // MARK: - The interface's API

    /// Logs in with a session: LOGIN_CACHED (`cached`, connect at once) or LOGIN_UNCACHED (a fresh session
    /// from the login interface: check onboarding, then connect).
    ///
    /// - Returns: Whether the session was in READY and accepted the login.
    @discardableResult
    public func logIn(_ credentials: SessionCredentials, cached: Bool) -> Bool {
        handle(cached ? .loginCached(credentials) : .loginUncached(credentials))
    }

    /// Completes onboarding with a username, then authenticates again (USER_CREATED).
    ///
    /// - Throws: ``SessionErrorCode/wrongState`` outside ONBOARDING; ``SessionErrorCode/onboardingFailed``
    ///   with the server's refusal as its `cause` (the session stays in ONBOARDING).
    public func submitUsername(_ username: String) async throws(SessionError) {
        guard machine.state == .onboarding, let credentials = machine.credentials else {
            throw SessionError(
                code: .wrongState,
                message: "A username can only be chosen during onboarding (now \(machine.state.rawValue)).")
        }
        do {
            try await requests.authenticator.completeOnboarding(credentials, username: username)
        } catch {
            let failure = SessionError(code: .onboardingFailed, message: "\(error)", cause: error)
            modify { machine, _ in machine.onboardingRefused(error, message: failure.message) }
            throw failure
        }
        // The user may have cancelled while the request was in flight; then USER_CREATED is rejected.
        handle(.userCreated)
    }

    /// Cancels onboarding (CANCEL): the client is disposed of and the login form comes back.
    @discardableResult
    public func cancelOnboarding() -> Bool { handle(.cancel) }

    /// Dismisses the permanent error (DISMISS).
    @discardableResult
    public func dismissError() -> Bool { handle(.dismiss) }

    /// Logs out (LOGOUT) from any logged-in state, ending the session on the server too.
    @discardableResult
    public func logOut() -> Bool { handle(.logout(external: false)) }

    /// Reconnects now from DISCONNECTED or OFFLINE (the extension event RECONNECT_NOW).
    @discardableResult
    public func reconnectNow() -> Bool { handle(.reconnectNow) }

    /// The device woke from a suspend (the extension event DEVICE_WOKE): CONNECTED checks its socket at once and
    /// leaves it when it does not answer within `Configuration.wakeCheckTimeout`; DISCONNECTED takes its retry
    /// now; every other state ignores it. What `Configuration.wakeMonitor` reports comes here; an app that
    /// learns of a wake some other way calls it.
    ///
    /// - Returns: Whether the wake changed anything (a check started, or the retry taken).
    @discardableResult
    public func deviceWoke() -> Bool { reported(.deviceWoke(DeviceWake())) }

    /// The connection that is CONNECTED now, by generation, or `nil` in every other state: what a fact about
    /// the live socket (``deliveryExpected(_:generation:)``) is tied to.
    public var connectedGeneration: UInt64? {
        machine.state == .connected ? machine.liveGeneration : nil
    }

    /// The server stored something the socket of connection `generation` must deliver (the user's own
    /// message): the machine arms its delivery deadline, and a socket that does not deliver by then is deaf —
    /// TEMPORARY_FAILURE `deliveryStalled`, then a reconnect. Ignored outside
    /// CONNECTED, for another connection, and while another delivery is awaited (see
    /// `SessionMachine.deliveryExpected(_:generation:using:)`).
    ///
    /// - Parameters:
    ///   - key: What names the delivery (the message's nonce); report it with ``deliverySeen(_:)``.
    ///   - generation: ``connectedGeneration`` when the send started.
    public func deliveryExpected(_ key: String, generation: UInt64) {
        modify(quiet: true) { $0.deliveryExpected(key, generation: generation, using: &$1) }
    }

    /// The socket delivered what ``deliveryExpected(_:generation:)`` named `key`: its deadline is cancelled. A
    /// key not awaited changes nothing, and is not a stale event.
    public func deliverySeen(_ key: String) {
        modify(quiet: true) { machine, _ in machine.deliverySeen(key) }
    }

    /// The server named the session's user (a client reads it from its first `Ready`): a session that began
    /// without a user id carries it from now on, so an ending it meets later is looked up and named (see
    /// `SessionMachine.userIdentified(_:)`). A session that names its user keeps it.
    public func userIdentified(_ userID: String) {
        modify(quiet: true) { machine, _ in machine.userIdentified(userID) }
    }

    /// Shows why a login at the login interface failed (READY only): wrong password, blocked, disabled.
    ///
    /// - Parameters:
    ///   - failure: Why the login failed, as the interface shows it.
    ///   - userID: The account's user id when the refusal names it (Stoat's `Disabled`): the account's
    ///     standing is then looked up, and a suspended, banned or deleted account is named as such.
    /// - Returns: Whether the session was in READY and shows the failure.
    @discardableResult
    public func reportLoginFailure(_ failure: LoginFailure, userID: String? = nil) -> Bool {
        modify { machine, _ in machine.loginFailed(failure, userID: userID) }
    }

    // MARK: - The funnel

    @discardableResult
    private func handle(_ event: SessionEvent) -> Bool {
        modify { $0.handle(event, using: &$1) }
    }

    /// The one place the session changes its machine: runs `change`, performs the actions it returned, in
    /// order, and publishes a snapshot (for an update, unless `quiet`: nothing the interface shows). An
    /// ignored report is counted as stale when `stale`. After ``run()`` ended nothing changes.
    ///
    /// - Returns: Whether the machine acted on it (an accepted event, or an update).
    @discardableResult
    func modify(
        quiet: Bool = false, stale: Bool = false,
        _ change: (inout Machine, inout any RandomNumberGenerator & Sendable) -> Machine.Output
    ) -> Bool {
        // Late reports may arrive while the work ends (the actor is reentrant): they change nothing.
        guard !workload.isStopping else { return false }
        switch change(&machine, &random) {
        case .transitioned(let transitions, let actions):
            hooks?.transitioned(transitions)
            metrics.transitioned(transitions)
            for action in actions { perform(action) }
            publish(transitions: transitions)
        case .updated(let actions):
            for action in actions { perform(action) }
            if !quiet { publish(transitions: []) }
        case .rejected(let kind, let state):
            metrics.rejected(kind, in: state)
            return false
        case .ignored:
            if stale { metrics.staleEvent() }
            return false
        }
        return true
    }

    /// Hands one answer of the session's work to the machine, through the funnel: published unless `quiet`
    /// (by default, as ``SessionReport/isQuiet(in:)`` says).
    @discardableResult
    func reported(_ report: SessionReport, quiet: Bool? = nil) -> Bool {
        report.log(to: logger, in: machine.state)
        let now = clock.elapsed()
        return modify(quiet: quiet ?? report.isQuiet(in: machine), stale: report.countsStale) { [logger] in
            report.apply(to: &$0, at: now, using: &$1, logger: logger)
        }
    }

    /// Performs one action of the machine; a report comes back through the funnel.
    func perform(_ action: Machine.Action) {
        switch action {
        case .authenticate(let credentials, let generation):
            startConnection(credentials, generation: generation, checkingOnboarding: true)
        case .connect(let credentials, let generation):
            startConnection(credentials, generation: generation, checkingOnboarding: false)
        case .closeConnection(let work):
            work.cancel()
        case .invalidateCaches:
            pendingCacheInvalidation = true
        case .armTimer(let timer):
            let deadline = clock.elapsed() + timer.delay
            let token = workload.arm(timer, at: deadline) { due in await self.deadlinesPassed(due) }
            machine.timerArmed(timer.id, token: token)?.cancel()
        case .cancelTimer(let token):
            token.cancel()
        case .checkSession, .pollHealth, .fetchAccountStanding, .checkSocket, .endSession:
            let connection = machine.liveConnection?.attachment
            guard let request = requests.request(for: action, connection: connection, in: machine.state) else { return }
            workload.submit(racing: true, client: request.client) { _ in
                if let report = await request.run() { await self.reported(report) }
            }
        case .startHealthPolling, .stopHealthPolling:
            break  // the polls and the timers between them are the machine's own actions
        case .replaySignificantEvents(let generation):
            // The plays follow as `.replay` actions of the same transition.
            if let time = machine.timeToConnected { metrics.connected(after: time) }
            hooks?.connected(generation: generation)
        case .dispose:
            dispose()
        case .replay(.play(let play)):
            startPlay(play)
        case .replay(let replay):
            // What the plan surfaces is logged and shown; its timers are the machine's (`armTimer`, `cancelTimer`).
            if replay.logSurfaced(to: logger) { publish(transitions: []) }
        }
    }

    /// DISPOSE: every timer and piece of work of the client is stopped; once they have ended, READY.
    private func dispose() {
        pendingCacheInvalidation = false
        player.removeAll()
        workload.stopClient { [hooks] in
            await hooks?.discardCaches()
            await self.handle(.ready)
        }
    }

    private func startConnection(_ credentials: SessionCredentials, generation: UInt64, checkingOnboarding: Bool) {
        _ = machine.connectionStarted(generation: generation, at: clock.elapsed())
        let work = attempts.start(
            credentials, generation: generation, checkingOnboarding: checkingOnboarding,
            invalidatingCaches: pendingCacheInvalidation, in: workload
        ) { await self.reported(.attempt($0, generation: generation)) }
        pendingCacheInvalidation = false
        // The machine holds the connection's token, and gives it back to close it.
        machine.connectionMade(work, generation: generation)?.cancel()
    }

    /// The timers that came due, each reported to the machine, which ignores one it no longer waits for.
    private func deadlinesPassed(_ due: [SessionTimer]) {
        for timer in due {
            let fired = reported(.timerFired(timer))
            if case .retry = timer.purpose, fired { metrics.retryFired() }
        }
    }

    func publish(transitions: [SessionTransition]) {
        let retry = workload.deadline(of: machine.retryTimerID)
        broadcaster.publish(SessionSnapshot(machine, nextRetry: retry, transitions: transitions, time: clock.elapsed()))
    }
}
