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
package struct SessionClock: Sendable {
    /// The longest single sleep asked of the clock: `ServerHorizon.longestWait` (366 days).
    package static let longestSleep = ServerHorizon.longestWait

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
        sleepUntil = { offset in
            while true {
                let step = Self.step(towards: offset, now: elapsed())
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

    /// Where one sleep towards `offset` ends, and whether it is the last: `offset` itself; ``longestSleep``
    /// after `now` when `offset` is further; `now` when `offset` has passed (however long ago). Compares
    /// before it adds, so no offset overflows.
    package static func step(towards offset: Duration, now: Duration) -> (until: Duration, isLast: Bool) {
        let limit = now + longestSleep
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
