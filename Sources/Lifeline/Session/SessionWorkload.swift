import LifelineCore

/// Everything a session runs outside its actor: each piece of work a child of one engine driver's task group,
/// registered until it ends, and every timer of the machine — in the driver's deadline timer, but the health
/// polls', which wait in a second timer whose loop is the polling's own work.
///
/// Decision: a part of its own, apart from `Session`, so the runtime decides *what* runs (from the machine's
/// actions) and this part *how* it runs, is counted and is stopped; the session keeps no table of work or
/// timers.
final class SessionWorkload: Sendable {
    /// The work not yet ended, by id, and whether ``run(fire:)`` started and is ending.
    private struct Registry {
        var running: [UInt64: Entry] = [:]
        var lastID: UInt64 = 0
        var started = false
        var stopping = false
    }

    /// A piece of work and what it is to the session.
    private struct Entry {
        let work: SessionWork
        /// Whether the current client owns it: DISPOSE stops it and waits for its end.
        let client: Bool
        /// Whether it runs a connection: the next connection waits for its end.
        let connection: Bool
    }

    private let driver: EngineDriver<Registry, Never, SessionTimer>
    /// The waits between health polls (client work, apart from the machine's other timers).
    private let healthTimer: DeadlineTimer<SessionTimer>

    init(clock: SessionClock) {
        driver = EngineDriver(Registry(), clock: clock)
        healthTimer = DeadlineTimer(clock: clock)
    }

    /// Every timer the machine armed but the health polls'.
    var timer: DeadlineTimer<SessionTimer> { driver.timer }

    /// When the timer `id` (one of the driver's timer, not a health poll's) is due; `nil` for none.
    func deadline(of id: UInt64?) -> Duration? {
        // By the timer's id, not a scan of the deadlines (a play's timeout each). A `guard`, not `flatMap`:
        // Swift 6.3.1's optimizer crashes on that form in a release build (CopyPropagation, "Found outside of
        // lifetime use").
        guard let id else { return nil }
        return driver.timer.deadline(of: id)
    }

    /// How many pieces of counted work are running.
    var count: Int { driver.withLock { $0.running.count } }

    /// How many pieces of the current client's work are running.
    var clientCount: Int { driver.withLock { $0.running.values.count(where: \.client) } }

    /// The connections not yet ended: the next one waits for them.
    var connections: [SessionWork] { driver.withLock { $0.running.values.filter(\.connection).map(\.work) } }

    /// Whether ``run(fire:)`` is ending or has ended: from then on the session changes nothing and starts nothing.
    var isStopping: Bool { driver.withLock { $0.stopping } }

    /// Runs every piece of work and the timer until the calling task is cancelled, then forgets the work
    /// submitted but never started (it holds nothing) and every health timer. Called once.
    nonisolated(nonsending) func run(fire: @escaping @Sendable ([SessionTimer]) async -> Void) async {
        let first = driver.withLock { registry in
            defer { registry.started = true }
            return !registry.started
        }
        precondition(first, "Session.run() was called twice")
        await driver.run(fire: fire, ending: { [driver] in driver.withLock { $0.stopping = true } })
        driver.withLock { $0.running.removeAll() }
        healthTimer.cancelAll()
    }

    /// Runs `body` as a child of the group, for as long as ``run(fire:)`` runs; not counted.
    func addChild(_ body: @escaping @Sendable () async -> Void) {
        driver.addChild(body)
    }

    /// Runs `body` as a child of the group, registered until it ends (in ``count`` unless not `counted`): raced
    /// against its cancellation when `racing`, or left to end by itself (a connection closes).
    @discardableResult
    func submit(
        racing: Bool, client: Bool, counted: Bool = true, connection: Bool = false,
        _ body: @escaping @Sendable (SessionWork) async -> Void
    ) -> SessionWork {
        let work = SessionWork()
        let id = driver.withLock { registry in
            registry.lastID &+= 1
            if counted { registry.running[registry.lastID] = Entry(work: work, client: client, connection: connection) }
            return registry.lastID
        }
        driver.addChild { [driver] in
            if racing { _ = await work.race { await body(work) } } else { await body(work) }
            // Unregistered before the end is announced, so whoever waits for it sees it gone.
            if counted { driver.withLock { _ = $0.running.removeValue(forKey: id) } }
            work.finish()
        }
        return work
    }

    /// Arms one of the machine's timers, due at `deadline`, and returns its token; `fire` is told of the due ones.
    func arm(
        _ timer: SessionTimer, at deadline: Duration, fire: @escaping @Sendable ([SessionTimer]) async -> Void
    ) -> DeadlineTimer<SessionTimer>.Token {
        guard timer.purpose == .healthPoll else {
            driver.schedule(timer, at: deadline)
            return driver.timer.token(for: timer.id)
        }
        if healthTimer.schedule(timer, at: deadline) {
            submit(racing: true, client: true) { [healthTimer] _ in
                await healthTimer.run(endingWhenIdle: true, fire)
            }
        }
        return healthTimer.token(for: timer.id)
    }

    /// Stops every timer and every piece of the client's work (DISPOSE), and runs `then` once they have ended
    /// and no sleep of the disposed client is left on the clock.
    func stopClient(then: @escaping @Sendable () async -> Void) {
        driver.timer.cancelAll()
        healthTimer.cancelAll()
        let running = driver.withLock { $0.running.values.filter(\.client).map(\.work) }
        for work in running { work.cancel() }
        submit(racing: false, client: false) { [timer = driver.timer] _ in
            for work in running { await work.ended() }
            await timer.untilIdle()
            await then()
        }
    }
}
