/// Whether the device can reach a network.
public enum NetworkStatus: String, Sendable, Hashable, Codable {
    /// At least one interface other than loopback is up with an address.
    case online
    /// No interface other than loopback is usable.
    case offline

    /// Whether this is ``online``.
    public var isOnline: Bool { self == .online }
}
