/// Why a connection failed in a way that may heal by itself: the payload of TEMPORARY_FAILURE.
///
/// A struct with an open set of codes rather than an enum, so that protocols and later versions can
/// add causes without breaking a `switch` in an app.
public struct TemporaryFailureCause: Sendable, Hashable, CustomStringConvertible {
    /// What kind of temporary failure this is.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The code's stable name, as printed in `--json` output.
        public var rawValue: String

        /// Creates a code from its stable name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The socket closed or was lost after it had opened (the specification's SOCKET_DROPPED).
        public static let socketDropped = Code(rawValue: "socketDropped")
        /// The socket could not be opened: refused, unreachable, TLS, or the upgrade was declined.
        public static let connectFailed = Code(rawValue: "connectFailed")
        /// No message arrived within the connect timeout after starting the connection.
        public static let connectTimeout = Code(rawValue: "connectTimeout")
        /// The initial data did not arrive within its deadline after authentication (extension).
        public static let readyTimeout = Code(rawValue: "readyTimeout")
        /// No Pong answered a heartbeat Ping in time.
        public static let heartbeatTimeout = Code(rawValue: "heartbeatTimeout")
        /// The server reported an error that does not invalidate the session.
        public static let serverError = Code(rawValue: "serverError")
        /// A request (for example the onboarding check) failed on the network.
        public static let requestFailed = Code(rawValue: "requestFailed")
        /// The peer sent something the protocol does not allow, so the connection was dropped.
        public static let protocolViolation = Code(rawValue: "protocolViolation")

        /// The code's stable name.
        public var description: String { rawValue }
    }

    /// What kind of failure this is.
    public var code: Code

    /// A human-readable detail (a close code, a server error kind), never containing a secret.
    public var detail: String?

    /// Creates a cause.
    ///
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - detail: A human-readable detail; must never contain a token or password.
    public init(_ code: Code, detail: String? = nil) {
        self.code = code
        self.detail = detail
    }

    /// A dropped socket: the specification's SOCKET_DROPPED.
    public static let socketDropped = TemporaryFailureCause(.socketDropped)

    /// The code, followed by the detail when there is one.
    public var description: String { detail.map { "\(code): \($0)" } ?? code.rawValue }
}
