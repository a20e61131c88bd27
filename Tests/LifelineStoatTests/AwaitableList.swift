import Synchronization

/// Elements appended by some tasks and awaited by others. A wait ends when its condition holds over the elements,
/// or at once when the waiting task is cancelled (a test's time limit): a broken test fails, it never hangs the
/// run, and no task polls.
final class AwaitableList<Element: Sendable>: Sendable {
    private struct Waiter {
        let id: UInt64
        let condition: @Sendable ([Element]) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var elements: [Element] = []
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
        var cancelledEarly: Set<UInt64> = []
    }

    private let state = Mutex(State())

    /// Every element appended so far, in order.
    var all: [Element] { state.withLock { $0.elements } }

    /// Reads the elements under the lock.
    func withLock<T>(_ body: ([Element]) -> T) -> T { state.withLock { body($0.elements) } }

    /// Appends an element and resumes the waits whose condition now holds.
    func append(_ element: Element) {
        let ready = state.withLock { state in
            state.elements.append(element)
            let elements = state.elements
            let ready = state.waiters.filter { $0.condition(elements) }
            state.waiters.removeAll { $0.condition(elements) }
            return ready.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    /// Waits until the elements satisfy `condition`, or until the calling task is cancelled.
    func wait(until condition: @escaping @Sendable ([Element]) -> Bool) async {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil || condition(state.elements) { return true }
                    state.waiters.append(Waiter(id: id, condition: condition, continuation: continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.cancelledEarly.insert(id)
                    return nil
                }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume()
        }
    }
}

/// Yields until an asynchronous `condition` holds (a server's state read through its actor): for state another
/// task reaches without a signal to await. Bounded by the test's time limit: a cancelled wait returns at once.
func waitUntil(async condition: () async -> Bool) async {
    while !Task.isCancelled, !(await condition()) { await Task.yield() }
}
