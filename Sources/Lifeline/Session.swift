public import CoreMetrics
public import LifelineCore
public import Logging
import Synchronization

/// One chat session kept alive: the runtime that owns a ``SessionMachine``, performs every action it
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
/// session through minutes of retries without waiting. At most one connection exists at a time; events
/// from a superseded connection, timer or lookup are dropped before they reach the machine.
public actor Session {
    /// Tunables of the lifecycle that are not dependencies.
    public struct Configuration: Sendable {
        /// The retry delay policy for DISCONNECTED.
        public var retryPolicy: RetryPolicy
        /// The failure count at which the health service is polled (DESIGN decision 11).
        public var healthThreshold: Int
        /// How often to poll the health service when it does not say.
        public var healthPollInterval: Duration
        /// The bounds any poll interval is kept within, whatever the service asks for.
        public var healthPollBounds: ClosedRange<Duration>
        /// Whether significant events replay one at a time (the default) or all at once.
        public var replayMode: ReplayPlan.Mode
        /// How many attempts a significant event gets before its failure is shown.
        public var replayRetryLimit: Int
        /// How long one play of a significant event may take before it counts as failed.
        public var replayTimeout: Duration
        /// How often recorded subscriptions are played again while connected, or `nil` for never.
        /// Stoat's subscriptions expire after 15 minutes; `StoatClient` renews them every 10.
        public var subscriptionRenewal: Duration?

        /// Creates a configuration; the defaults are the specification's.
        public init(
            retryPolicy: RetryPolicy = .spec,
            healthThreshold: Int = 3,
            healthPollInterval: Duration = .seconds(60),
            healthPollBounds: ClosedRange<Duration> = .seconds(10)...(.seconds(900)),
            replayMode: ReplayPlan.Mode = .sequential,
            replayRetryLimit: Int = 3,
            replayTimeout: Duration = .seconds(10),
            subscriptionRenewal: Duration? = nil
        ) {
            self.retryPolicy = retryPolicy
            self.healthThreshold = healthThreshold
            self.healthPollInterval = healthPollInterval
            self.healthPollBounds = healthPollBounds
            self.replayMode = replayMode
            self.replayRetryLimit = replayRetryLimit
            self.replayTimeout = replayTimeout
            self.subscriptionRenewal = subscriptionRenewal
        }
    }

    private let connections: any ConnectionFactory
    private let authenticator: any Authenticator
    private let health: (any HealthService)?
    private let caches: (any CacheInvalidation)?
    private let network: any NetworkMonitor
    let clock: SessionClock
    private var random: any RandomNumberGenerator & Sendable
    let logger: Logger
    private let metrics: SessionMetrics
    let configuration: Configuration

    var machine: SessionMachine
    var replay: ReplayPlan
    /// The connection object of the live generation, once its task made it: plays go through it.
    var liveConnection: (generation: UInt64, connection: any SessionConnection)?
    /// The timeouts of plays in flight, by play id.
    var playTimeouts: [UInt64: Task<Void, Never>] = [:]
    var renewal: Task<Void, Never>?
    private var actionBuffer: [SessionAction] = []
    private let broadcaster: Broadcaster<SessionSnapshot>
    private var lastError: SessionError?

    /// The work of the current client; every piece is cancelled by DISPOSE.
    private var connection: (generation: UInt64, task: Task<Void, Never>)?
    private var retryTimer: (id: UInt64, deadline: Duration, task: Task<Void, Never>)?
    private var healthPolling: (id: UInt64, task: Task<Void, Never>)?
    private var standingLookup: (id: UInt64, task: Task<Void, Never>)?
    /// Every task the session runs, by id: ``run()`` waits for all of them before it returns.
    private var allTasks: [UInt64: Task<Void, Never>] = [:]
    /// Set when ``run()`` ends: from then on no event is handled and no task is started.
    private var stopping = false
    /// The last connection's task, which the next connection waits for.
    private var previousConnection: Task<Void, Never>?
    private var nextID: UInt64 = 0
    private var pendingCacheInvalidation = false
    private var connectingSince: Duration?
    private let tasks = TaskCounter()
    private let clientTasks = TaskCounter()

    /// Creates a session in READY.
    ///
    /// - Parameters:
    ///   - connections: Opens the connections (for Stoat, `LifelineStoat`'s WebSocket).
    ///   - authenticator: The onboarding check and completion, the account lookup, ending a session.
    ///   - health: The health service polled at high failure counts; `nil` for none.
    ///   - caches: Invalidated on every entry into RECONNECTING and discarded on DISPOSE; `nil` for none.
    ///   - network: The device's network; ``ManualNetworkMonitor`` (always online) by default.
    ///   - clock: The clock for every timer; `ContinuousClock` by default, a test clock in tests.
    ///   - random: The random source for the retry jitter.
    ///   - configuration: The lifecycle's tunables.
    ///   - logger: Where the session logs (at `.info` and below, never a token). Silent by default.
    ///   - metrics: Where the session's metrics go; the global `MetricsSystem.factory` by default.
    public init(
        connections: any ConnectionFactory,
        authenticator: any Authenticator,
        health: (any HealthService)? = nil,
        caches: (any CacheInvalidation)? = nil,
        network: any NetworkMonitor = ManualNetworkMonitor(.online),
        clock: some Clock<Duration> = ContinuousClock(),
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "lifeline.session", factory: { _ in SwiftLogNoOpLogHandler() }),
        metrics: (any MetricsFactory)? = nil
    ) {
        self.connections = connections
        self.authenticator = authenticator
        self.health = health
        self.caches = caches
        self.network = network
        self.clock = SessionClock(clock)
        self.random = random
        self.configuration = configuration
        self.logger = logger
        self.metrics = SessionMetrics(factory: metrics ?? MetricsSystem.factory)
        let machine = SessionMachine(
            retryPolicy: configuration.retryPolicy, healthThreshold: configuration.healthThreshold)
        self.machine = machine
        replay = ReplayPlan(mode: configuration.replayMode, retryLimit: configuration.replayRetryLimit)
        broadcaster = Broadcaster(
            current: SessionSnapshot(state: machine.state, presentation: machine.presentation, failures: 0))
    }

    // MARK: - Observing

    /// Every snapshot, starting with the current one, for any number of observers.
    public nonisolated var states: SessionStates { SessionStates(broadcaster: broadcaster) }

    /// The current snapshot.
    public nonisolated var snapshot: SessionSnapshot {
        guard let current = broadcaster.current else {
            preconditionFailure("the session's broadcaster was made with a current snapshot and never loses it")
        }
        return current
    }

    /// How many tasks the session is running now, of any kind. Zero once ``run()`` has returned.
    public nonisolated var runningTasks: Int { tasks.count }

    /// How many tasks the current client is running: its connection, retry timer, health polling and
    /// account lookup. DISPOSE waits until this is zero before READY, so nothing of a disposed client is
    /// left running when the login form comes back.
    public nonisolated var runningClientTasks: Int { clientTasks.count }

    // MARK: - Running

    /// Runs the session: follows the device's network and keeps every task of the session alive until the
    /// calling task is cancelled, then stops them all and finishes ``states``.
    ///
    /// Call it once, in a task (or hand the session to a service group); the API works only while it runs.
    public func run() async {
        logger.debug("session running")
        for await status in network.statuses() {
            networkChanged(status)
        }
        // The monitor's stream ends when this task is cancelled (or if the monitor gives up).
        await untilCancelled()
        // While this waits, late reports may still arrive (the actor is reentrant); `stopping` makes
        // them change nothing and start nothing, so the loop ends.
        stopping = true
        _ = cancelClientWork()
        while let (id, task) = allTasks.first {
            task.cancel()
            await task.value
            allTasks[id] = nil
        }
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
    /// - Throws: ``SessionError/Code/wrongState`` outside ONBOARDING; ``SessionError/Code/onboardingFailed``
    ///   with the server's refusal as `underlying` (the session stays in ONBOARDING).
    public func submitUsername(_ username: String) async throws {
        guard machine.state == .onboarding, let credentials = machine.credentials else {
            throw SessionError(.wrongState, "A username can only be chosen during onboarding (now \(machine.state.rawValue)).")
        }
        do {
            try await authenticator.completeOnboarding(credentials, username: username)
        } catch {
            let failure = SessionError(.onboardingFailed, "\(error)", underlying: error)
            lastError = failure
            publish(transitions: [])
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

    /// Shows why a login at the login interface failed (READY only): wrong password, blocked, disabled.
    @discardableResult
    public func reportLoginFailure(_ failure: LoginFailure) -> Bool {
        guard machine.loginFailed(failure) else { return false }
        publish(transitions: [])
        return true
    }

    // MARK: - Events

    /// Feeds one event to the machine, performs its actions, and publishes the snapshot.
    @discardableResult
    private func handle(_ event: SessionEvent) -> Bool {
        guard !stopping else { return false }
        actionBuffer.removeAll(keepingCapacity: true)
        let from = machine.state
        guard let steps = machine.handle(event, using: &random, appendingTo: &actionBuffer) else {
            logger.debug(
                "event rejected",
                metadata: ["lifeline.state": "\(from.rawValue)", "lifeline.event": "\(event.kind.rawValue)"])
            metrics.rejected(event.kind, in: from)
            return false
        }
        switch event {
        case .temporaryFailure(let cause):
            lastError = SessionError(.temporary(cause))
            if steps.first.to == .disconnected { metrics.failure(cause) }
        case .permanentFailure(let reason): lastError = SessionError(.permanent(reason))
        case .logout(external: true): lastError = SessionError(.loggedOut)
        case .socketConnected, .loginCached, .loginUncached: lastError = nil
        default: break
        }
        if steps.first.from == .connected {
            renewal?.cancel()
            renewal = nil
            perform(replay.disconnected())
        }
        for transition in steps.transitions {
            metrics.transition(transition)
            logger.info(
                "transition",
                metadata: [
                    "lifeline.from": "\(transition.from.rawValue)", "lifeline.event": "\(transition.event.rawValue)",
                    "lifeline.state": "\(transition.to.rawValue)", "lifeline.failures": "\(transition.failures)",
                ])
        }
        let actions = actionBuffer
        for action in actions { perform(action) }
        publish(transitions: steps.transitions)
        return true
    }

    /// Performs one action of the machine.
    private func perform(_ action: SessionAction) {
        switch action {
        case .authenticate(let credentials, let generation):
            connectingSince = clock.elapsed()
            startConnection(credentials, generation: generation, checkingOnboarding: true)
        case .connect(let credentials, let generation):
            if connectingSince == nil { connectingSince = clock.elapsed() }
            startConnection(credentials, generation: generation, checkingOnboarding: false)
        case .closeConnection(let generation):
            if connection?.generation == generation {
                connection?.task.cancel()
                connection = nil
            }
            if liveConnection?.generation == generation { liveConnection = nil }
        case .invalidateCaches:
            pendingCacheInvalidation = true
        case .armRetryTimer(let delay, _):
            let id = makeID()
            let deadline = clock.elapsed() + delay
            let task = spawn(client: true) { [clock] in
                do { try await clock.sleepUntil(deadline) } catch { return }
                await self.retryTimerFired(id)
            }
            retryTimer = (id, deadline, task)
        case .cancelRetryTimer:
            retryTimer?.task.cancel()
            retryTimer = nil
        case .startHealthPolling:
            startHealthPolling()
        case .stopHealthPolling:
            healthPolling?.task.cancel()
            healthPolling = nil
        case .fetchAccountStanding(let userID):
            let id = makeID()
            let task = spawn(client: true) { [authenticator] in
                let standing = try? await authenticator.accountStanding(userID: userID)
                await self.accountStandingFound(standing, id: id)
            }
            standingLookup = (id, task)
        case .replaySignificantEvents:
            if let since = connectingSince { metrics.connected(after: clock.elapsed() - since) }
            connectingSince = nil
            perform(replay.connected())
            startRenewal()
        case .endSession(let credentials):
            // Not the client's: it outlives DISPOSE, and only the end of run() cancels it.
            spawn { [authenticator, logger] in
                do {
                    try await authenticator.endSession(credentials)
                } catch {
                    logger.info("ending the session on the server failed", metadata: ["lifeline.error": "\(type(of: error))"])
                }
            }
        case .dispose:
            perform(replay.reset())
            let running = cancelClientWork()
            pendingCacheInvalidation = false
            connectingSince = nil
            spawn { [caches] in
                for task in running { await task.value }
                await caches?.discardCaches()
                await self.disposed()
            }
        }
    }

    // MARK: - Connections

    private func startConnection(_ credentials: SessionCredentials, generation: UInt64, checkingOnboarding: Bool) {
        let invalidate = pendingCacheInvalidation
        pendingCacheInvalidation = false
        let previous = previousConnection
        let task = spawn(client: true) { [connections, authenticator, caches] in
            // The previous connection was cancelled; wait until it has really closed, so that two
            // connections never overlap, not even for the moment a socket takes to close.
            await previous?.value
            if invalidate { await caches?.invalidateCaches() }
            if checkingOnboarding {
                do {
                    if try await authenticator.needsOnboarding(credentials) {
                        await self.onboardingNeeded(generation: generation)
                        return
                    }
                } catch let end as ConnectionEnd {
                    await self.connectionReported(.ended(end), generation: generation)
                    return
                } catch {
                    let cause = TemporaryFailureCause(.requestFailed, detail: "onboarding check: \(type(of: error))")
                    await self.connectionReported(.ended(.temporary(cause)), generation: generation)
                    return
                }
            }
            guard !Task.isCancelled else { return }
            let connection = connections.makeConnection(for: credentials, generation: generation)
            await self.connectionMade(connection, generation: generation)
            await connection.run { event in await self.connectionReported(event, generation: generation) }
            await self.connectionReturned(generation: generation)
        }
        connection = (generation, task)
        previousConnection = task
    }

    private func connectionReported(_ event: ConnectionEvent, generation: UInt64) {
        guard machine.liveGeneration == generation else {
            // A late report from a superseded connection (DESIGN decision 8).
            logger.debug("stale connection event", metadata: ["lifeline.generation": "\(generation)"])
            metrics.staleEvent()
            return
        }
        switch event {
        case .opened, .authenticated:
            logger.debug("connection milestone", metadata: ["lifeline.generation": "\(generation)", "lifeline.event": "\(event)"])
        case .ready:
            handle(.socketConnected)
        case .ended(let end):
            handle(Self.lifecycleEvent(for: end, in: machine.state))
        }
    }

    /// A connection's `run` returned; if it is still the live one it ended without saying why.
    private func connectionReturned(generation: UInt64) {
        guard machine.liveGeneration == generation else { return }
        handle(Self.lifecycleEvent(for: .temporary(.socketDropped), in: machine.state))
    }

    private func onboardingNeeded(generation: UInt64) {
        guard machine.liveGeneration == generation else {
            metrics.staleEvent()
            return
        }
        handle(.noUser)
    }

    /// The lifecycle event a connection's end means in `state`, so that every end of a live connection
    /// takes an edge of the table:
    /// - CONNECTED has no PERMANENT_FAILURE edge: the session's end is reported as the socket dropping, and
    ///   the reconnect's authentication meets the invalid session (from RECONNECTING, which has the edge);
    /// - LOGGING_IN has no LOGOUT edge: a session deleted while it was being authenticated is invalid.
    package static func lifecycleEvent(for end: ConnectionEnd, in state: SessionState) -> SessionEvent {
        switch (end, state) {
        case (.temporary(let cause), _):
            .temporaryFailure(cause)
        case (.permanent(let reason), .connected):
            .temporaryFailure(TemporaryFailureCause(.socketDropped, detail: reason.description))
        case (.permanent(let reason), _):
            .permanentFailure(reason)
        case (.loggedOut, .loggingIn):
            .permanentFailure(PermanentFailureReason(.invalidSession, detail: "logged out"))
        case (.loggedOut, _):
            .logout(external: true)
        }
    }

    // MARK: - Timers and lookups

    private func retryTimerFired(_ id: UInt64) {
        guard retryTimer?.id == id else {
            // The timer was cancelled after it had already fired.
            metrics.staleEvent()
            return
        }
        retryTimer = nil
        metrics.retryFired()
        handle(.retry)
    }

    private func startHealthPolling() {
        guard let health else { return }
        let id = makeID()
        let configuration = configuration
        let task = spawn(client: true) { [clock] in
            while !Task.isCancelled {
                let status = try? await health.status()
                guard let interval = await self.healthAnswered(status, id: id) else { return }
                let bounded = min(max(interval, configuration.healthPollBounds.lowerBound), configuration.healthPollBounds.upperBound)
                do { try await clock.sleepUntil(clock.elapsed() + bounded) } catch { return }
            }
        }
        healthPolling = (id, task)
    }

    /// Records a health answer; returns the poll interval to wait, or `nil` when polling stopped.
    private func healthAnswered(_ status: HealthStatus?, id: UInt64) -> Duration? {
        guard healthPolling?.id == id else { return nil }
        if let status, machine.healthAlertReceived(status.alert) { publish(transitions: []) }
        return status?.pollInterval ?? configuration.healthPollInterval
    }

    private func accountStandingFound(_ standing: AccountStanding?, id: UInt64) {
        guard standingLookup?.id == id else { return }
        standingLookup = nil
        if machine.accountStandingReceived(standing) { publish(transitions: []) }
    }

    private func disposed() {
        handle(.ready)
    }

    private func networkChanged(_ status: NetworkStatus) {
        guard status.isOnline != machine.isDeviceOnline else { return }
        logger.info("network changed", metadata: ["lifeline.network": "\(status.rawValue)"])
        if machine.state == .disconnected && !status.isOnline || machine.state == .offline && status.isOnline {
            handle(status.isOnline ? .deviceOnline : .deviceOffline)
        } else {
            _ = machine.networkChanged(isOnline: status.isOnline, using: &random)
            publish(transitions: [])
        }
    }

    // MARK: - Bookkeeping

    /// Cancels everything the current client runs and returns the tasks, to be awaited.
    private func cancelClientWork() -> [Task<Void, Never>] {
        let running = [previousConnection, retryTimer?.task, healthPolling?.task, standingLookup?.task, renewal]
            .compactMap { $0 } + playTimeouts.values
        for task in running { task.cancel() }
        playTimeouts = [:]
        renewal = nil
        liveConnection = nil
        previousConnection = nil
        connection = nil
        retryTimer = nil
        healthPolling = nil
        standingLookup = nil
        return running
    }

    func publish(transitions: [SessionTransition]) {
        broadcaster.publish(
            SessionSnapshot(
                state: machine.state, presentation: machine.presentation, failures: machine.failures,
                nextRetry: retryTimer?.deadline, network: machine.isDeviceOnline ? .online : .offline,
                significantEvents: replay.record, replayFailures: replay.failures,
                lastError: lastError, transitions: transitions,
                time: clock.elapsed()))
    }

    func makeID() -> UInt64 {
        nextID &+= 1
        return nextID
    }

    /// Starts a task that is registered and counted while it runs (as the client's when `client` is true).
    @discardableResult
    func spawn(client: Bool = false, _ body: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        // Tasks start only from actions, and `handle` performs none once the session is stopping.
        precondition(!stopping, "a task was started after run() ended, in \(machine.state)")
        let id = makeID()
        let counters = client ? [tasks, clientTasks] : [tasks]
        for counter in counters { counter.started() }
        let task = Task {
            defer { for counter in counters { counter.ended() } }
            await body()
            self.forget(id)
        }
        allTasks[id] = task
        return task
    }

    private func forget(_ id: UInt64) {
        allTasks[id] = nil
    }
}

/// Counts the session's running tasks.
final class TaskCounter: Sendable {
    private let value = Atomic<Int>(0)

    var count: Int { value.load(ordering: .acquiring) }
    func started() { value.add(1, ordering: .relaxed) }
    func ended() { value.subtract(1, ordering: .releasing) }
}
