import LifelineCore

/// A `Clock` with `Duration` as its duration, erased to offsets from the moment it was wrapped (for a
/// session, its creation). `package`, so the protocol modules time their sockets on the same clock.
///
/// The runtime measures every time as "elapsed since this session was created" on the injected clock, so
/// one `Session` type works with `ContinuousClock`, a test clock, or any other clock, and its snapshots
/// can state deadlines without naming the clock's `Instant` type.
///
/// A sleep is never asked of the clock for longer than ``longestSleep`` at once: a deadline further away is
/// slept towards in steps, so that no offset — however far a server pushed it — reaches a clock's own
/// conversions (`ContinuousClock` traps on a deadline past `Int64.max` seconds). It is never woken early.
///
/// On `ContinuousClock` and `SuspendingClock` the steps are at most ``runtimeSleepStep`` (30 s). Decision: the
/// Swift runtime keeps a cancelled `Task.sleep` (its task and its dispatch timer, about 1 KB) until the
/// sleep's deadline (swiftlang/swift#60441), and a timer re-armed away from a deadline days off — a member
/// timeout the server set, re-read at each `Ready` — cancelled one such sleep each time: the soak's live heap
/// grew by them for as long as it ran. A step of 30 s keeps a cancelled sleep for 30 s at most, for one more
/// wake-up each 30 s of a far deadline (a heartbeat's rhythm).
package struct SessionClock: Sendable {
    /// The longest single sleep asked of the clock: `ServerHorizon.longestWait` (366 days).
    package static let longestSleep = ServerHorizon.longestWait
    /// The longest single sleep asked of `ContinuousClock` or `SuspendingClock`, whose cancelled sleeps the
    /// runtime keeps until their deadlines.
    package static let runtimeSleepStep: Duration = .seconds(30)

    /// The longest single sleep asked of this clock: ``runtimeSleepStep`` for the runtime's clocks,
    /// ``longestSleep`` for any other (a test clock drops a cancelled sleep at once, and its handshake sees
    /// the deadline itself).
    package let longestStep: Duration
    /// Whether this is one of the runtime's clocks (`ContinuousClock`, `SuspendingClock`), which measure the wall
    /// time that network I/O takes; a test's clock does not, so I/O cannot be bounded by its durations.
    package let measuresWallTime: Bool

    /// The time elapsed on the clock since the session was created.
    package let elapsed: @Sendable () -> Duration
    /// Sleeps until `elapsed()` reaches the offset; throws `CancellationError` when cancelled.
    package let sleepUntil: @Sendable (Duration) async throws -> Void
    /// For a clock that calls back without a task sleeping (``CallbackClock``, the test clock): schedules a
    /// call at an offset, returning how to cancel it, or `nil` (and no call) when the offset has passed.
    /// `nil` for any other clock.
    package let scheduleCallback: (@Sendable (Duration, @escaping @Sendable () -> Void) -> (@Sendable () -> Void)?)?

    package init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        let elapsed: @Sendable () -> Duration = { origin.duration(to: clock.now) }
        self.elapsed = elapsed
        scheduleCallback = (clock as? any CallbackClock<Duration>).map { Self.callbacks(of: $0, elapsed: elapsed) }
        let longestStep = Self.longestStep(of: C.self)
        self.longestStep = longestStep
        measuresWallTime = C.self == ContinuousClock.self || C.self == SuspendingClock.self
        sleepUntil = { offset in
            while true {
                let step = Self.step(towards: offset, now: elapsed(), longest: longestStep)
                try await clock.sleep(until: origin.advanced(by: step.until), tolerance: nil)
                if step.isLast { return }
            }
        }
    }

    private static func callbacks<CC: CallbackClock<Duration>>(
        of clock: CC, elapsed: @escaping @Sendable () -> Duration
    ) -> @Sendable (Duration, @escaping @Sendable () -> Void) -> (@Sendable () -> Void)? {
        let origin = clock.now.advanced(by: .zero - elapsed())
        return { offset, body in
            // As a sleep: never further than `longestSleep` at once (the caller re-arms when nothing is due).
            let step = Self.step(towards: offset, now: elapsed())
            guard let id = clock.scheduleCallback(at: origin.advanced(by: step.until), body) else { return nil }
            return { clock.cancelCallback(id) }
        }
    }

    /// Sleeps for `duration` from now, in the steps ``sleepUntil`` takes (so a cancelled sleep on a runtime clock
    /// is kept at most ``runtimeSleepStep``); throws `CancellationError` when cancelled. A duration beyond a
    /// century is slept as a century: no server number reaches the clock's own arithmetic.
    package func sleep(for duration: Duration) async throws {
        let century = Duration.seconds(100 * 366 * 86_400)
        try await sleepUntil(elapsed() + min(max(duration, .zero), century))
    }

    /// The longest single sleep asked of a clock of type `clock` (see ``longestStep``).
    package static func longestStep<C: Clock>(of clock: C.Type) -> Duration {
        clock == ContinuousClock.self || clock == SuspendingClock.self ? runtimeSleepStep : longestSleep
    }

    /// Where one sleep towards `offset` ends, and whether it is the last: `offset` itself; `longest` (at most
    /// ``longestSleep``) after `now` when `offset` is further; `now` when `offset` has passed (however long
    /// ago). Compares before it adds, so no offset overflows.
    package static func step(
        towards offset: Duration, now: Duration, longest: Duration = longestSleep
    ) -> (until: Duration, isLast: Bool) {
        let limit = now + min(longest, longestSleep)
        if offset > limit { return (limit, false) }
        return (max(offset, now), true)
    }
}

/// A clock that calls back at a deadline without a task sleeping for it, as `LifelineTesting`'s test clock
/// does: what lets a timer that has no task of its own (the socket factory's) run on an injected clock.
package protocol CallbackClock<Duration>: Clock {
    /// Calls `body` once the clock reaches `deadline`; returns the call's id, or `nil` (and never calls
    /// `body`) when `deadline` has passed.
    func scheduleCallback(at deadline: Instant, _ body: @escaping @Sendable () -> Void) -> Int?
    /// Forgets a scheduled call, unless it was made already.
    func cancelCallback(_ id: Int)
}
