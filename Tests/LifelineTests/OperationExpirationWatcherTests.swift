import Lifeline
import LifelineTesting
import Synchronization
import Testing

/// An operation in the watcher's tests.
struct Op: Identifiable, Hashable, Sendable {
    var id: Int
}

/// Receives the watcher's batches as a delegate.
final class RecordingDelegate: OperationExpirationDelegate {
    private let batches = Mutex<[[Op]]>([])
    var received: [[Op]] { batches.withLock { $0 } }
    func operationsExpired(_ operations: [Op]) { batches.withLock { $0.append(operations) } }
}

/// A clock that wakes the first sleep until any deadline `early` before it, as a coarse timer may, and
/// every later sleep until the same deadline on time.
final class EarlyWakingClock: Clock, Sendable {
    let base: TestClock
    let early: Duration
    private let seen = Mutex<Set<TestClock.Instant>>([])

    init(_ base: TestClock, early: Duration) {
        self.base = base
        self.early = early
    }

    var now: TestClock.Instant { base.now }
    var minimumResolution: Duration { .zero }

    func sleep(until deadline: TestClock.Instant, tolerance: Duration?) async throws {
        let first = seen.withLock { $0.insert(deadline).inserted }
        try await base.sleep(until: first ? deadline.advanced(by: .zero - early) : deadline, tolerance: tolerance)
    }
}

extension TestClock.Instant {
    static func at(_ seconds: Int) -> TestClock.Instant { TestClock.Instant(offset: .seconds(seconds)) }
}

/// Runs `body` with the watcher's timer running as a child of the test's task group, as its owner runs it.
func running<Result>(
    _ watcher: OperationExpirationWatcher<Op>, _ body: () async throws -> Result
) async rethrows -> Result {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await watcher.run() }
        defer { group.cancelAll() }
        return try await body()
    }
}

@Suite("The operation expiration watcher", .hangBound)
struct OperationExpirationWatcherTests {
    @Test("expiries given in any order fire in order, one batch per deadline, equal deadlines together")
    func firesInOrder() async throws {
        let clock = TestClock()
        let watcher = OperationExpirationWatcher<Op>(clock: clock)
        try await running(watcher) {
            var expirations = watcher.expirations.makeAsyncIterator()
            var random = SeededRandomNumberGenerator(seed: 4)
            let deadlines = (1...20).map { $0 * 10 }.shuffled(using: &random)
            var entries = deadlines.map { (Op(id: $0), Duration.seconds($0)) }
            entries.append((Op(id: 501), .seconds(50)))
            await watcher.replaceAll(with: entries)
            for seconds in deadlines.sorted() {
                let deadline = await clock.nextSleep()
                #expect(deadline == .at(seconds))
                #expect(clock.pendingSleeps == 1)
                clock.advance(to: deadline)
                let batch = try #require(await expirations.next())
                #expect(batch == (seconds == 50 ? [Op(id: 50), Op(id: 501)] : [Op(id: seconds)]))
            }
            #expect(await watcher.count == 0)
        }
    }

    @Test("adding an operation that expires earlier re-arms the timer for it; a later one leaves it")
    func addingEarlierReschedules() async throws {
        let clock = TestClock()
        let watcher = OperationExpirationWatcher<Op>(clock: clock)
        await running(watcher) {
            var expirations = watcher.expirations.makeAsyncIterator()
            await watcher.add(Op(id: 1), expiresAt: .seconds(10))
            #expect(await clock.nextSleep() == .at(10))
            await watcher.add(Op(id: 2), expiresAt: .seconds(5))
            #expect(await clock.nextSleep() == .at(5))
            #expect(clock.pendingDeadlines == [.at(5)])
            await watcher.add(Op(id: 3), expiresAt: .seconds(20))
            #expect(await watcher.timersArmed == 2)
            clock.advance(to: .at(5))
            #expect(await expirations.next() == [Op(id: 2)])
            #expect(await clock.nextSleep() == .at(10))
            #expect(clock.pendingDeadlines == [.at(10)])
        }
    }

    @Test("removing the earliest operation re-arms the timer for the next; removing all disarms it")
    func removingEarliestReschedules() async throws {
        let clock = TestClock()
        let watcher = OperationExpirationWatcher<Op>(clock: clock)
        await running(watcher) {
            var expirations = watcher.expirations.makeAsyncIterator()
            await watcher.replaceAll(with: [
                (Op(id: 1), .seconds(5)), (Op(id: 2), .seconds(10)), (Op(id: 3), .seconds(15)),
            ])
            #expect(await clock.nextSleep() == .at(5))
            #expect(await watcher.remove(1))
            #expect(await clock.nextSleep() == .at(10))
            #expect(clock.pendingDeadlines == [.at(10)])
            clock.advance(to: .at(10))
            #expect(await expirations.next() == [Op(id: 2)], "the removed operation is never reported")
            #expect(await clock.nextSleep() == .at(15))
            await watcher.removeAll()
            // The timer's loop sees the change and drops its sleep.
            await clock.waitForPendingSleeps(0)
            #expect(clock.pendingSleeps == 0)
            #expect(await watcher.nextDeadline == nil)
        }
    }

    @Test("a firing that finds nothing due yet re-arms the timer for the same deadline")
    func firingWithNothingDueReschedules() async throws {
        let clock = TestClock()
        let watcher = OperationExpirationWatcher<Op>(clock: EarlyWakingClock(clock, early: .seconds(1)))
        await running(watcher) {
            var expirations = watcher.expirations.makeAsyncIterator()
            await watcher.add(Op(id: 1), expiresAt: .seconds(10))
            #expect(await clock.nextSleep() == .at(9), "the clock wakes a second early")
            clock.advance(to: .at(9))
            #expect(await clock.nextSleep() == .at(10), "nothing was due: the timer is armed again")
            #expect(await watcher.count == 1)
            clock.advance(to: .at(10))
            #expect(await expirations.next() == [Op(id: 1)])
            #expect(await watcher.timersArmed == 2)
        }
    }

    @Test("100 000 operations added one by one, in random order, hold one pending timer")
    func oneTimerForMany() async throws {
        let clock = TestClock()
        let watcher = OperationExpirationWatcher<Op>(clock: clock)
        await running(watcher) {
            var expirations = watcher.expirations.makeAsyncIterator()
            var random = SeededRandomNumberGenerator(seed: 100_000)
            let deadlines = (1...100_000).shuffled(using: &random)
            for seconds in deadlines {
                await watcher.add(Op(id: seconds), expiresAt: .seconds(seconds))
            }
            // The timer was re-armed at every new minimum; wait for the last one.
            while await clock.nextSleep() != .at(1) {}
            #expect(clock.pendingSleeps == 1)
            let armed = await watcher.timersArmed
            #expect(armed < 100, "armed \(armed) times")
            clock.advance(to: .at(2))
            #expect(await expirations.next() == [Op(id: 1), Op(id: 2)])
            #expect(await clock.nextSleep() == .at(3))
            #expect(clock.pendingSleeps == 1)
            #expect(await watcher.count == 99_998)
        }
    }

    @Test("the delegate receives every batch, in order, and is held weakly")
    func delegate() async throws {
        let clock = TestClock()
        let watcher = OperationExpirationWatcher<Op>(clock: clock)
        await running(watcher) {
            var expirations = watcher.expirations.makeAsyncIterator()
            let delegate = RecordingDelegate()
            await watcher.setDelegate(delegate)
            await watcher.replaceAll(with: [
                (Op(id: 1), .seconds(1)), (Op(id: 2), .seconds(2)), (Op(id: 3), .seconds(2)),
            ])
            clock.advance(to: await clock.nextSleep())
            _ = await expirations.next()
            clock.advance(to: await clock.nextSleep())
            _ = await expirations.next()
            #expect(delegate.received == [[Op(id: 1)], [Op(id: 2), Op(id: 3)]])
            weak var released: RecordingDelegate?
            do {
                let temporary = RecordingDelegate()
                released = temporary
                await watcher.setDelegate(temporary)
            }
            #expect(released == nil)
        }
    }

    @Test("a watcher's run ending cancels its timer; the watcher released, its expirations finish")
    func releaseCancels() async throws {
        let clock = TestClock()
        var watcher: OperationExpirationWatcher<Op>? = OperationExpirationWatcher<Op>(clock: clock)
        let expirations = watcher!.expirations
        await withTaskGroup(of: Void.self) { [watcher] group in
            group.addTask { await watcher!.run() }
            await watcher!.add(Op(id: 1), expiresAt: .seconds(10))
            _ = await clock.nextSleep()
            group.cancelAll()
        }
        #expect(clock.pendingSleeps == 0)
        watcher = nil
        for await _ in expirations { Issue.record("nothing expired") }
    }

    @Test("nothing sleeps on the clock until the owner runs the timer; then it sleeps for what was added before")
    func timerRunsInTheOwnersGroup() async throws {
        let clock = TestClock()
        let watcher = OperationExpirationWatcher<Op>(clock: clock)
        var expirations = watcher.expirations.makeAsyncIterator()
        await watcher.add(Op(id: 1), expiresAt: .seconds(10))
        await watcher.add(Op(id: 2), expiresAt: .seconds(5))
        #expect(clock.pendingSleeps == 0)
        #expect(await watcher.timersArmed == 2)
        await running(watcher) {
            #expect(await clock.nextSleep() == .at(5))
            clock.advance(to: .at(5))
            #expect(await expirations.next() == [Op(id: 2)])
            #expect(await clock.nextSleep() == .at(10))
        }
        #expect(clock.pendingSleeps == 0, "the timer's sleep ends with its run")
        #expect(await watcher.count == 1)
    }
}
