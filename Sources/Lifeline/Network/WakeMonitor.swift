/// Reports that the device woke from a suspend: the source of DEVICE_WOKE, on which a connected session
/// checks its socket at once instead of waiting for the heartbeat (see `SessionEvent.deviceWoke`).
///
/// Lifeline ships ``LinuxWakeMonitor`` (`CLOCK_BOOTTIME` running ahead of `CLOCK_MONOTONIC`),
/// `AppleWakeMonitor` (the system's wake notification on macOS, the app's return to the foreground on iOS)
/// and ``ManualWakeMonitor`` (tests, and apps that learn of a wake some other way). A session is given one
/// through `Session.Configuration.wakeMonitor`; ``SystemWakeMonitor/make(tick:)`` makes the platform's.
public protocol WakeMonitor: Sendable {
    /// Every wake from now on, until the iterating task is cancelled. Unlike a network status, a wake is an
    /// event, not a state: a subscriber hears only the wakes after it subscribed.
    func wakes() -> AsyncStream<DeviceWake>
}
