import LifelineTesting
import Synchronization
import Testing

@testable import Lifeline

/// A deadline in the driver's tests.
private struct Entry: Identifiable, Hashable, Sendable {
    var id: Int
}

/// What the tests' driver performs: a note in its log, or a child that notes its start, then waits to be cancelled.
private enum Command: Sendable {
    case note(String)
    case child(String)
}

/// A driver on a test clock whose state is a log of what happened, in order.
private typealias Driver = EngineDriver<[String], Command, Entry>

/// Runs `driver` in a task the test owns, logging each command, each child's start and each firing, until `body`
/// ends; then cancels it and waits for `run` to return.
private func running(
    _ driver: Driver, _ body: @Sendable (AsyncStream<String>) async throws -> Void
) async throws {
    let (events, event) = AsyncStream.makeStream(of: String.self)
    try await withThrowingDiscardingTaskGroup { group in
        group.addTask {
            await driver.run { due in
                driver.withLock { $0.append("fired \(due.map(\.id))") }
                event.yield("fired")
            } perform: { command in
                switch command {
                case .note(let note):
                    driver.withLock { $0.append(note) }
                    event.yield(note)
                    return nil
                case .child(let name):
                    return {
                        driver.withLock { $0.append("\(name) started") }
                        event.yield("\(name) started")
                        // A child runs until run()'s task is cancelled.
                        await untilCancelled()
                    }
                }
            } ending: {
                driver.withLock { $0.append("ending") }
            }
        }
        try await body(events)
        group.cancelAll()
    }
}

@Suite("The engine driver", .hangBound)
struct EngineDriverTests {
    @Test("commands and children posted before run() are performed in the order posted, once it runs")
    func order() async throws {
        let driver = Driver([], clock: SessionClock(TestClock()))
        driver.post(.note("first"))
        driver.addChild { driver.withLock { $0.append("a child") } }
        driver.post(.note("second"))
        driver.post(.child("worker"))
        try await running(driver) { events in
            var seen: [String] = []
            for await event in events {
                seen.append(event)
                if event == "worker started" { break }
            }
            #expect(seen == ["first", "second", "worker started"])
        }
        let log = driver.withLock { $0 }
        #expect(log.contains("a child"), "a child added runs in the group")
        #expect(log.contains("ending"), "ending is called once the stream ends")
    }

    @Test("the timer's loop runs only while something is scheduled, and fires what is due to the owner")
    func timer() async throws {
        let clock = TestClock()
        let driver = Driver([], clock: SessionClock(clock))
        try await running(driver) { events in
            var events = events.makeAsyncIterator()
            driver.post(.note("running"))
            #expect(await events.next() == "running")
            #expect(clock.pendingSleeps == 0, "nothing scheduled: no sleep")
            driver.schedule(Entry(id: 1), at: .seconds(10))
            driver.schedule(Entry(id: 2), at: .seconds(20))
            clock.advance(to: await clock.nextSleep(where: { $0 == .at(10) }))
            #expect(await events.next() == "fired")
            clock.advance(to: await clock.nextSleep(where: { $0 == .at(20) }))
            #expect(await events.next() == "fired")
            await driver.timer.untilIdle()
            #expect(clock.pendingSleeps == 0, "everything fired: no sleep left")
            #expect(driver.timer.schedule(Entry(id: 3), at: .seconds(30)), "the idle loop ended: another is to start")
            driver.cancel(3)
        }
        #expect(driver.withLock { $0 }.filter { $0.hasPrefix("fired") } == ["fired [1]", "fired [2]"])
    }

    @Test("cancelling run() ends the children and calls ending, and no deadline is left")
    func ending() async throws {
        let clock = TestClock()
        let driver = Driver([], clock: SessionClock(clock))
        try await running(driver) { events in
            driver.post(.child("worker"))
            for await event in events where event == "worker started" { break }
            driver.schedule(Entry(id: 1), at: .seconds(10))
            _ = await clock.nextSleep()
        }
        #expect(driver.timer.count == 0, "every deadline forgotten when run() ends")
        #expect(clock.pendingSleeps == 0, "no sleep left on the clock")
        #expect(driver.withLock { $0 }.last == "ending")
    }
}
