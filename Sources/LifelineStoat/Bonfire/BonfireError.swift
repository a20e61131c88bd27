public import LifelineCore

/// An `Error` event: `{"type":"Error","data":{"type":KIND,"location":…}}` from bonfire,
/// `{"type":"Error","data":{"type":KIND,"detail":…}}` from Stoat's new events server.
///
/// A `LifelineError` whose ``code`` is the server's kind, verbatim (an unknown kind is kept as the code's raw
/// value) and whose ``message`` is what the server said (its ``detail``, else the kind).
public struct BonfireError: LifelineError, Sendable, Hashable {
    /// The server's error kind, as a code: its raw value is the kind verbatim.
    public struct Code: LifelineErrorCode, RawRepresentable {
        /// The kind, as the server sent it.
        public var rawValue: String

        /// Creates a code from the server's kind.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The session is not (or no longer) valid.
        public static let invalidSession = Code(rawValue: "InvalidSession")
        /// The token is not one the server issued.
        public static let invalidToken = Code(rawValue: "InvalidToken")
        /// The socket has not authenticated.
        public static let notAuthenticated = Code(rawValue: "NotAuthenticated")
        /// The account's email is not verified.
        public static let unverifiedAccount = Code(rawValue: "UnverifiedAccount")
        /// The server refused a frame the client sent (and closes the connection next).
        public static let invalidPayload = Code(rawValue: "InvalidPayload")
        /// The server failed.
        public static let internalError = Code(rawValue: "InternalError")
    }

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

    /// The kind, as a code.
    public var code: Code { Code(rawValue: kind) }

    /// What the server said about it: its ``detail``, else the kind.
    public var message: String { detail ?? kind }

    /// Always `nil`: the error is the server's.
    public var cause: (any Error)? { nil }

    /// Whether the error says the session cannot authenticate, so the failure is permanent:
    /// `InvalidSession`, `InvalidToken`, `NotAuthenticated`, `UnverifiedAccount`.
    public var isAuthenticationError: Bool {
        [.invalidSession, .invalidToken, .notAuthenticated, .unverifiedAccount].contains(code)
    }

    /// The kind.
    public var description: String { kind }

    /// Errors are equal when their kinds, locations and details are.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.kind == rhs.kind && lhs.location == rhs.location && lhs.detail == rhs.detail
    }

    /// Hashes what equality compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(location)
        hasher.combine(detail)
    }
}
