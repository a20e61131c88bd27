/// A `Clock` with `Duration` as its duration, erased to offsets from the moment it was wrapped (for a
/// session, its creation). `package`, so the protocol modules time their sockets on the same clock.
///
/// The runtime measures every time as "elapsed since this session was created" on the injected clock, so
/// one `Session` type works with `ContinuousClock`, a test clock, or any other clock, and its snapshots
/// can state deadlines without naming the clock's `Instant` type.
package struct SessionClock: Sendable {
    /// The time elapsed on the clock since the session was created.
    package let elapsed: @Sendable () -> Duration
    /// Sleeps until `elapsed()` reaches the offset; throws `CancellationError` when cancelled.
    package let sleepUntil: @Sendable (Duration) async throws -> Void

    package init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
        sleepUntil = { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
    }
}
