import Synchronization

/// The one runtime shape of the package's engines: the owner's state behind a lock, one stream of commands
/// performed in order, one ``DeadlineTimer`` for every deadline, and child tasks, all run by ``run(fire:perform:ending:)``
/// in one task group of the owner's task, so nothing outlives it.
///
/// Decision: `Session`, `OperationList` and LifelineStoat's deadline and outbox engines run on this one driver
/// rather than each on a lock, a stream and a group of its own, so an engine is its pure book plus what it
/// performs, and every engine starts, times and stops its work the same way.
///
/// Changes never wait: ``withLock(_:)``, ``post(_:)``, ``addChild(_:)`` and the timer's changes
/// (``schedule(_:at:)`` …) take a lock or yield to the stream, from an actor, a socket's event loop or any task.
/// The timer's loop runs as a child only while something is scheduled: an idle engine holds no task for it.
/// What is posted or added before ``run(fire:perform:ending:)`` starts waits for it; after it ends, nothing runs.
package final class EngineDriver<State, Command: Sendable, Timed: Identifiable & Sendable>: Sendable
where Timed.ID: Sendable {
    /// What the run loop does next, in the order the owner asked.
    private enum Step: Sendable {
        case command(Command)
        case child(@Sendable () async -> Void)
        case runTimer
    }

    private let state: Mutex<State>
    private let clock: SessionClock
    private let steps: AsyncStream<Step>
    private let continuation: AsyncStream<Step>.Continuation
    /// Every deadline of the owner, one entry each, in one sleep.
    package let timer: DeadlineTimer<Timed>

    /// Creates a driver holding `state`, whose timer sleeps on `clock`.
    package init(_ state: sending State, clock: SessionClock) {
        self.state = Mutex(state)
        self.clock = clock
        timer = DeadlineTimer(clock: clock)
        (steps, continuation) = AsyncStream.makeStream(of: Step.self)
    }

    /// The time on the driver's clock, which the timer's deadlines are stated on.
    package var now: Duration { clock.elapsed() }

    // MARK: - The state

    /// Runs `body` on the state under the lock.
    package func withLock<Result>(_ body: (inout sending State) -> sending Result) -> sending Result {
        state.withLock(body)
    }

    // MARK: - Work

    /// Posts a command for the run loop, which performs it after every command and child posted before it.
    package func post(_ command: Command) {
        continuation.yield(.command(command))
    }

    /// Runs `work` as a child task of the run loop's group, after every command and child posted before it.
    package func addChild(_ work: @escaping @Sendable () async -> Void) {
        continuation.yield(.child(work))
    }

    // MARK: - The timer

    /// Schedules `element` at `deadline` (or moves it there), starting the timer's loop when none runs.
    package func schedule(_ element: Timed, at deadline: Duration) {
        if timer.schedule(element, at: deadline) { continuation.yield(.runTimer) }
    }

    /// Schedules each of `elements`, waking the timer at most once.
    package func schedule(contentsOf elements: some Sequence<(Timed, Duration)>) {
        if timer.schedule(contentsOf: elements) { continuation.yield(.runTimer) }
    }

    /// Schedules exactly `elements` from now on, forgetting every other deadline.
    package func replaceAll(with elements: some Sequence<(Timed, Duration)>) {
        if timer.replaceAll(with: elements) { continuation.yield(.runTimer) }
    }

    /// Forgets the deadline of `id`.
    ///
    /// - Returns: The element, when it was scheduled.
    @discardableResult
    package func cancel(_ id: Timed.ID) -> Timed? {
        timer.cancel(id)
    }

    // MARK: - Running

    /// Performs the commands and runs the children and the timer's loop in one task group, until the calling
    /// task is cancelled; then calls `ending` (children may still be ending), waits for the children, and
    /// forgets every deadline. Call it once, from the owner's `run()`; it runs on the caller's isolation.
    ///
    /// - Parameters:
    ///   - fire: Called with the timer's elements that came due, earliest first; the timer waits for it.
    ///   - perform: Performs one command, in order; what it returns runs as a child task.
    ///   - ending: Called once the stream ends, before the children have ended.
    nonisolated(nonsending) package func run(
        fire: @escaping @Sendable ([Timed]) async -> Void,
        perform: (Command) async -> (@Sendable () async -> Void)?,
        ending: () -> Void = {}
    ) async {
        await withDiscardingTaskGroup { group in
            // The stream ends when this task is cancelled; cancelling it cancels every child too.
            for await step in steps {
                switch step {
                case .command(let command):
                    if let child = await perform(command) { group.addTask { await child() } }
                case .child(let work):
                    group.addTask { await work() }
                case .runTimer:
                    group.addTask { [timer] in await timer.run(endingWhenIdle: true, fire) }
                }
            }
            ending()
            continuation.finish()
        }
        timer.cancelAll()
    }
}

extension EngineDriver where Command == Never {
    /// Runs the children and the timer's loop (an owner without commands), as
    /// ``run(fire:perform:ending:)`` does.
    ///
    /// - Parameters:
    ///   - fire: Called with the timer's elements that came due, earliest first; the timer waits for it.
    ///   - ending: Called once the stream ends, before the children have ended.
    nonisolated(nonsending) package func run(
        fire: @escaping @Sendable ([Timed]) async -> Void, ending: () -> Void = {}
    ) async {
        await run(fire: fire, perform: Self.nothing, ending: ending)
    }

    /// The commands of an owner without commands: there are none.
    private static func nothing(_ command: Never) -> (@Sendable () async -> Void)? {}
}
