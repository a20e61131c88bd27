/// An `Error` event: `{"type":"Error","data":{"type":KIND,"location":…}}`.
public struct BonfireError: Sendable, Hashable, CustomStringConvertible {
    /// The error's kind (`InvalidSession`, `NotAuthenticated`, `InternalError`, …).
    public var kind: String
    /// Where the server raised it, if it says.
    public var location: String?

    /// Creates an error.
    public init(kind: String, location: String? = nil) {
        self.kind = kind
        self.location = location
    }

    /// Whether the error says the session cannot authenticate, so the failure is permanent:
    /// `InvalidSession`, `InvalidToken`, `NotAuthenticated`, `UnverifiedAccount`.
    public var isAuthenticationError: Bool {
        ["InvalidSession", "InvalidToken", "NotAuthenticated", "UnverifiedAccount"].contains(kind)
    }

    /// The kind.
    public var description: String { kind }
}
