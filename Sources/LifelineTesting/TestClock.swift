import Lifeline
import Synchronization

/// A clock for tests that moves only when told, with a handshake: ``nextSleep()`` waits until the code
/// under test has scheduled a sleep and returns its deadline, then ``advance(to:)`` wakes it — no test
/// ever waits on the wall clock or yields and hopes.
///
/// ```swift
/// let deadline = await clock.nextSleep()          // the retry timer was armed
/// #expect(deadline.offset == .seconds(1))
/// clock.advance(to: deadline)                      // it fires
/// ```
public final class TestClock: Clock, Sendable {
    /// An instant of the test clock: an offset from its start.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The time since the clock started.
        public var offset: Duration

        /// Creates an instant at an offset from the clock's start.
        public init(offset: Duration) { self.offset = offset }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }

        /// The duration from this instant to `other`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }

        /// Orders instants by offset.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }

        /// The offset.
        public var description: String { "\(offset)" }
    }

    private struct Sleeper {
        var id: Int
        var deadline: Instant
        var wake: Wake

        /// What reaching the deadline does: resume a sleeping task, or call a scheduled callback.
        enum Wake {
            case continuation(CheckedContinuation<Void, any Error>)
            case callback(@Sendable () -> Void)
        }

        func fire() {
            switch wake {
            case .continuation(let continuation): continuation.resume()
            case .callback(let body): body()
            }
        }
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var cancelledEarly: Set<Int> = []
        var unobserved: [Instant] = []
        var observers: [(id: Int, continuation: CheckedContinuation<Instant, Never>)] = []
        var countWaiters: [(id: Int, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        var nextID = 0

        /// The waiters for a number of pending sleeps that is reached now, removed.
        mutating func settledWaiters() -> [CheckedContinuation<Void, Never>] {
            let settled = countWaiters.filter { $0.count == sleepers.count }
            countWaiters.removeAll { $0.count == sleepers.count }
            return settled.map(\.continuation)
        }
    }

    private let state = Mutex(State())

    /// Creates a clock at offset zero.
    public init() {}

    /// The current instant.
    public var now: Instant { state.withLock { $0.now } }

    /// The smallest step: any.
    public var minimumResolution: Duration { .zero }

    /// How many sleeps are waiting for the clock to reach their deadline.
    public var pendingSleeps: Int { state.withLock { $0.sleepers.count } }

    /// The deadlines of the waiting sleeps, earliest first.
    public var pendingDeadlines: [Instant] { state.withLock { $0.sleepers.map(\.deadline).sorted() } }

    /// Sleeps until the clock is advanced to `deadline`; throws `CancellationError` when cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let observer: CheckedContinuation<Instant, Never>? = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil {
                        continuation.resume(throwing: CancellationError())
                        return nil
                    }
                    if deadline <= state.now {
                        continuation.resume()
                        return nil
                    }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, wake: .continuation(continuation)))
                    for waiter in state.settledWaiters() { waiter.resume() }
                    if state.observers.isEmpty {
                        state.unobserved.append(deadline)
                        return nil
                    }
                    return state.observers.removeFirst().continuation
                }
                observer?.resume(returning: deadline)
            }
        } onCancel: {
            let (sleeper, settled): (Sleeper?, [CheckedContinuation<Void, Never>]) = state.withLock { state in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelledEarly.insert(id)
                    return (nil, [])
                }
                let sleeper = state.sleepers.remove(at: index)
                return (sleeper, state.settledWaiters())
            }
            if case .continuation(let continuation)? = sleeper?.wake {
                continuation.resume(throwing: CancellationError())
            }
            for waiter in settled { waiter.resume() }
        }
    }

    /// Calls `body` when the clock is advanced to `deadline`, without a task sleeping for it: a scheduled
    /// callback counts as a pending sleep for ``nextSleep()``, ``pendingSleeps`` and the other handshakes,
    /// as a sleep would.
    ///
    /// - Returns: The callback's id for ``cancelCallback(_:)``; `nil` when `deadline` has passed, and then
    ///   `body` is not called: the caller is due now.
    public func scheduleCallback(at deadline: Instant, _ body: @escaping @Sendable () -> Void) -> Int? {
        let (id, observer, settled): (Int?, CheckedContinuation<Instant, Never>?, [CheckedContinuation<Void, Never>]) =
            state.withLock {
                state in
                guard deadline > state.now else { return (nil, nil, []) }
                let id = state.nextID
                state.nextID += 1
                state.sleepers.append(Sleeper(id: id, deadline: deadline, wake: .callback(body)))
                let settled = state.settledWaiters()
                if state.observers.isEmpty {
                    state.unobserved.append(deadline)
                    return (id, nil, settled)
                }
                return (id, state.observers.removeFirst().continuation, settled)
            }
        for waiter in settled { waiter.resume() }
        observer?.resume(returning: deadline)
        return id
    }

    /// Forgets a callback ``scheduleCallback(at:_:)`` scheduled, unless it was called already.
    public func cancelCallback(_ id: Int) {
        let settled: [CheckedContinuation<Void, Never>] = state.withLock { state in
            guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return [] }
            state.sleepers.remove(at: index)
            return state.settledWaiters()
        }
        for waiter in settled { waiter.resume() }
    }

    /// Waits until a sleep is scheduled that no earlier call returned, and returns its deadline.
    ///
    /// Sleeps are reported in the order they were scheduled, one per call, including sleeps that were
    /// scheduled before the call (and may since have been cancelled). If the waiting task is cancelled
    /// (a test's time limit), it returns the current instant at once, so a broken test fails rather than
    /// hangs.
    public func nextSleep() async -> Instant {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Instant, Never>) in
                let ready: Instant? = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return state.now }
                    guard !state.unobserved.isEmpty else {
                        state.observers.append((id, continuation))
                        return nil
                    }
                    return state.unobserved.removeFirst()
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiting: (CheckedContinuation<Instant, Never>, Instant)? = state.withLock { state in
                guard let index = state.observers.firstIndex(where: { $0.id == id }) else {
                    state.cancelledEarly.insert(id)
                    return nil
                }
                return (state.observers.remove(at: index).continuation, state.now)
            }
            if let (continuation, now) = waiting { continuation.resume(returning: now) }
        }
    }

    /// Waits until a sleep until `deadline` has been scheduled, consuming the sleeps ``nextSleep()``
    /// reports before it. Code that reschedules its timer after handling a message shows, this way, that
    /// it has handled it.
    /// Returns early when the waiting task is cancelled.
    public func waitForSleep(until deadline: Instant) async {
        while !Task.isCancelled, await nextSleep() != deadline {}
    }

    /// Waits until exactly `count` sleeps are pending — for example until the sleep of a timer that was
    /// cancelled is gone (a cancellation reaches a sleep asynchronously when it is a structured task's).
    /// Returns early when the waiting task is cancelled.
    public func waitForPendingSleeps(_ count: Int) async {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.sleepers.count == count || state.cancelledEarly.remove(id) != nil { return true }
                    state.countWaiters.append((id, count, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
                guard let index = state.countWaiters.firstIndex(where: { $0.id == id }) else {
                    state.cancelledEarly.insert(id)
                    return nil
                }
                return state.countWaiters.remove(at: index).continuation
            }
            waiter?.resume()
        }
    }

    /// Waits until a sleep is scheduled whose deadline satisfies `predicate`, consuming the sleeps
    /// ``nextSleep()`` reports before it, and returns its deadline: for a timer whose deadline is known
    /// only within its jitter. Returns early when the waiting task is cancelled.
    public func nextSleep(where predicate: (Instant) -> Bool) async -> Instant {
        while true {
            let deadline = await nextSleep()
            if predicate(deadline) || Task.isCancelled { return deadline }
        }
    }

    /// Moves the clock forward to `instant` and wakes every sleep due by then, earliest first.
    public func advance(to instant: Instant) {
        let (due, settled): ([Sleeper], [CheckedContinuation<Void, Never>]) = state.withLock { state in
            guard instant > state.now else { return ([], []) }
            state.now = instant
            let due = state.sleepers.filter { $0.deadline <= instant }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= instant }
            return (due, due.isEmpty ? [] : state.settledWaiters())
        }
        for sleeper in due { sleeper.fire() }
        for waiter in settled { waiter.resume() }
    }

    /// Moves the clock forward by `duration`.
    public func advance(by duration: Duration) {
        advance(to: now.advanced(by: duration))
    }
}

extension TestClock: CallbackClock {}
