/// An `Error` event: `{"type":"Error","data":{"type":KIND,"location":…}}` from bonfire,
/// `{"type":"Error","data":{"type":KIND,"detail":…}}` from Stoat's new events server.
public struct BonfireError: Sendable, Hashable, CustomStringConvertible {
    /// The error's kind (`InvalidSession`, `NotAuthenticated`, `InvalidPayload`, `InternalError`, …).
    public var kind: String
    /// Where the server raised it, if it says.
    public var location: String?
    /// What the server says about it, if anything (the gateway's `detail`: `Invalid token provided`…).
    public var detail: String?

    /// Creates an error.
    public init(kind: String, location: String? = nil, detail: String? = nil) {
        self.kind = kind
        self.location = location
        self.detail = detail
    }

    /// Whether the error says the session cannot authenticate, so the failure is permanent:
    /// `InvalidSession`, `InvalidToken`, `NotAuthenticated`, `UnverifiedAccount`.
    public var isAuthenticationError: Bool {
        ["InvalidSession", "InvalidToken", "NotAuthenticated", "UnverifiedAccount"].contains(kind)
    }

    /// The kind.
    public var description: String { kind }
}
