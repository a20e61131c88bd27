import Foundation
import Testing

@testable import LifelineStore

/// The store's long synchronous work (key derivation, creating a file) runs on threads of its own, so a sign-in
/// never holds a thread of Swift's cooperative pool.
@Suite("Blocking work off the cooperative pool")
struct OwnThreadTests {
    /// More blocking calls than the cooperative pool has threads all start at once, and the test's own task
    /// still runs to release them. Run on the pool, the calls past its size would wait for a free thread and
    /// the test would never see them start (each gives up after a minute, so a broken run ends).
    @Test(.timeLimit(.minutes(2)))
    func moreBlockingCallsThanPoolThreadsAllRun() async throws {
        let calls = ProcessInfo.processInfo.activeProcessorCount + 2
        let gate = DispatchSemaphore(value: 0)
        let (started, announce) = AsyncStream.makeStream(of: Int.self)
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for call in 0..<calls {
                group.addTask {
                    try await onOwnThread { () throws(CancellationError) -> Bool in
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
