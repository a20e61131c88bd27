import LifelineCore
import LifelineTesting
import Testing

@testable import Lifeline

/// The clock every timer sleeps on takes any offset a server's numbers can produce: a deadline past
/// `Int64.max` seconds once trapped inside `ContinuousClock.sleep(until:)` (a `UserSlowmodes` with
/// `retry_after` 2^63 − 1, at every launch).
@Suite("SessionClock: any deadline, never a trap, never early", .hangBound)
struct SessionClockTests {
    static let extremes: [Duration] = [
        .seconds(Int64.max) + .seconds(1), .seconds(Int64.max) * 10, .zero - .seconds(Int64.max) - .seconds(1),
        .zero - .seconds(Int64.max) * 10,
    ]

    /// The continuous clock, telling each deadline it is asked to sleep until before it sleeps.
    struct RecordingContinuousClock: Clock {
        let base = ContinuousClock()
        let requests: AsyncStream<ContinuousClock.Instant>.Continuation

        var now: ContinuousClock.Instant { base.now }
        var minimumResolution: Duration { base.minimumResolution }

        func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
            requests.yield(deadline)
            try await base.sleep(until: deadline, tolerance: tolerance)
        }
    }

    @Test(
        "a sleep towards an extreme deadline asks the continuous clock for at most the longest sleep, never a trap",
        arguments: extremes)
    func continuousClock(_ deadline: Duration) async throws {
        let (requests, continuation) = AsyncStream.makeStream(of: ContinuousClock.Instant.self)
        let real = RecordingContinuousClock(requests: continuation)
        let clock = SessionClock(real)
        let sleeper = Task { try await clock.sleepUntil(deadline) }
        var asked = requests.makeAsyncIterator()
        let instant = try #require(await asked.next())
        // `ContinuousClock.sleep(until:)` traps on an instant past `Int64.max` seconds: it is never asked one.
        #expect(real.now.duration(to: instant) <= SessionClock.longestSleep)
        sleeper.cancel()
        _ = await sleeper.result
    }

    @Test(
        "a sleep for a duration ends that long after now; an extreme one is stepped towards, never a trap",
        arguments: [Duration.seconds(Int64.max) * 10, .seconds(86_400)])
    func sleepFor(_ duration: Duration) async throws {
        let testClock = TestClock()
        let clock = SessionClock(testClock)
        testClock.advance(by: .seconds(7))
        let sleeper = Task { try await clock.sleep(for: .seconds(5)) }
        let deadline = await testClock.nextSleep()
        #expect(deadline.offset == .seconds(12), "five seconds after now, not after the clock's origin")
        testClock.advance(to: deadline)
        try await sleeper.value
        // The outbox's and the catch-up's waits (a slowmode's, up to a day, or a server's absurd number): the
        // continuous clock is asked for no instant it would trap on, and a day is a day.
        let (requests, continuation) = AsyncStream.makeStream(of: ContinuousClock.Instant.self)
        let real = RecordingContinuousClock(requests: continuation)
        let stepped = SessionClock(real)
        let waiter = Task { try await stepped.sleep(for: duration) }
        var asked = requests.makeAsyncIterator()
        let instant = try #require(await asked.next())
        let askedFor = real.now.duration(to: instant)
        #expect(askedFor <= SessionClock.longestSleep)
        #expect(askedFor > min(duration, SessionClock.longestSleep) - .seconds(60), "\(askedFor)")
        waiter.cancel()
        _ = await waiter.result
    }

    @Test("a deadline further than the longest sleep is slept towards in steps, and reached exactly")
    func steps() async throws {
        let testClock = TestClock()
        let clock = SessionClock(testClock)
        let deadline = SessionClock.longestSleep * 2 + .seconds(5)
        let sleeper = Task { try await clock.sleepUntil(deadline) }
        let first = await testClock.nextSleep()
        #expect(first.offset == SessionClock.longestSleep)
        testClock.advance(to: first)
        let second = await testClock.nextSleep()
        #expect(second.offset == SessionClock.longestSleep * 2)
        testClock.advance(to: second)
        let last = await testClock.nextSleep()
        #expect(last.offset == deadline, "never early: the last step ends at the deadline itself")
        testClock.advance(to: last)
        try await sleeper.value
    }

    @Test("one step of a sleep: the deadline, the longest sleep from now, or now for a deadline passed")
    func step() {
        let now = Duration.seconds(10)
        #expect(SessionClock.step(towards: .seconds(20), now: now) == (.seconds(20), true))
        #expect(
            SessionClock.step(towards: .seconds(Int64.max) * 10, now: now) == (now + SessionClock.longestSleep, false))
        #expect(SessionClock.step(towards: .zero - .seconds(Int64.max) * 10, now: now) == (now, true))
        #expect(
            SessionClock.step(towards: now + SessionClock.longestSleep, now: now) == (
                now + SessionClock.longestSleep, true
            ))
    }

    @Test("the runtime's clocks sleep at most 30 s at once, so a cancelled sleep is not kept for days")
    func runtimeClocksStepShort() {
        // The runtime keeps a cancelled `Task.sleep` until its deadline: a timer re-armed away from a far
        // deadline left one behind each time, and the soak's heap grew by them.
        #expect(SessionClock(ContinuousClock()).longestStep == SessionClock.runtimeSleepStep)
        #expect(SessionClock(SuspendingClock()).longestStep == SessionClock.runtimeSleepStep)
        #expect(SessionClock.runtimeSleepStep == .seconds(30))
        // A test clock drops a cancelled sleep at once, and its handshake sees the deadline itself.
        #expect(SessionClock(TestClock()).longestStep == SessionClock.longestSleep)
        let now = Duration.seconds(10)
        #expect(
            SessionClock.step(towards: .seconds(86_400), now: now, longest: SessionClock.runtimeSleepStep) == (
                now + .seconds(30), false
            ))
        #expect(
            SessionClock.step(towards: .seconds(25), now: now, longest: SessionClock.runtimeSleepStep) == (
                .seconds(25), true
            ))
        #expect(
            SessionClock.step(towards: .seconds(Int64.max) * 10, now: now, longest: .seconds(Int64.max))
                == (now + SessionClock.longestSleep, false), "never longer than the longest sleep")
    }

    @Test("a health service's absurd poll interval is bounded by the session: polled again within the bounds")
    func absurdPollInterval() async throws {
        let harness = Harness()
        harness.health.answer(
            .success(HealthStatus(alert: OutageAlert(text: "down"), pollInterval: .seconds(Int64.max) * 10)))
        var connection = await harness.connected()
        for _ in 1...2 {
            await connection.end(.temporary(.socketDropped))
            harness.clock.advance(to: await harness.clock.nextSleep())
            connection = await harness.connections.nextConnection()
        }
        await connection.end(.temporary(.socketDropped))
        let upper = Session.Configuration().healthPollBounds.upperBound
        let poll = await harness.clock.nextSleep { harness.clock.now.duration(to: $0) == upper }
        #expect(harness.clock.now.duration(to: poll) == upper)
        #expect(harness.health.checks == 1)
        await harness.stop()
    }
}
