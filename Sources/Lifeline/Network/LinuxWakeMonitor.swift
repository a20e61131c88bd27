#if os(Linux)
    import Glibc
#endif

/// Notices a suspend on Linux: `CLOCK_BOOTTIME` counts the time the system was suspended and
/// `CLOCK_MONOTONIC` does not, so the first running ahead of the second, between two ticks, by more than a
/// threshold, is a wake.
///
/// The monitor reads the two clocks on a coarse tick (2 s by default) of its own clock, which a test replaces
/// with a `TestClock`, as it replaces the clocks' readings. No thread and no system notification: one sleeping
/// task per subscriber, which a suspended system does not run, so the first tick after the wake sees the whole
/// suspend. A wake is noticed within a tick of the device resuming.
public struct LinuxWakeMonitor: WakeMonitor {
    /// One reading of the two clocks.
    public struct Reading: Sendable, Hashable {
        /// Time since boot, the suspends included (`CLOCK_BOOTTIME`).
        public var boot: Duration
        /// Time since boot without the suspends (`CLOCK_MONOTONIC`).
        public var monotonic: Duration

        /// Creates a reading.
        public init(boot: Duration, monotonic: Duration) {
            self.boot = boot
            self.monotonic = monotonic
        }

        /// How long the system was suspended since boot: how far the boot clock ran ahead.
        public var suspended: Duration { boot - monotonic }
    }

    private let tick: Duration
    private let threshold: Duration
    private let sleep: @Sendable (Duration) async throws -> Void
    private let read: @Sendable () -> Reading

    /// Creates a monitor on the system's clocks.
    ///
    /// - Parameters:
    ///   - tick: How often the clocks are compared; positive. Default 2 s.
    ///   - threshold: How much suspended time between two ticks makes a wake; positive. Default 1 s: the two
    ///     clocks drift apart by microseconds while the system runs, so a shorter suspend than this goes
    ///     unnoticed, which costs nothing (the heartbeat still covers it).
    public init(tick: Duration = .seconds(2), threshold: Duration = .seconds(1)) {
        self.init(tick: tick, threshold: threshold, clock: ContinuousClock(), reading: Self.systemReading)
    }

    /// Creates a monitor that ticks on `clock` and reads the two clocks with `reading`: for tests.
    ///
    /// - Parameters:
    ///   - tick: How often the clocks are compared; positive.
    ///   - threshold: How much suspended time between two ticks makes a wake; positive.
    ///   - clock: The clock the ticks sleep on.
    ///   - reading: Reads the boot and monotonic clocks.
    public init<C: Clock<Duration>>(
        tick: Duration, threshold: Duration, clock: C, reading: @escaping @Sendable () -> Reading
    ) {
        precondition(tick > .zero, "the tick must be positive, got \(tick)")
        precondition(threshold > .zero, "the threshold must be positive, got \(threshold)")
        self.tick = tick
        self.threshold = threshold
        sleep = { duration in try await clock.sleep(for: duration) }
        read = reading
    }

    /// The system's two clocks now; on a system without `CLOCK_BOOTTIME`, two equal readings (no suspend is
    /// ever seen).
    public static let systemReading: @Sendable () -> Reading = {
        #if os(Linux)
            var boot = timespec()
            var monotonic = timespec()
            // The monotonic clock first: the boot clock, read after it, is never behind it.
            guard clock_gettime(CLOCK_MONOTONIC, &monotonic) == 0, clock_gettime(CLOCK_BOOTTIME, &boot) == 0 else {
                return Reading(boot: .zero, monotonic: .zero)
            }
            return Reading(
                boot: .seconds(boot.tv_sec) + .nanoseconds(boot.tv_nsec),
                monotonic: .seconds(monotonic.tv_sec) + .nanoseconds(monotonic.tv_nsec))
        #else
            return Reading(boot: .zero, monotonic: .zero)
        #endif
    }

    /// Every wake after the call, until the iterating task is cancelled.
    public func wakes() -> AsyncStream<DeviceWake> {
        let (stream, continuation) = AsyncStream.makeStream(of: DeviceWake.self, bufferingPolicy: .bufferingNewest(16))
        let task = Task { [tick, threshold, sleep, read] in
            var last = read().suspended
            while !Task.isCancelled {
                do {
                    try await sleep(tick)
                } catch {
                    break
                }
                let suspended = read().suspended
                if suspended - last >= threshold { continuation.yield(DeviceWake(suspended: suspended - last)) }
                last = suspended
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
