/// A wake monitor told of each wake by hand: for tests, for `lifeline bench`'s simulated suspend, and for apps
/// that learn of a wake some other way (a scene phase, a push).
public final class ManualWakeMonitor: WakeMonitor {
    /// The wakes and their subscribers. A subscriber that does not read keeps the newest 16 wakes: one is as
    /// good as many, and the bound holds however long it does not read.
    private let broadcaster = Broadcaster<DeviceWake>(buffering: .newest(16))

    /// Creates a monitor.
    public init() {}

    /// Tells every subscriber that the device woke.
    ///
    /// - Parameter suspended: How long it was suspended, if known.
    public func wake(suspended: Duration? = nil) {
        broadcaster.publish(DeviceWake(suspended: suspended))
    }

    /// Every wake after the call.
    public func wakes() -> AsyncStream<DeviceWake> {
        broadcaster.subscribe()
    }
}
