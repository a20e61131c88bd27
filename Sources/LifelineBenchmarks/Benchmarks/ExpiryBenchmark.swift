import Foundation
import Lifeline
import Synchronization

/// `expiry` and `expiry-reschedule`: the operation expiration watcher with 100 000 operations watched,
/// against the naive watcher that gives every operation its own timer (a task sleeping on the clock).
///
/// - `expiry`: operations added per second, one `add` at a time, in random deadline order, until all are
///   watched (for the baseline: until every operation's task is asleep). Goal: ratio ≥ 10.
/// - `expiry-refresh`: operations watched per second when a refreshed list of 100 000 replaces the watched
///   one, as ``OperationList`` does on every refresh: one `replaceAll` (O(n)), against cancelling every
///   task and starting one per operation. Goal: ratio ≥ 10.
/// - `expiry-reschedule`: with 100 000 watched, timer re-arms per second when every change moves the
///   earliest deadline (an earlier operation added, then removed), against the baseline moving one
///   operation's timer (cancel its task, start another). A change that does not move the earliest deadline
///   re-arms nothing in the watcher; the note gives those changes per second too.
///
/// Every deadline lies an hour ahead on `ContinuousClock`, so nothing fires while measuring.
enum ExpiryBenchmark {
    struct Ticket: Identifiable, Sendable {
        var id: Int
    }

    static func operationCount(quick: Bool) -> Int { quick ? 20_000 : 100_000 }

    @Sendable
    static func runAdds(quick: Bool) async throws -> BenchmarkResult {
        let count = operationCount(quick: quick)
        let deadlines = shuffledDeadlines(count)
        var lifeline = 0.0
        var baseline = 0.0
        for _ in 0..<(quick ? 1 : 3) {
            lifeline = max(lifeline, await measureWatcherAdds(deadlines))
            baseline = max(baseline, await measureNaiveAdds(deadlines))
        }
        return BenchmarkResult(
            name: "expiry", unit: "adds/s", lifeline: lifeline, baseline: baseline, goal: .ratioAtLeast(10),
            detail: "\(count.formatted()) operations, one timer vs one task each")
    }

    @Sendable
    static func runRefreshes(quick: Bool) async throws -> BenchmarkResult {
        let count = operationCount(quick: quick)
        let lists = (0..<3).map { shuffledDeadlines(count, seed: UInt64($0)) }
        var lifeline = 0.0
        var baseline = 0.0
        for _ in 0..<(quick ? 1 : 3) {
            lifeline = max(lifeline, await measureWatcherRefreshes(lists))
            baseline = max(baseline, await measureNaiveRefreshes(lists))
        }
        return BenchmarkResult(
            name: "expiry-refresh", unit: "operations/s", lifeline: lifeline, baseline: baseline,
            goal: .ratioAtLeast(10),
            detail: "a refreshed list of \(count.formatted()) replaces the watched one (OperationList's case)")
    }

    @Sendable
    static func runReschedules(quick: Bool) async throws -> BenchmarkResult {
        let count = operationCount(quick: quick)
        let changes = quick ? 5_000 : 20_000
        let deadlines = shuffledDeadlines(count)
        let (rearms, moves) = await measureWatcherReschedules(deadlines, changes: changes)
        let baseline = await measureNaiveReschedules(deadlines, changes: changes)
        return BenchmarkResult(
            name: "expiry-reschedule", unit: "re-arms/s", lifeline: rearms, baseline: baseline,
            goal: .ratioAtLeast(0.5),
            detail: "\(count.formatted()) watched; moves not at the front: \(format(moves))/s, no re-arm")
    }

    // MARK: - Lifeline's watcher

    /// Runs `body` with the watcher's timer loop running beside it, as its owner runs it (a child of its group).
    static func running<Result: Sendable>(
        _ watcher: OperationExpirationWatcher<Ticket>, _ body: () async -> Result
    ) async -> Result {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await watcher.run() }
            defer { group.cancelAll() }
            return await body()
        }
    }

    static func measureWatcherAdds(_ deadlines: [Duration]) async -> Double {
        let watcher = OperationExpirationWatcher<Ticket>()
        return await running(watcher) { await measureAdds(deadlines, on: watcher) }
    }

    static func measureAdds(_ deadlines: [Duration], on watcher: OperationExpirationWatcher<Ticket>) async -> Double {
        let start = ContinuousClock.now
        for (id, deadline) in deadlines.enumerated() {
            await watcher.add(Ticket(id: id), expiresAt: deadline)
        }
        let elapsed = start.duration(to: .now)
        let watched = await watcher.count
        precondition(watched == deadlines.count, "the watcher lost operations")
        return Double(deadlines.count) / elapsed.secondsValue
    }

    /// Re-arms per second when each change moves the earliest deadline, and moves per second of operations
    /// that are not the earliest.
    static func measureWatcherReschedules(_ deadlines: [Duration], changes: Int) async -> (Double, Double) {
        let watcher = OperationExpirationWatcher<Ticket>()
        return await running(watcher) { await measureReschedules(deadlines, changes: changes, on: watcher) }
    }

    static func measureReschedules(
        _ deadlines: [Duration], changes: Int, on watcher: OperationExpirationWatcher<Ticket>
    ) async -> (Double, Double) {
        await watcher.replaceAll(with: deadlines.enumerated().map { (Ticket(id: $0.offset), $0.element) })
        let earliest = deadlines.min()!
        let armedBefore = await watcher.timersArmed
        var start = ContinuousClock.now
        for index in 0..<changes / 2 {
            let id = deadlines.count + index
            await watcher.add(Ticket(id: id), expiresAt: earliest - .seconds(1))
            await watcher.remove(id)
        }
        let rearms = await watcher.timersArmed - armedBefore
        let rearmRate = Double(rearms) / start.duration(to: .now).secondsValue
        precondition(rearms == changes / 2 * 2, "every change was to re-arm the timer, \(rearms) did")
        start = ContinuousClock.now
        for index in 0..<changes {
            let id = 1 + index * 7 % (deadlines.count - 1)
            await watcher.add(Ticket(id: id), expiresAt: deadlines[id] + .seconds(1))
        }
        let moveRate = Double(changes) / start.duration(to: .now).secondsValue
        return (rearmRate, moveRate)
    }

    /// Operations watched per second when whole lists replace the watched one.
    static func measureWatcherRefreshes(_ lists: [[Duration]]) async -> Double {
        let watcher = OperationExpirationWatcher<Ticket>()
        let start = ContinuousClock.now
        for list in lists {
            await watcher.replaceAll(with: list.enumerated().map { (Ticket(id: $0.offset), $0.element) })
        }
        let elapsed = start.duration(to: .now)
        return Double(lists.map(\.count).reduce(0, +)) / elapsed.secondsValue
    }

    // MARK: - The baseline: one task per operation

    /// The naive watcher: every operation's own task sleeps until its deadline.
    actor NaiveWatcher {
        private var timers: [Int: Task<Void, Never>] = [:]
        /// How many of the tasks have started (and gone to sleep, or are about to).
        nonisolated let started = StartedCounter()

        func add(_ id: Int, expiresAt deadline: ContinuousClock.Instant) {
            timers[id]?.cancel()
            let started = started
            timers[id] = Task {
                started.increment()
                try? await ContinuousClock().sleep(until: deadline, tolerance: nil)
            }
        }

        /// Cancels every operation's task and starts one for each operation of `list`.
        func replaceAll(with list: [(Int, ContinuousClock.Instant)]) {
            for timer in timers.values { timer.cancel() }
            timers.removeAll(keepingCapacity: true)
            let started = started
            for (id, deadline) in list {
                timers[id] = Task {
                    started.increment()
                    try? await ContinuousClock().sleep(until: deadline, tolerance: nil)
                }
            }
        }

        func stop() async {
            for timer in timers.values { timer.cancel() }
            for timer in timers.values { await timer.value }
            timers = [:]
        }

        /// Waits until `count` tasks have started, so their cost is counted.
        nonisolated func waitUntilStarted(_ count: Int) async {
            while started.count < count { await Task.yield() }
        }
    }

    /// Counts the naive watcher's started tasks.
    final class StartedCounter: Sendable {
        private let value = Atomic<Int>(0)
        var count: Int { value.load(ordering: .acquiring) }
        func increment() { value.add(1, ordering: .releasing) }
    }

    static func measureNaiveAdds(_ deadlines: [Duration]) async -> Double {
        let watcher = NaiveWatcher()
        let origin = ContinuousClock.now
        let start = ContinuousClock.now
        for (id, deadline) in deadlines.enumerated() {
            await watcher.add(id, expiresAt: origin + deadline)
        }
        await watcher.waitUntilStarted(deadlines.count)
        let elapsed = start.duration(to: .now)
        await watcher.stop()
        return Double(deadlines.count) / elapsed.secondsValue
    }

    static func measureNaiveRefreshes(_ lists: [[Duration]]) async -> Double {
        let watcher = NaiveWatcher()
        let origin = ContinuousClock.now
        let start = ContinuousClock.now
        var total = 0
        for list in lists {
            await watcher.replaceAll(with: list.enumerated().map { ($0.offset, origin + $0.element) })
            total += list.count
            await watcher.waitUntilStarted(total)
        }
        let elapsed = start.duration(to: .now)
        await watcher.stop()
        return Double(total) / elapsed.secondsValue
    }

    static func measureNaiveReschedules(_ deadlines: [Duration], changes: Int) async -> Double {
        let watcher = NaiveWatcher()
        let origin = ContinuousClock.now
        for (id, deadline) in deadlines.enumerated() {
            await watcher.add(id, expiresAt: origin + deadline)
        }
        await watcher.waitUntilStarted(deadlines.count)
        let start = ContinuousClock.now
        for index in 0..<changes {
            let id = index * 7 % deadlines.count
            await watcher.add(id, expiresAt: origin + deadlines[id] + .seconds(1))
        }
        await watcher.waitUntilStarted(deadlines.count + changes)
        let elapsed = start.duration(to: .now)
        await watcher.stop()
        return Double(changes) / elapsed.secondsValue
    }

    // MARK: - Input

    /// Deadlines an hour ahead, spread over a further hour, in a fixed random order.
    static func shuffledDeadlines(_ count: Int, seed: UInt64 = 9) -> [Duration] {
        var random = BenchmarkRandomNumberGenerator(seed: seed)
        var deadlines = (0..<count).map { Duration.seconds(3_600) + .milliseconds($0 * 36_000 / count * 100) }
        deadlines.shuffle(using: &random)
        return deadlines
    }

    static func format(_ value: Double) -> String {
        value.formatted(.number.precision(.significantDigits(3)).notation(.compactName))
    }
}
