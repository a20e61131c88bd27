import Foundation
import Synchronization
import Testing

@testable import LifelineStore

/// The store's long synchronous work (key derivation, creating a file) runs on threads of its own, a core's worth
/// at a time, so a sign-in never holds a thread of Swift's cooperative pool.
@Suite("Blocking work off the cooperative pool")
struct OwnThreadTests {
    /// As many blocking calls as the cooperative pool has threads all start at once, and the test's own task
    /// still runs to release them. Run on the pool, they would hold all of its threads and the test could never
    /// see them start (each gives up after a minute, so a broken run ends).
    @Test(.hangBound)
    func blockingCallsLeaveThePoolFree() async throws {
        let calls = ProcessInfo.processInfo.activeProcessorCount
        let gate = DispatchSemaphore(value: 0)
        let (started, announce) = AsyncStream.makeStream(of: Int.self)
        let turns = BlockingWorkGate(limit: calls)
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for call in 0..<calls {
                group.addTask {
                    try await onOwnThread(gate: turns) {
                        () throws(CancellationError) -> Bool in
                        announce.yield(call)
                        return gate.wait(timeout: .now() + 60) == .success
                    }
                }
            }
            var seen = Set<Int>()
            for await call in started {
                seen.insert(call)
                if seen.count == calls { break }
            }
            #expect(seen.count == calls)
            for _ in 0..<calls { gate.signal() }
            var released = 0
            for try await wasReleased in group where wasReleased { released += 1 }
            #expect(released == calls)
        }
    }

    /// Past its limit the gate makes a caller wait until a running one leaves, then hands it the turn.
    @Test(.hangBound)
    func theGateBoundsHowManyRun() async throws {
        let gate = BlockingWorkGate(limit: 2)
        await gate.enter()
        await gate.enter()
        let thirdRan = Mutex(false)
        let third = Task {
            await gate.enter()
            thirdRan.withLock { $0 = true }
        }
        // Until the third caller either waits (right) or runs (wrong).
        while await gate.waitingCount == 0, !thirdRan.withLock({ $0 }) {
            try Task.checkCancellation()
            await Task.yield()
        }
        #expect(thirdRan.withLock { $0 } == false, "a third caller ran past a limit of two")
        #expect(await gate.running == 2)
        await gate.leave()
        await third.value
        #expect(thirdRan.withLock { $0 })
        #expect(await gate.running == 2, "the turn was handed over, not freed and taken again")
        await gate.leave()
        await gate.leave()
        #expect(await gate.running == 0)
    }

    /// A typed error thrown on the thread comes back to the caller as itself.
    @Test
    func typedErrorsComeBack() async {
        await #expect(throws: StoreError.self) {
            try await onOwnThread { () throws(StoreError) -> Int in
                throw StoreError(code: .invalidParameter, message: "refused on the thread")
            }
        }
    }
}
