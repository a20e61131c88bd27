package import Synchronization

/// Tasks waiting until a condition on their owner's locked state becomes true: the one shape of `Work`'s
/// waits for its cancellation and end, `DeadlineTimer`'s wait until its loop is idle, and a scripted
/// connection's wait until it has finished.
///
/// The set lives in the owner's `Mutex`-guarded state, so the condition is checked and a waiter added under
/// the same lock as the change that makes the condition true: `Mutex.wait(on:until:)` adds a
/// waiter only while the condition is false, and the owner, having made it true, takes the waiters out
/// (``takeAll()``) in that lock and resumes them after it, in the order they began to wait. A waiting task
/// that is cancelled is removed and resumed at once.
package struct WaiterSet: Sendable {
    private var waiters: [(id: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    private var nextID: UInt64 = 0

    /// An empty set.
    package init() {}

    /// How many tasks wait.
    package var count: Int { waiters.count }

    /// Whether no task waits.
    package var isEmpty: Bool { waiters.isEmpty }

    /// Removes every waiter, to be resumed (after the owner's lock is released) in the order they began.
    package mutating func takeAll() -> [CheckedContinuation<Void, Never>] {
        defer { waiters.removeAll() }
        return waiters.map(\.continuation)
    }

    /// A new waiter's identity, taken before it waits so that its cancellation can find it.
    fileprivate mutating func reserveID() -> UInt64 {
        defer { nextID &+= 1 }
        return nextID
    }

    fileprivate mutating func add(_ continuation: CheckedContinuation<Void, Never>, id: UInt64) {
        waiters.append((id, continuation))
    }

    /// Removes the waiter `id` (a cancelled one), when it still waits.
    fileprivate mutating func remove(_ id: UInt64) -> CheckedContinuation<Void, Never>? {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
        return waiters.remove(at: index).continuation
    }
}

extension Mutex {
    /// Returns once `isDone` holds for the guarded value, or when the waiting task is cancelled: at once when
    /// either is so already, otherwise when the owner takes and resumes the set at `waiters` (``WaiterSet/takeAll()``),
    /// or, cancelled, at once (the waiter is removed from the set).
    ///
    /// - Parameters:
    ///   - waiters: The guarded value's set this wait joins.
    ///   - isDone: The condition, read under the lock.
    package func wait(
        on waiters: any WritableKeyPath<Value, WaiterSet> & Sendable,
        until isDone: (Value) -> Bool
    ) async {
        let id = withLock { $0[keyPath: waiters].reserveID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = withLock { value in
                    if isDone(value) || Task.isCancelled { return true }
                    value[keyPath: waiters].add(continuation, id: id)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            withLock { $0[keyPath: waiters].remove(id) }?.resume()
        }
    }
}
