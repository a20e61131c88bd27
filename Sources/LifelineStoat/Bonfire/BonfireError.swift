public import LifelineCore

/// An `Error` event: `{"type":"Error","data":{"type":KIND,"location":…}}` from bonfire,
/// `{"type":"Error","data":{"type":KIND,"detail":…}}` from Stoat's new events server.
///
/// Lifeline's one error shape, `CodedError` over ``BonfireErrorCode``: its code is the server's kind,
/// verbatim (an unknown kind is kept as the code's raw value), its message what the server said (its `detail`,
/// else the kind), and its details (``BonfireErrorDetails``: `location`, `detail`) are read as its own
/// properties. It has no cause: the error is the server's.
public typealias BonfireError = CodedError<BonfireErrorCode>

/// The server's error kind, as a ``BonfireError``'s code: its raw value is the kind verbatim.
public struct BonfireErrorCode: LifelineErrorCode, RawRepresentable {
    /// Where the server raised the error and what it said.
    public typealias Details = BonfireErrorDetails

    /// The kind, as the server sent it.
    public var rawValue: String

    /// Creates a code from the server's kind.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The session is not (or no longer) valid.
    public static let invalidSession = Self(rawValue: "InvalidSession")
    /// The token is not one the server issued.
    public static let invalidToken = Self(rawValue: "InvalidToken")
    /// The socket has not authenticated.
    public static let notAuthenticated = Self(rawValue: "NotAuthenticated")
    /// The account's email is not verified.
    public static let unverifiedAccount = Self(rawValue: "UnverifiedAccount")
    /// The server refused a frame the client sent (and closes the connection next).
    public static let invalidPayload = Self(rawValue: "InvalidPayload")
    /// The server failed.
    public static let internalError = Self(rawValue: "InternalError")

    /// ` at location` when the server said where.
    public static func describing(_ details: Details) -> String { details.location.map { " at \($0)" } ?? "" }
}

/// What a ``BonfireError`` carries beside its code and message.
public struct BonfireErrorDetails: Sendable, Hashable {
    /// Where the server raised it, if it says.
    public var location: String?
    /// What the server says about it, if anything (the gateway's `detail`: `Invalid token provided`…).
    public var detail: String?

    /// Creates details.
    ///
    /// - Parameters:
    ///   - location: Where the server raised the error, if it says.
    ///   - detail: What the server says about it, if anything.
    public init(location: String? = nil, detail: String? = nil) {
        self.location = location
        self.detail = detail
    }
}

extension CodedError where Code == BonfireErrorCode {
    /// Creates the error the server sent.
    ///
    /// - Parameters:
    ///   - kind: The server's error kind (`type`), verbatim.
    ///   - location: Where the server raised it, if it says.
    ///   - detail: What the server says about it, if anything; the message, else the kind is.
    public init(kind: String, location: String? = nil, detail: String? = nil) {
        self.init(
            code: Code(rawValue: kind), message: detail ?? kind,
            details: BonfireErrorDetails(location: location, detail: detail))
    }

    /// The error's kind (`InvalidSession`, `NotAuthenticated`, `InvalidPayload`, `InternalError`, …): its
    /// code's raw value.
    public var kind: String { code.rawValue }

    /// Whether the error says the session cannot authenticate, so the failure is permanent:
    /// `InvalidSession`, `InvalidToken`, `NotAuthenticated`, `UnverifiedAccount`.
    public var isAuthenticationError: Bool {
        [.invalidSession, .invalidToken, .notAuthenticated, .unverifiedAccount].contains(code)
    }
}
