/// Why a session cannot go on: the payload of PERMANENT_FAILURE.
///
/// A struct with an open set of codes, like ``TemporaryFailureCause``.
public struct PermanentFailureReason: Sendable, Hashable, CustomStringConvertible {
    /// What kind of permanent failure this is.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The code's stable name, as printed in `--json` output.
        public var rawValue: String

        /// Creates a code from its stable name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The server no longer accepts the session (Stoat's `InvalidSession`). The lifecycle looks up
        /// the account's standing to tailor the error.
        public static let invalidSession = Code(rawValue: "invalidSession")
        /// The server refused authentication for another reason (for example `InvalidToken`).
        public static let authenticationFailed = Code(rawValue: "authenticationFailed")
        /// The account was disabled by its owner.
        public static let accountDisabled = Code(rawValue: "accountDisabled")

        /// The code's stable name.
        public var description: String { rawValue }
    }

    /// What kind of failure this is.
    public var code: Code

    /// A human-readable detail (the server's error kind), never containing a secret.
    public var detail: String?

    /// Creates a reason.
    ///
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - detail: A human-readable detail; must never contain a token or password.
    public init(_ code: Code, detail: String? = nil) {
        self.code = code
        self.detail = detail
    }

    /// The session is invalid: Stoat's `InvalidSession`.
    public static let invalidSession = PermanentFailureReason(.invalidSession)

    /// The code, followed by the detail when there is one.
    public var description: String { detail.map { "\(code): \($0)" } ?? code.rawValue }
}
