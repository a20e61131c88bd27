import Synchronization
import Testing

@testable import Lifeline

/// An owner of a waiter set, as `Work` and `DeadlineTimer` are: a condition in locked state, and tasks
/// waiting until it holds.
private final class Gate: Sendable {
    private struct State {
        var open = false
        var waiters = WaiterSet()
        /// The labels of the waits that returned, in the order they returned.
        var returned: [Int] = []
    }

    private let state = Mutex(State())

    /// How many tasks wait.
    var waiting: Int { state.withLock { $0.waiters.count } }

    /// The labels of the waits that returned, in order.
    var returned: [Int] { state.withLock { $0.returned } }

    /// Waits until the gate is open (or the task is cancelled), then records `label`.
    func pass(_ label: Int) async {
        await state.wait(on: \.waiters) { $0.open }
        state.withLock { $0.returned.append(label) }
    }

    /// Opens the gate and takes its waiters, without resuming them.
    func open() -> [CheckedContinuation<Void, Never>] {
        state.withLock { state in
            state.open = true
            return state.waiters.takeAll()
        }
    }

    /// Returns once `count` tasks wait: each wait adds itself under the lock, so this sees it.
    func untilWaiting(_ count: Int) async {
        while waiting != count, !Task.isCancelled { await Task.yield() }
    }

    /// Returns once `count` waits have returned.
    func untilReturned(_ count: Int) async {
        while returned.count != count, !Task.isCancelled { await Task.yield() }
    }
}

@Suite("A waiter set", .hangBound)
struct WaiterSetTests {
    @Test("waiters are resumed in the order they began to wait, and none is left in the set")
    func resumesInOrder() async {
        let gate = Gate()
        await withDiscardingTaskGroup { group in
            for label in 1...4 {
                group.addTask { await gate.pass(label) }
                await gate.untilWaiting(label)
            }
            let waiters = gate.open()
            #expect(waiters.count == 4)
            #expect(gate.waiting == 0, "taken out of the set")
            // One at a time: the wait each resumes is the one that returns next.
            for (index, waiter) in waiters.enumerated() {
                waiter.resume()
                await gate.untilReturned(index + 1)
            }
        }
        #expect(gate.returned == [1, 2, 3, 4])
    }

    @Test("a cancelled waiter is resumed at once and removed; the others still wait")
    func cancelledWaiterLeaves() async {
        let gate = Gate()
        await withDiscardingTaskGroup { group in
            group.addTask { await gate.pass(1) }
            await gate.untilWaiting(1)
            let cancelled = Task { await gate.pass(2) }
            await gate.untilWaiting(2)
            group.addTask { await gate.pass(3) }
            await gate.untilWaiting(3)

            cancelled.cancel()
            await cancelled.value
            #expect(gate.returned == [2], "the cancelled wait returned, the gate still closed")
            #expect(gate.waiting == 2, "and left the set")

            let waiters = gate.open()
            #expect(waiters.count == 2)
            for waiter in waiters { waiter.resume() }
        }
        #expect(gate.returned.sorted() == [1, 2, 3])
        #expect(gate.waiting == 0)
    }

    @Test("a wait returns at once when the condition holds already, or when its task is cancelled already")
    func returnsAtOnce() async {
        let gate = Gate()
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await gate.pass(1)
        }
        await cancelled.value
        #expect(gate.returned == [1])
        #expect(gate.waiting == 0, "a cancelled task never joins the set")

        #expect(gate.open().isEmpty)
        await gate.pass(2)
        #expect(gate.returned == [1, 2])
        #expect(gate.waiting == 0, "nor does one whose condition holds")
    }
}
