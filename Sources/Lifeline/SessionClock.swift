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

    package init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        let elapsed: @Sendable () -> Duration = { origin.duration(to: clock.now) }
        self.elapsed = elapsed
        sleepUntil = { offset in
            while true {
                let step = Self.step(towards: offset, now: elapsed())
                try await clock.sleep(until: origin.advanced(by: step.until), tolerance: nil)
                if step.isLast { return }
            }
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
