// Public imports: the changes are inlinable (see below), and their bodies name `ExpiryQueue` and `Mutex`.
public import LifelineCore
public import Synchronization

/// The one "sleep until the earliest deadline, re-arm when it moves" of the package: an `ExpiryQueue` of
/// deadlines and one loop, ``run(_:)``, that its owner runs as a child of its own task group.
///
/// Changes (``schedule(_:at:)``, ``cancel(_:)``, ``cancelAll()``) take a lock and never wait: they may come
/// from an actor, a socket's event loop or any task. The loop sleeps on the owner's clock until the earliest
/// deadline, in one short child task; when a change moves the earliest deadline (earlier or later) the
/// sleep is cancelled and the loop re-arms for the new one, so a test clock's ``nextSleep``-style handshake
/// always sees the sleep that matters. When the sleep ends, everything due is popped and handed to the
/// loop's handler, earliest first. With nothing scheduled the loop holds no child task and no sleep.
///
/// So an owner's timers cost a heap entry each, not a task: `Session`'s retry, check and delivery timers,
/// its plays' timeouts and retries and its subscription renewal are entries in one such timer. An owner
/// with many idle instances (a bot's sessions) runs the loop only while something is scheduled
/// (``run(endingWhenIdle:_:)`` with `true`): ``schedule(_:at:)`` says when a loop must be started, and an
/// instance with no deadline holds no task for its timer at all.
///
/// The changes and the readings of what is scheduled are inlinable, as `ExpiryQueue` is: a timer of the caller's
/// own element type is specialised in the caller's module, so an `OperationExpirationWatcher` keeps its
/// operations here, one heap under one lock, and adding one costs a hash and a sift, not generic lookups.
@usableFromInline
package final class DeadlineTimer<Element: Identifiable & Sendable>: Sendable where Element.ID: Sendable {
    @usableFromInline
    struct State {
        @usableFromInline var queue = ExpiryQueue<Element>()
        /// The deadline the loop sleeps until now (`nil`: it waits for one).
        @usableFromInline var armed: Duration?
        /// The loop's round: a sleep that ends wakes only the round that armed it.
        var round: UInt64 = 0
        /// Set when the loop must look again: the earliest deadline moved, or its sleep ended.
        @usableFromInline var woken = false
        /// Whether the round's sleep ended (rather than a change waking the loop).
        var sleptOut = false
        @usableFromInline var waiter: CheckedContinuation<Void, Never>?
        /// Tasks waiting until the loop sleeps for nothing (``untilIdle()``).
        var idleWaiters = WaiterSet()
        /// How many times the loop armed a sleep.
        var sleepsArmed = 0
        /// How many sleeps ended with nothing due yet (a clock that woke early): the loop re-armed each for
        /// the same deadline.
        var sleepsFoundNothingDue = 0
        /// Whether a loop runs, or was asked to start (``schedule(_:at:)`` returned `true`).
        @usableFromInline var looping = false
        /// The earliest deadline as the last change or firing left it.
        @usableFromInline var wakeUp: Duration?
        /// How many times a change or a firing moved the earliest deadline to another one.
        @usableFromInline var wakeUpsMoved = 0
    }

    private let clock: SessionClock
    @usableFromInline let state: Mutex<State>

    /// Creates a timer with nothing scheduled, sleeping on `clock`.
    package init(clock: SessionClock) {
        self.clock = clock
        state = Mutex(State())
    }

    // MARK: - Reading

    /// How many deadlines are scheduled.
    @inlinable
    package var count: Int { state.withLock { $0.queue.count } }

    /// The earliest scheduled deadline, or `nil`.
    @inlinable
    package var earliestDeadline: Duration? { state.withLock { $0.queue.earliestDeadline } }

    /// The deadline scheduled for `id`, or `nil`.
    @inlinable
    package func deadline(of id: Element.ID) -> Duration? { state.withLock { $0.queue.deadline(of: id) } }

    /// The first scheduled element (in no particular order) that satisfies `predicate`, with its deadline.
    package func first(where predicate: (Element) -> Bool) -> (element: Element, deadline: Duration)? {
        state.withLock { state in
            state.queue.unordered.first { predicate($0.element) }
        }
    }

    /// How many times the loop has armed a sleep: once per move of the earliest deadline.
    package var sleepsArmed: Int { state.withLock { $0.sleepsArmed } }

    /// How many sleeps ended with nothing due yet, as a clock that wakes early ends them: the loop re-armed
    /// each for the same deadline.
    package var sleepsFoundNothingDue: Int { state.withLock { $0.sleepsFoundNothingDue } }

    /// How many times the earliest deadline moved to another one — through a change, or a firing that left
    /// something scheduled — whether or not a loop ran to sleep for it.
    package var wakeUpsMoved: Int { state.withLock { $0.wakeUpsMoved } }

    // MARK: - Changing what is scheduled

    /// Schedules `element` at `deadline`, or moves it there when one with its id is scheduled.
    ///
    /// - Returns: Whether no loop runs: the owner is to start one (``run(endingWhenIdle:_:)``) in its group.
    @inlinable
    @discardableResult
    package func schedule(_ element: Element, at deadline: Duration) -> Bool {
        let (waiter, start) = state.withLock { state in
            state.queue.insert(element, expiresAt: deadline)
            let start = !state.looping
            state.looping = true
            return (Self.wakeIfMoved(&state), start)
        }
        waiter?.resume()
        return start
    }

    /// Schedules each of `elements` (as ``schedule(_:at:)`` would), waking the loop at most once.
    ///
    /// - Returns: Whether no loop runs: the owner is to start one (``run(endingWhenIdle:_:)``) in its group.
    @inlinable
    @discardableResult
    package func schedule(contentsOf elements: some Sequence<(Element, Duration)>) -> Bool {
        let (waiter, start) = state.withLock { state in
            for (element, deadline) in elements {
                state.queue.insert(element, expiresAt: deadline)
            }
            let start = !state.looping
            state.looping = true
            return (Self.wakeIfMoved(&state), start)
        }
        waiter?.resume()
        return start
    }

    /// Schedules exactly `elements` from now on, forgetting every other deadline; when an id appears more than
    /// once, its last entry counts. O(n), waking the loop at most once.
    ///
    /// - Returns: Whether no loop runs: the owner is to start one (``run(endingWhenIdle:_:)``) in its group.
    @inlinable
    @discardableResult
    package func replaceAll(with elements: some Sequence<(Element, Duration)>) -> Bool {
        let (waiter, start) = state.withLock { state in
            state.queue.replaceAll(with: elements)
            let start = !state.looping
            state.looping = true
            return (Self.wakeIfMoved(&state), start)
        }
        waiter?.resume()
        return start
    }

    /// Forgets the deadline of `id`.
    ///
    /// - Returns: The element, when it was scheduled.
    @inlinable
    @discardableResult
    package func cancel(_ id: Element.ID) -> Element? {
        let (element, waiter) = state.withLock { state in
            let removed = state.queue.remove(id)?.element
            return (removed, removed == nil ? nil : Self.wakeIfMoved(&state))
        }
        waiter?.resume()
        return element
    }

    /// Forgets every deadline.
    @inlinable
    package func cancelAll() {
        let waiter = state.withLock { state in
            state.queue.removeAll()
            return Self.wakeIfMoved(&state)
        }
        waiter?.resume()
    }

    /// Counts a move of the earliest deadline, and wakes the loop when it is no longer the one it sleeps for.
    @inlinable
    static func wakeIfMoved(_ state: inout State) -> CheckedContinuation<Void, Never>? {
        noteEarliest(&state)
        guard state.queue.earliestDeadline != state.armed else { return nil }
        state.woken = true
        defer { state.waiter = nil }
        return state.waiter
    }

    /// Counts a move of the earliest deadline to another one (not to none).
    @inlinable
    static func noteEarliest(_ state: inout State) {
        let earliest = state.queue.earliestDeadline
        guard earliest != state.wakeUp else { return }
        state.wakeUp = earliest
        if earliest != nil { state.wakeUpsMoved += 1 }
    }

    // MARK: - The loop

    /// Sleeps until the earliest deadline, hands what is due to `fire` (earliest first), and again, until
    /// the calling task is cancelled — or, `endingWhenIdle`, until nothing is scheduled. Run it as a child
    /// of the owner's task group: once, or (`endingWhenIdle`) whenever ``schedule(_:at:)`` asks for it.
    ///
    /// - Parameters:
    ///   - endingWhenIdle: Whether the loop returns when nothing is scheduled, rather than waiting.
    ///   - fire: Called with the elements due, no longer scheduled; the loop waits for it before it re-arms.
    package func run(endingWhenIdle: Bool = false, _ fire: @Sendable ([Element]) async -> Void) async {
        state.withLock { $0.looping = true }
        while !Task.isCancelled {
            let (deadline, round, idle, ends) = state.withLock { state in
                state.round &+= 1
                state.woken = false
                state.sleptOut = false
                state.armed = state.queue.earliestDeadline
                if state.armed != nil { state.sleepsArmed += 1 }
                let idle = state.armed == nil ? state.idleWaiters.takeAll() : []
                let ends = endingWhenIdle && state.armed == nil
                if ends { state.looping = false }
                return (state.armed, state.round, idle, ends)
            }
            for waiter in idle { waiter.resume() }
            if ends { return }
            if let deadline {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { [clock] in
                        do { try await clock.sleepUntil(deadline) } catch { return }
                        self.sleepEnded(round: round)
                    }
                    await self.untilWoken()
                    // The sleep is cancelled at once (a test clock drops it before this returns).
                    group.cancelAll()
                }
            } else {
                await untilWoken()
            }
            let due = state.withLock { state in
                let due = state.queue.popDue(at: clock.elapsed())
                Self.noteEarliest(&state)
                if due.isEmpty, state.sleptOut, state.queue.earliestDeadline == deadline {
                    state.sleepsFoundNothingDue += 1
                }
                return due
            }
            if !due.isEmpty { await fire(due) }
        }
        let idle = state.withLock { state in
            state.armed = nil
            state.looping = false
            return state.idleWaiters.takeAll()
        }
        for waiter in idle { waiter.resume() }
    }

    /// Returns once the loop has nothing to sleep for (it has seen every deadline cancelled), at once when it
    /// sleeps for nothing now, or when the waiting task is cancelled: what waits until no sleep of the
    /// owner is left on its clock.
    package func untilIdle() async {
        // Idle: no sleep armed, and none about to be (nothing scheduled, or no loop woken to arm one). A deadline
        // scheduled and cancelled before its loop ever ran leaves `woken` set with nothing to sleep for: that is
        // idle too, whether or not the loop runs.
        await state.wait(on: \.idleWaiters) { $0.armed == nil && ($0.queue.isEmpty || !$0.woken) }
    }

    private func sleepEnded(round: UInt64) {
        let waiter = state.withLock { state in
            guard state.round == round else { return nil as CheckedContinuation<Void, Never>? }
            state.woken = true
            state.sleptOut = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns once the loop was woken since its round began, or when the loop's task is cancelled.
    private func untilWoken() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.woken || Task.isCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }?.resume()
        }
    }
}

extension DeadlineTimer {
    /// The cancellation token of one scheduled element: what its owner keeps to cancel it later without knowing
    /// which timer holds it — `SessionMachine` holds its timers' tokens so, as postgres-nio's pool state machine
    /// holds its `TimerCancellationToken`s.
    package struct Token: Hashable, Sendable {
        /// The element's id.
        package let id: Element.ID
        let timer: DeadlineTimer

        /// Forgets the element's deadline; one that fired or was cancelled already changes nothing.
        package func cancel() { timer.cancel(id) }

        package static func == (lhs: Self, rhs: Self) -> Bool { lhs.id == rhs.id && lhs.timer === rhs.timer }

        package func hash(into hasher: inout Hasher) {
            hasher.combine(id)
            hasher.combine(ObjectIdentifier(timer))
        }
    }

    /// The token that cancels the element `id` (``Token/cancel()``).
    package func token(for id: Element.ID) -> Token { Token(id: id, timer: self) }
}
