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
/// Everything the session does runs inside ``run()``, on the package's one engine driver: each connection,
/// check, lookup, health poll and play is a child of its task group, and every timer of the machine an entry
/// in its deadline timer, not a task (the waits between health polls are in a second one, whose loop is the
/// polling's work). Nothing outlives `run()`, and nothing is tracked by a `Task` handle: work that may be
/// stopped early is raced against its cancellation, and a connection is stopped by its own
/// ``SessionConnection/close()``. The machine holds the token of every timer armed and of the live connection,
/// and decides what a late report means; the session keeps no table of either. See <doc:HowLifelineIsBuilt>.
public actor Session {
    private let connections: any ConnectionFactory
    let authenticator: any Authenticator
    private let health: (any HealthService)?
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
    /// The work not yet ended, each a child of the driver's group; every timer but the health polls'.
    private let driver: EngineDriver<[UInt64: SessionWork], Never, SessionTimer>
    /// The waits between health polls, whose loop is the polling's work (client work, apart from the retry's).
    nonisolated let healthTimer: DeadlineTimer<SessionTimer>
    private let broadcaster: Broadcaster<SessionSnapshot>
    private var started = false
    /// Set when ``run()`` ends: from then on the funnel changes nothing and starts nothing.
    private(set) var stopping = false
    /// The work's ids. Keying the work by its identity instead would drop this property; on one build that layout
    /// crashed `AccountsModelTests` every run (SIGSEGV in `Broadcaster.add()`), on another it never did. Not
    /// explained yet: change `Session`'s stored properties with the whole suite run more than once.
    private var nextID: UInt64 = 0
    private var pendingCacheInvalidation = false
    /// The plays the connection answered at once, handed to the plan together.
    var playBatch = PlayBatch()

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
        self.connections = connections
        self.authenticator = authenticator
        self.health = health
        self.hooks = hooks
        self.network = network ?? SystemNetworkMonitor.make(logger: logger)
        self.clock = SessionClock(clock)
        self.random = random
        self.configuration = configuration
        self.logger = logger
        self.metrics = SessionMetrics(factory: metrics ?? MetricsSystem.factory, logger: logger)
        let machine = Machine(configuration, pollsHealth: health != nil)
        self.machine = machine
        broadcaster = Broadcaster(current: SessionSnapshot(machine), buffering: .coalescing(SessionSnapshot.merging))
        driver = EngineDriver([:], clock: self.clock)
        healthTimer = DeadlineTimer(clock: self.clock)
    }

    // MARK: - Observing

    /// The snapshots, starting with the current one, for any number of observers (see ``SessionStates``
    /// for how an observer that falls behind is served).
    public nonisolated var states: SessionStates { SessionStates(broadcaster: broadcaster) }

    /// The current snapshot.
    public nonisolated var snapshot: SessionSnapshot {
        guard let current = broadcaster.current else {
            preconditionFailure("the session's broadcaster was made with a current snapshot and never loses it")
        }
        return current
    }

    /// How many pieces of work the session is running now (connections, checks, lookups, polling, plays),
    /// besides following the network and its deadline timer's loop (its timers are entries in that timer,
    /// not work). Zero once ``run()`` has returned.
    public nonisolated var runningTasks: Int { driver.withLock { $0.count } }

    /// How many pieces of work the current client is running: its connection, checks, health
    /// polling and plays. DISPOSE waits until this is zero before READY, so nothing of a disposed client is
    /// left running when the login form comes back.
    public nonisolated var runningClientTasks: Int { driver.withLock { $0.values.count(where: \.isClientWork) } }

    /// Every timer the machine armed, in the driver's timer.
    nonisolated var deadlines: DeadlineTimer<SessionTimer> { driver.timer }

    // MARK: - Running

    /// Runs the session: follows the device's network and runs every piece of the session's work, in one
    /// task group, until the calling task is cancelled; then ends them all and finishes ``states``.
    ///
    /// Call it once, in a task (or hand the session to a service group); the API works only while it runs
    /// (what is asked before it starts waits for it).
    public func run() async {
        precondition(!started, "Session.run() was called twice")
        started = true
        logger.debug("session running")
        driver.addChild { [network] in
            for await status in network.statuses() { await self.networkChanged(status) }
        }
        if let wakes = configuration.wakeMonitor?.wakes() {
            driver.addChild {
                for await wake in wakes { await self.deviceWoke(wake) }
            }
        }
        // Late reports may arrive while the children end (the actor is reentrant): `stopping` ignores them.
        await driver.run(fire: { due in await self.deadlinesPassed(due) }, ending: { stopping = true })
        // Work submitted but never started holds nothing; forget it.
        driver.withLock { $0.removeAll() }
        healthTimer.cancelAll()
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
            try await authenticator.completeOnboarding(credentials, username: username)
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
    public func deviceWoke() -> Bool { deviceWoke(DeviceWake()) }

    @discardableResult
    private func deviceWoke(_ wake: DeviceWake) -> Bool {
        logger.info("device woke", metadata: wake.logMetadata(in: machine.state))
        return modify { $0.handle(.deviceWoke, using: &$1) }
    }

    // MARK: - Deliveries the socket owes

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
        guard !stopping else { return false }
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

    /// ``modify(quiet:stale:_:)`` for a report that says how long the live connection has been CONNECTED.
    @discardableResult
    func modify(
        quiet: Bool = false, stale: Bool = false,
        aged change: (inout Machine, Duration?, inout any RandomNumberGenerator & Sendable) -> Machine.Output
    ) -> Bool {
        let age = machine.connectedFor(at: clock.elapsed())
        return modify(quiet: quiet, stale: stale) { change(&$0, age, &$1) }
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
            machine.timerArmed(timer.id, token: arm(timer))?.cancel()
        case .cancelTimer(let token):
            token.cancel()
        case .checkSession(let credentials, let check):
            submit(racing: true, client: true) { [authenticator] _ in
                let result = await Result { try await authenticator.checkSession(credentials) }
                await self.modify(stale: true) { $0.sessionChecked(result, check: check, using: &$1) }
            }
        case .startHealthPolling, .stopHealthPolling:
            break  // the polls and the timers between them are the machine's own actions
        case .pollHealth(let poll):
            submit(racing: true, client: true) { [health] _ in
                let status = try? await health?.status()
                await self.healthAnswered(status, poll: poll)
            }
        case .fetchAccountStanding(let userID, let lookup):
            // ERROR's lookup belongs to the client; the login screen's outlives DISPOSE, which it tailors.
            submit(racing: true, client: machine.state == .error) { [authenticator] _ in
                let standing = try? await authenticator.accountStanding(userID: userID)
                await self.modify { machine, _ in machine.accountStandingReceived(standing, lookup: lookup) }
            }
        case .replaySignificantEvents(let generation):
            // The plays follow as `.replay` actions of the same transition.
            if let time = machine.timeToConnected { metrics.connected(after: time) }
            hooks?.connected(generation: generation)
        case .endSession(let credentials):
            // Not the client's: it outlives DISPOSE, and only the end of run() cancels it.
            submit(racing: false, client: false) { [authenticator, logger] _ in
                do {
                    try await authenticator.endSession(credentials)
                } catch {
                    logger.info(
                        "ending the session on the server failed", metadata: ["lifeline.error": "\(type(of: error))"])
                }
            }
        case .dispose:
            dispose()
        case .replay(let action):
            perform(action)
        case .checkSocket(_, let check):
            // The machine arms the check's deadline; an answer after it is ignored, and is not stale.
            let connection = machine.liveConnection?.attachment
            submit(racing: true, client: true) { _ in
                let answered = await connection?.startSocketCheck().succeeded() ?? false
                await self.modify(aged: {
                    $0.socketChecked(check: check, answered: answered, connectedFor: $1, using: &$2)
                })
            }
        }
    }

    // MARK: - Work

    /// Runs `body` as a child of the driver's group, registered until it ends (``runningTasks`` unless not
    /// `counted`): raced against its cancellation when `racing`, or left to end by itself (a connection closes).
    @discardableResult
    func submit(
        racing: Bool, client: Bool, counted: Bool = true, connection: Bool = false,
        _ body: @escaping @Sendable (SessionWork) async -> Void
    ) -> SessionWork {
        let work = SessionWork(client: client, connection: connection)
        nextID &+= 1
        let id = nextID
        if counted { driver.withLock { $0[id] = work } }
        driver.addChild { [driver] in
            if racing { _ = await work.race { await body(work) } } else { await body(work) }
            // Unregistered before the end is announced, so whoever waits for it sees it gone.
            if counted { driver.withLock { _ = $0.removeValue(forKey: id) } }
            work.finish()
        }
        return work
    }

    /// Arms one of the machine's timers (a health poll's in the health timer) and returns its token.
    private func arm(_ timer: SessionTimer) -> DeadlineTimer<SessionTimer>.Token {
        let deadline = clock.elapsed() + timer.delay
        guard timer.purpose == .healthPoll else {
            driver.schedule(timer, at: deadline)
            return deadlines.token(for: timer.id)
        }
        if healthTimer.schedule(timer, at: deadline) {
            submit(racing: true, client: true) { [healthTimer] _ in
                await healthTimer.run(endingWhenIdle: true) { due in await self.deadlinesPassed(due) }
            }
        }
        return healthTimer.token(for: timer.id)
    }

    /// DISPOSE: every timer and piece of work of the client is stopped; once they have ended, READY.
    private func dispose() {
        deadlines.cancelAll()
        healthTimer.cancelAll()
        let running = driver.withLock { $0.values.filter(\.isClientWork) }
        for work in running { work.cancel() }
        pendingCacheInvalidation = false
        // The plan starts its ids again: an answer kept for it must not reach the next client's plays.
        playBatch.removeAll()
        submit(racing: false, client: false) { [hooks, deadlines] _ in
            for work in running { await work.ended() }
            // No sleep of the disposed client is left on the clock when the login form comes back.
            await deadlines.untilIdle()
            await hooks?.discardCaches()
            await self.handle(.ready)
        }
    }

    // MARK: - Connections

    private func startConnection(_ credentials: SessionCredentials, generation: UInt64, checkingOnboarding: Bool) {
        _ = machine.connectionStarted(generation: generation, at: clock.elapsed())
        let invalidate = pendingCacheInvalidation
        pendingCacheInvalidation = false
        let previous = driver.withLock { $0.values.filter(\.isConnection) }
        let attempt = ConnectionAttempt(
            connections: connections, authenticator: authenticator, hooks: hooks)
        let work = submit(racing: false, client: true, connection: true) { work in
            await attempt.run(
                credentials, generation: generation, checkingOnboarding: checkingOnboarding,
                invalidatingCaches: invalidate, after: previous, work: work
            ) { await self.attemptReported($0, generation: generation) }
        }
        // The machine holds the connection's token, and gives it back to close it.
        machine.connectionMade(work, generation: generation)?.cancel()
    }

    /// Hands a report of the attempt of `generation` to the machine: a superseded one's is stale but its end.
    /// Logged first, superseded generations too, so a log ties each transition to its connection (`lifeline
    /// soak`'s audit reads it).
    private func attemptReported(_ report: ConnectionAttempt.Report, generation: UInt64) {
        switch report {
        case .event(let event):
            logger.debug("connection report", metadata: event.logMetadata(generation: generation))
        case .returned:
            logger.debug("connection returned", metadata: ["lifeline.generation": "\(generation)"])
        case .onboardingNeeded:
            break
        }
        switch report {
        case .onboardingNeeded:
            modify(stale: true) { $0.onboardingNeeded(generation: generation, using: &$1) }
        case .event(.opened), .event(.authenticated):
            break
        case .event(.ready):
            let now = clock.elapsed()
            modify(stale: true) { $0.connectionReady(generation: generation, at: now, using: &$1) }
        case .event(.ended(let end)):
            modify(stale: true, aged: { $0.connectionEnded(end, generation: generation, connectedFor: $1, using: &$2) })
        case .returned:
            modify(aged: { $0.connectionReturned(generation: generation, connectedFor: $1, using: &$2) })
        }
    }

    // MARK: - Deadlines and answers

    /// The timers that came due, each reported to the machine, which ignores one it no longer waits for.
    private func deadlinesPassed(_ due: [SessionTimer]) {
        for timer in due {
            let fired = modify(
                quiet: timer.purpose.isQuiet, stale: true,
                aged: { $0.timerFired(timer.id, connectedFor: $1, using: &$2) })
            if case .retry = timer.purpose, fired { metrics.retryFired() }
        }
    }

    /// Reports a health poll's answer (`nil`: it failed) to the machine, which arms the next poll's timer.
    private func healthAnswered(_ status: HealthStatus?, poll: UInt64) {
        // Published only when the alert the interface shows changed.
        let quiet = status == nil || status?.alert == machine.outageAlert
        modify(quiet: quiet) { machine, _ in
            guard let status else { return machine.healthPollFailed(poll: poll) }
            return machine.healthAnswered(poll: poll, alert: status.alert, pollInterval: status.pollInterval)
        }
    }

    private func networkChanged(_ status: NetworkStatus) {
        // A change is logged before the transition it causes (the soak's audit reads them in order).
        modify { machine, random in
            let output = machine.networkChanged(isOnline: status.isOnline, using: &random)
            if output != .ignored {
                logger.info("network changed", metadata: ["lifeline.network": "\(status.rawValue)"])
            }
            return output
        }
    }

    // MARK: - Bookkeeping

    func publish(transitions: [SessionTransition]) {
        // By the timer's id, not a scan of the deadlines (a play's timeout each). Two statements, not `flatMap`: Swift 6.3.1's optimizer crashes on that form in a release build
        // (CopyPropagation, "Found outside of lifetime use").
        var retry: Duration?
        if let timer = machine.retryTimerID { retry = deadlines.deadline(of: timer) }
        broadcaster.publish(SessionSnapshot(machine, nextRetry: retry, transitions: transitions, time: clock.elapsed()))
    }
}

extension Result where Failure == any Error {
    /// The value `body` returns, or the error it throws.
    fileprivate init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
