import LifelineTesting
import Testing

@testable import Lifeline

/// A deadline in the timer's tests.
private struct Entry: Identifiable, Hashable, Sendable {
    var id: Int
}

/// A deadline timer on a test clock, its loop running in a task group the test owns, and what it fired.
private struct Running {
    let clock = TestClock()
    let timer: DeadlineTimer<Entry>
    let fired: AsyncStream<[Entry]>
    private let firing: AsyncStream<[Entry]>.Continuation

    init() {
        timer = DeadlineTimer(clock: SessionClock(clock))
        (fired, firing) = AsyncStream.makeStream(of: [Entry].self)
    }

    /// Runs the timer's loop as a child of a task group while `body` runs, then cancels it.
    func run(_ body: (inout AsyncStream<[Entry]>.Iterator) async throws -> Void) async throws {
        var batches = fired.makeAsyncIterator()
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { [timer, firing] in
                await timer.run { due in firing.yield(due) }
            }
            try await body(&batches)
            group.cancelAll()
        }
    }
}

@Suite("The deadline timer", .hangBound)
struct DeadlineTimerTests {
    @Test("deadlines scheduled in any order fire earliest first, one sleep at a time, equal ones together")
    func firesInOrder() async throws {
        let running = Running()
        let clock = running.clock
        try await running.run { batches in
            for (id, seconds) in [(3, 30), (1, 10), (2, 20), (4, 20)] {
                running.timer.schedule(Entry(id: id), at: .seconds(seconds))
            }
            for (seconds, ids) in [(10, [1]), (20, [2, 4]), (30, [3])] {
                let deadline = await clock.nextSleep(where: { $0 == .at(seconds) })
                #expect(clock.pendingSleeps == 1, "one sleep, for the earliest deadline")
                clock.advance(to: deadline)
                let batch = try #require(await batches.next())
                #expect(Set(batch.map(\.id)) == Set(ids))
            }
            #expect(running.timer.count == 0)
            await running.timer.untilIdle()
            #expect(clock.pendingSleeps == 0, "nothing scheduled: no sleep")
        }
    }

    @Test("the sleep moves when the earliest deadline moves, earlier or later, and a cancelled one never fires")
    func rearms() async throws {
        let running = Running()
        let clock = running.clock
        try await running.run { batches in
            running.timer.schedule(Entry(id: 1), at: .seconds(10))
            #expect(await clock.nextSleep() == .at(10))
            running.timer.schedule(Entry(id: 2), at: .seconds(5))
            #expect(await clock.nextSleep() == .at(5), "an earlier deadline re-arms the sleep")
            await clock.waitForPendingSleeps(1)
            running.timer.cancel(Entry.ID(2))
            #expect(await clock.nextSleep() == .at(10), "cancelling the earliest re-arms for the next")
            await clock.waitForPendingSleeps(1)
            // Passing the cancelled deadline fires nothing; the next one fires alone.
            clock.advance(to: .at(10))
            let batch = try #require(await batches.next())
            #expect(batch == [Entry(id: 1)])
            running.timer.schedule(Entry(id: 3), at: .seconds(40))
            #expect(await clock.nextSleep() == .at(40))
            running.timer.schedule(Entry(id: 3), at: .seconds(50))
            #expect(await clock.nextSleep() == .at(50), "moving the only deadline later re-arms too")
            running.timer.cancelAll()
            await running.timer.untilIdle()
            #expect(clock.pendingSleeps == 0, "everything cancelled: the sleep is gone")
            #expect(running.timer.sleepsArmed == 5)
        }
    }

    @Test("a deadline already past fires at once, and a change that leaves the earliest deadline arms nothing")
    func pastAndUnmoved() async throws {
        let running = Running()
        let clock = running.clock
        clock.advance(to: .at(100))
        try await running.run { batches in
            running.timer.schedule(Entry(id: 1), at: .seconds(200))
            #expect(await clock.nextSleep() == .at(200))
            running.timer.schedule(Entry(id: 2), at: .seconds(300))
            running.timer.schedule(Entry(id: 3), at: .seconds(50))
            let batch = try #require(await batches.next())
            #expect(batch == [Entry(id: 3)], "a past deadline is due at once")
            #expect(await clock.nextSleep() == .at(200))
            #expect(running.timer.sleepsArmed == 2, "the later deadline changed nothing; the past one re-armed once")
            clock.advance(to: .at(300))
            let rest = try #require(await batches.next())
            #expect(rest.map(\.id) == [1, 2], "everything due by the wake-up, earliest first")
        }
        #expect(clock.pendingSleeps == 0, "the loop's end leaves no sleep")
    }

    @Test("a list replacing every deadline, or several scheduled at once, moves the sleep once; each move is counted")
    func bulkChanges() async throws {
        let running = Running()
        let clock = running.clock
        try await running.run { batches in
            running.timer.replaceAll(with: [
                (Entry(id: 1), .seconds(30)), (Entry(id: 2), .seconds(10)), (Entry(id: 1), .seconds(20)),
            ])
            #expect(await clock.nextSleep() == .at(10))
            #expect(running.timer.count == 2, "an id's last entry counts")
            #expect(running.timer.deadline(of: 1) == .seconds(20))
            running.timer.schedule(contentsOf: [(Entry(id: 3), .seconds(5)), (Entry(id: 4), .seconds(15))])
            #expect(await clock.nextSleep() == .at(5))
            #expect(running.timer.wakeUpsMoved == 2)
            clock.advance(to: .at(10))
            let batch = try #require(await batches.next())
            #expect(batch.map(\.id) == [3, 2])
            #expect(await clock.nextSleep() == .at(15))
            #expect(running.timer.wakeUpsMoved == 3, "the firing moved the wake-up to what is left")
            running.timer.replaceAll(with: [])
            await running.timer.untilIdle()
            #expect(clock.pendingSleeps == 0)
            #expect(running.timer.wakeUpsMoved == 3, "nothing left to wake for is no move")
        }
    }

    @Test("a loop ending when idle runs only while something is scheduled, and schedule says when one must start")
    func endsWhenIdle() async throws {
        let clock = TestClock()
        let timer = DeadlineTimer<Entry>(clock: SessionClock(clock))
        #expect(timer.schedule(Entry(id: 1), at: .seconds(10)), "no loop runs: the owner is to start one")
        #expect(!timer.schedule(Entry(id: 2), at: .seconds(20)), "one was asked for already")
        let (fired, firing) = AsyncStream.makeStream(of: [Entry].self)
        var batches = fired.makeAsyncIterator()
        await withDiscardingTaskGroup { group in
            group.addTask { await timer.run(endingWhenIdle: true) { due in firing.yield(due) } }
            clock.advance(to: await clock.nextSleep())
            #expect(await batches.next() == [Entry(id: 1)])
            clock.advance(to: await clock.nextSleep())
            #expect(await batches.next() == [Entry(id: 2)])
            // Nothing is scheduled: the loop returns by itself, and the group ends without a cancellation.
        }
        #expect(clock.pendingSleeps == 0)
        #expect(timer.schedule(Entry(id: 3), at: .seconds(30)), "the loop ended: the next deadline starts another")
    }

    @Test(
        "a deadline scheduled and cancelled before its loop ran leaves the timer idle",
        .hangBound)
    func idleWithoutALoop() async {
        let timer = DeadlineTimer<Entry>(clock: SessionClock(TestClock()))
        #expect(timer.schedule(Entry(id: 1), at: .seconds(10)), "a loop is asked for")
        timer.cancel(1)
        // The loop never started (a session disposed before its job ran): nothing is armed or scheduled.
        await timer.untilIdle()
        #expect(timer.count == 0)
    }
}
