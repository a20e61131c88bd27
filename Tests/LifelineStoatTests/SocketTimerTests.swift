import Lifeline
import LifelineTesting
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import LifelineStoat

/// A connection of the timer's tests: records when it was woken, and on which thread.
final class WokenTarget: SocketTimerTarget {
    let name: String
    let eventLoop: (any EventLoop)?
    private let wakes = Mutex<[(at: Duration, onEventLoop: Bool)]>([])
    private let woken: AsyncStream<Duration>.Continuation
    let wakeUps: AsyncStream<Duration>

    init(_ name: String, eventLoop: (any EventLoop)? = nil) {
        self.name = name
        self.eventLoop = eventLoop
        (wakeUps, woken) = AsyncStream.makeStream(of: Duration.self)
    }

    var received: [Duration] { wakes.withLock { $0.map(\.at) } }
    var allOnEventLoop: Bool { wakes.withLock { $0.allSatisfy(\.onEventLoop) } }

    func deadlineReached(at now: Duration) {
        let onEventLoop = eventLoop?.inEventLoop ?? false
        wakes.withLock { $0.append((now, onEventLoop)) }
        woken.yield(now)
    }
}

@Suite("The socket factory's timer: one call for every socket's deadline, no task", .hangBound)
struct SocketTimerTests {
    @Test("many sockets' deadlines hold one call on the clock, re-armed only when the earliest moves")
    func oneCallForMany() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let clock = TestClock()
        let timer = SocketTimer(clock: SessionClock(clock), eventLoop: group.any())
        let (a, b, c) = (WokenTarget("a"), WokenTarget("b"), WokenTarget("c"))
        timer.schedule(a, at: .seconds(30))
        timer.schedule(b, at: .seconds(10))
        timer.schedule(c, at: .seconds(20))
        #expect(clock.pendingDeadlines == [.at(10)])
        #expect(timer.callsArmed == 2, "30, then 10; 20 moved nothing")
        clock.advance(to: .at(10))
        #expect(b.received == [.seconds(10)], "woken by the clock, with its time")
        #expect(a.received.isEmpty && c.received.isEmpty)
        #expect(clock.pendingDeadlines == [.at(20)])
        timer.schedule(c, at: nil)
        #expect(clock.pendingDeadlines == [.at(30)], "the forgotten deadline's call moved to the next")
        clock.advance(to: .at(40))
        #expect(a.received == [.seconds(40)])
        #expect(c.received.isEmpty)
        #expect(clock.pendingSleeps == 0, "nothing held: no call armed")
        #expect(timer.count == 0)
        try await group.shutdownGracefully()
    }

    @Test("a deadline already passed is called on the event loop, never from schedule (which runs under a lock)")
    func passedDeadline() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.any()
        let clock = TestClock()
        clock.advance(to: .at(5))
        let timer = SocketTimer(clock: SessionClock(clock), eventLoop: loop)
        let target = WokenTarget("late", eventLoop: loop)
        timer.schedule(target, at: .seconds(-10))
        var wakeUps = target.wakeUps.makeAsyncIterator()
        #expect(await wakeUps.next() == .zero)
        #expect(target.allOnEventLoop, "called on the event loop, not from schedule on the test's thread")
        #expect(clock.pendingSleeps == 0)
        try await group.shutdownGracefully()
    }

    @Test("on a real clock the call is a task scheduled on the event loop: it wakes sockets there")
    func realClock() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.any()
        let clock = SessionClock(ContinuousClock())
        let timer = SocketTimer(clock: clock, eventLoop: loop)
        let far = WokenTarget("far", eventLoop: loop)
        let due = WokenTarget("due", eventLoop: loop)
        timer.schedule(far, at: clock.elapsed() + .seconds(3600))
        timer.schedule(due, at: clock.elapsed())
        var wakeUps = due.wakeUps.makeAsyncIterator()
        _ = await wakeUps.next()
        #expect(due.allOnEventLoop, "called on the factory's event loop, by no task of its own")
        #expect(far.received.isEmpty)
        #expect(timer.count == 1)
        timer.schedule(far, at: nil)
        #expect(timer.count == 0)
        try await group.shutdownGracefully()
    }
}

@Suite("The test clock's callbacks: counted and handed over as sleeps")
struct TestClockCallbackTests {
    @Test("a callback is a pending sleep for the handshakes; advancing calls it once, cancelling forgets it")
    func callbacksAsSleeps() async {
        let clock = TestClock()
        let calls = Mutex(0)
        let id = clock.scheduleCallback(at: .at(10)) { calls.withLock { $0 += 1 } }
        #expect(id != nil)
        #expect(await clock.nextSleep() == .at(10), "handed over as a sleep")
        #expect(clock.pendingSleeps == 1)
        clock.advance(to: .at(9))
        #expect(calls.withLock { $0 } == 0)
        clock.advance(to: .at(10))
        #expect(calls.withLock { $0 } == 1)
        clock.advance(to: .at(20))
        #expect(calls.withLock { $0 } == 1, "called once")
        #expect(clock.pendingSleeps == 0)
        let cancelled = clock.scheduleCallback(at: .at(30)) { calls.withLock { $0 += 1 } }
        clock.cancelCallback(cancelled ?? -1)
        await clock.waitForPendingSleeps(0)
        clock.advance(to: .at(40))
        #expect(calls.withLock { $0 } == 1, "a cancelled callback is never called")
        #expect(clock.scheduleCallback(at: .at(40)) { calls.withLock { $0 += 1 } } == nil, "a passed deadline")
        #expect(calls.withLock { $0 } == 1, "and not called from scheduleCallback")
    }
}
