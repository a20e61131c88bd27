/// Reports whether the device has a network: the source of DEVICE_OFFLINE and DEVICE_ONLINE.
///
/// Lifeline ships ``LinuxNetworkMonitor`` (rtnetlink), `AppleNetworkMonitor` (`NWPathMonitor`, where the
/// Network framework exists) and ``ManualNetworkMonitor`` (tests and the command line).
public protocol NetworkMonitor: Sendable {
    /// The device's network status: the current status first, then every change, until the iterating
    /// task is cancelled.
    func statuses() -> AsyncStream<NetworkStatus>
}

/// Whether the device can reach a network.
public enum NetworkStatus: String, Sendable, Hashable, Codable {
    /// At least one interface other than loopback is up with an address.
    case online
    /// No interface other than loopback is usable.
    case offline

    /// Whether this is ``online``.
    public var isOnline: Bool { self == .online }
}
