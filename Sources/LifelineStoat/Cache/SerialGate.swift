import Synchronization

/// Lets one task at a time through a critical section that suspends (a store write), in arrival order.
///
/// An actor would not do: its methods interleave at every `await`. Cancellation does not skip the line,
/// so the section's work — writing what is pending — is never left half-done by a cancelled caller.
final class SerialGate: Sendable {
    private struct State {
        var busy = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// How many callers wait for the gate.
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Runs `body` once every earlier caller's body has finished.
    func run<T: Sendable>(_ body: () async -> T) async -> T {
        await enter()
        defer { leave() }
        return await body()
    }

    private func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state in
                if state.busy {
                    state.waiters.append(continuation)
                    return false
                }
                state.busy = true
                return true
            }
            if admitted { continuation.resume() }
        }
    }

    private func leave() {
        let next: CheckedContinuation<Void, Never>? = state.withLock { state in
            guard !state.waiters.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
