/// A `Clock` with `Duration` as its duration, erased to offsets from the moment the session was made.
///
/// The runtime measures every time as "elapsed since this session was created" on the injected clock, so
/// one `Session` type works with `ContinuousClock`, a test clock, or any other clock, and its snapshots
/// can state deadlines without naming the clock's `Instant` type.
struct SessionClock: Sendable {
    /// The time elapsed on the clock since the session was created.
    let elapsed: @Sendable () -> Duration
    /// Sleeps until `elapsed()` reaches the offset; throws `CancellationError` when cancelled.
    let sleepUntil: @Sendable (Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
        sleepUntil = { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
    }
}
