import Foundation
import Lifeline
import Synchronization
import Testing

@Suite("Broadcaster: one fan-out, a policy per use for a slow subscriber")
struct BroadcasterTests {
    @Test("a subscriber that never reads neither blocks the others nor holds more than its newest values")
    func newestBounds() async {
        let broadcaster = Broadcaster<Int>(buffering: .newest(4))
        var reader = broadcaster.subscribe().makeAsyncIterator()
        var idle = broadcaster.subscribe().makeAsyncIterator()
        for value in 1...10_000 {
            broadcaster.publish(value)
            #expect(await reader.next() == value)  // the publisher never waited for the idle subscriber
        }
        broadcaster.finish()
        var held: [Int] = []
        while let value = await idle.next() { held.append(value) }
        #expect(held == [9_997, 9_998, 9_999, 10_000])
    }

    @Test("a failing buffer ends a subscriber that falls behind after what it holds; the others go on")
    func failingEndsLoudly() async throws {
        let broadcaster = Broadcaster<Int>(buffering: .failing(after: 3))
        var fast = broadcaster.subscription().makeAsyncIterator()
        var slow = broadcaster.subscription().makeAsyncIterator()
        #expect(broadcaster.subscriberCount == 2)
        for value in 1...5 {
            broadcaster.publish(value)
            #expect(try await fast.next() == value)
        }
        #expect(broadcaster.subscriberCount == 1)  // the slow one was let go at the 4th value
        for value in 1...3 { #expect(try await slow.next() == value) }
        await #expect(throws: BroadcastOverflow(limit: 3)) { try await slow.next() }
        #expect(try await slow.next() == nil)
        broadcaster.finish()
        #expect(try await fast.next() == nil)
    }

    @Test("a subscription's stream ends quietly on overflow; its throwing stream says why")
    func overflowThroughStreams() async throws {
        let broadcaster = Broadcaster<Int>(buffering: .failing(after: 1))
        var quiet = broadcaster.subscribe().makeAsyncIterator()
        var loud = broadcaster.throwingStream().makeAsyncIterator()
        broadcaster.publish(1)
        broadcaster.publish(2)
        #expect(await quiet.next() == 1)
        #expect(await quiet.next() == nil)
        #expect(try await loud.next() == 1)
        await #expect(throws: BroadcastOverflow.self) { try await loud.next() }
    }

    @Test("dropping a subscription unsubscribes it")
    func droppedSubscription() async throws {
        let broadcaster = Broadcaster<Int>(current: 0, buffering: .newest(1))
        do {
            var iterator = broadcaster.subscription().makeAsyncIterator()
            #expect(try await iterator.next() == 0)
            #expect(broadcaster.subscriberCount == 1)
        }
        #expect(broadcaster.subscriberCount == 0)
        _ = broadcaster.subscribe()
        #expect(broadcaster.subscriberCount == 0)
    }

    @Test("a subscriber that read a burst keeps no storage for it: the buffer is not kept at its largest")
    func burstStorageReleased() async {
        let broadcaster = Broadcaster<Int>()
        var values = broadcaster.subscribe().makeAsyncIterator()
        // No reader waits: the whole burst is buffered, as a catch-up's messages are.
        for value in 0..<1_000 { broadcaster.publish(value) }
        #expect(broadcaster.bufferCapacities.allSatisfy { $0 >= 1_000 })
        for expected in 0..<1_000 { #expect(await values.next() == expected) }
        #expect(broadcaster.bufferCapacities.allSatisfy { $0 <= 16 }, "\(broadcaster.bufferCapacities)")
        broadcaster.publish(1_000)
        #expect(await values.next() == 1_000)
    }

    @Test("a state broadcaster publishes only a changed value")
    func publishIfChanged() async {
        let broadcaster = Broadcaster<Int>(current: 1, buffering: .newest(8))
        var iterator = broadcaster.subscribe().makeAsyncIterator()
        #expect(!broadcaster.publishIfChanged(1))
        #expect(broadcaster.publishIfChanged(2))
        broadcaster.finish()
        #expect(await iterator.next() == 1)
        #expect(await iterator.next() == 2)
        #expect(await iterator.next() == nil)
    }

    @Test("the manual network monitor tells each change, and a subscriber that does not read keeps only the newest")
    func manualMonitor() async {
        let monitor = ManualNetworkMonitor(.online)
        var reader = monitor.statuses().makeAsyncIterator()
        var idle = monitor.statuses().makeAsyncIterator()
        #expect(await reader.next() == .online)
        monitor.set(.online)  // no change: nothing told
        for _ in 0..<50 {
            monitor.set(.offline)
            #expect(await reader.next() == .offline)
            monitor.set(.online)
            #expect(await reader.next() == .online)
        }
        #expect(monitor.status == .online)
        var held = 0
        while held < 16, await idle.next() != nil { held += 1 }
        #expect(held == 16)  // the initial status and 99 changes were offered; it kept the newest 16
        monitor.set(.offline)
        #expect(await idle.next() == .offline)  // …and nothing older is left before the next change
    }
}

@Suite("Broadcaster: cancelling subscribers while values are published")
struct BroadcasterCancellationRaceTests {
    /// A task group cancelled while a publisher delivers to its subscribers: cancellation runs each
    /// subscription's `onCancel` (which unsubscribes, taking the broadcaster's lock) under the task's own
    /// status lock, and a delivery resumes a waiting reader (which takes that status lock). A publisher that
    /// resumed readers under the broadcaster's lock deadlocked with it: the soak hung in its teardown.
    @Test(.hangBound)
    func cancellingWhilePublishingNeverDeadlocks() async {
        let broadcaster = Broadcaster<Int>(buffering: .newest(1))
        let stop = Mutex(false)
        let publisher = Thread {
            // The publisher spins: at the lowest priority it takes only the CPU nothing else wants, so it does not
            // starve the other tests' servers on a loaded machine (README: "Tests on a loaded machine"). Linux keeps
            // a nice value per thread: `who` 0 is this thread.
            #if os(Linux)
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
            #endif
            var value = 0
            while !stop.withLock({ $0 }) {
                value &+= 1
                broadcaster.publish(value)
            }
        }
        publisher.start()
        for _ in 0..<20_000 {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        for await _ in broadcaster.subscribe() {}
                    }
                }
                await Task.yield()
                group.cancelAll()
            }
        }
        stop.withLock { $0 = true }
        #expect(broadcaster.subscriberCount == 0)
    }
}
