/// The banner over the client UI in a logged-in state other than CONNECTED.
public enum Banner: String, Sendable, Hashable, CaseIterable, Codable {
    /// CONNECTING.
    case connecting = "Connecting"
    /// DISCONNECTED.
    case disconnected = "Disconnected"
    /// RECONNECTING.
    case reconnecting = "Reconnecting"
    /// OFFLINE.
    case deviceOffline = "Device offline"

    /// The banner's text, exactly as the specification words it.
    public var text: String { rawValue }
}
