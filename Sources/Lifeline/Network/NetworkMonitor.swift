/// Reports whether the device has a network: the source of DEVICE_OFFLINE and DEVICE_ONLINE.
///
/// Lifeline ships ``LinuxNetworkMonitor`` (rtnetlink), `AppleNetworkMonitor` (`NWPathMonitor`, where the
/// Network framework exists) and ``ManualNetworkMonitor`` (tests and the command line).
public protocol NetworkMonitor: Sendable {
    /// The device's network status: the current status first, then every change, until the iterating
    /// task is cancelled.
    func statuses() -> AsyncStream<NetworkStatus>
}
