import CoreMetrics
import Lifeline
import LifelineCore
import LifelineTesting
import Synchronization

/// The session every runtime test logs in with.
let credentials = SessionCredentials(token: "secret-token", userID: "user-1", sessionID: "session-1")

/// Counts cache invalidations and discards, and records the lifecycle hooks in order.
final class CountingCaches: SessionHooks {
    private let counts = Mutex((invalidations: 0, discards: 0, moments: [String](), entered: [SessionState]()))
    var invalidations: Int { counts.withLock { $0.invalidations } }
    var discards: Int { counts.withLock { $0.discards } }
    /// The hooks called, in order: `connected(N)`, `left`, `ended`.
    var moments: [String] { counts.withLock { $0.moments } }
    /// The states ``entered(_:)`` named, in order.
    var entered: [SessionState] { counts.withLock { $0.entered } }
    func invalidateCaches() async { counts.withLock { $0.invalidations += 1 } }
    func discardCaches() async { counts.withLock { $0.discards += 1 } }
    func connected(generation: UInt64) { counts.withLock { $0.moments.append("connected(\(generation))") } }
    func leftConnected() { counts.withLock { $0.moments.append("left") } }
    func sessionEnded() { counts.withLock { $0.moments.append("ended") } }
    func entered(_ state: SessionState) { counts.withLock { $0.entered.append(state) } }
}

/// A session wired to scripted dependencies and a test clock, running in a task.
final class Harness: Sendable {
    let clock = TestClock()
    let connections = ScriptedConnectionFactory()
    let authenticator = ScriptedAuthenticator()
    let health = ScriptedHealthService()
    let caches = CountingCaches()
    let network = ManualNetworkMonitor(.online)
    let wake = ManualWakeMonitor()
    let session: Session
    let recorder: SnapshotRecorder
    let policy: RetryPolicy
    let seed: UInt64
    private let runner: Task<Void, Never>

    init(
        policy: RetryPolicy = .spec, seed: UInt64 = 9, healthThreshold: Int = 3, polling: Bool = true,
        renewal: Duration? = nil, metrics: (any MetricsFactory)? = nil
    ) {
        self.policy = policy
        self.seed = seed
        session = Session(
            connections: connections, authenticator: authenticator, health: polling ? health : nil, hooks: caches,
            network: network, clock: clock, random: SeededRandomNumberGenerator(seed: seed),
            configuration: Session.Configuration(
                retryPolicy: policy, healthThreshold: healthThreshold, subscriptionRenewal: renewal,
                wakeMonitor: wake),
            metrics: metrics)
        recorder = SnapshotRecorder(session.states)
        let session = session
        runner = Task { await session.run() }
    }

    /// Stops the session and waits until every task of it has ended.
    func stop() async {
        runner.cancel()
        await runner.value
    }

    /// Logs in with the cached session and connects: returns the connection, in CONNECTED.
    func connected() async -> ScriptedConnection {
        await session.logIn(credentials, cached: true)
        let connection = await connections.nextConnection()
        await connection.open()
        await connection.authenticate()
        await connection.ready()
        return connection
    }

    /// Advances the clock to the armed retry and returns the connection the retry opens.
    func retry() async -> ScriptedConnection {
        guard let retry = session.snapshot.nextRetry else {
            preconditionFailure("no retry armed in \(session.snapshot.state)")
        }
        clock.advance(to: TestClock.Instant(offset: retry))
        return await connections.nextConnection()
    }

    /// Lets the session confirm an `InvalidSession` with the standard policy: the scripted checks answer,
    /// and the clock is advanced through the two waits between the three checks.
    func confirmInvalidSession() async {
        for answers in 1..<SessionCheckPolicy.standard.checks {
            let nominal = SessionCheckPolicy.standard.backoff.nominalDelay(failures: answers)
            let now = clock.now
            let wait = await clock.nextSleep { deadline in
                let delay = now.duration(to: deadline)
                return delay >= nominal * 0.79 && delay <= nominal * 1.21
            }
            clock.advance(to: wait)
        }
    }

    /// The current state.
    var state: SessionState { session.snapshot.state }
}
