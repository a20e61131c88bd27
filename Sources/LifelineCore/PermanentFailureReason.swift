/// Why a session cannot go on: the payload of PERMANENT_FAILURE.
///
/// The same shape as ``TemporaryFailureCause``: a ``Code`` from an open set, a message, and the error
/// that caused it.
public struct PermanentFailureReason: LifelineError, Sendable, Hashable {
    /// What kind of permanent failure this is.
    public struct Code: LifelineErrorCode, RawRepresentable {
        /// The code's stable name, as printed in `--json` output.
        public var rawValue: String

        /// Creates a code from its stable name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The server no longer accepts the session (Stoat's `InvalidSession`). A connection that meets it
        /// has it confirmed before the lifecycle gives up (``SessionCheckPolicy``), then looks up the
        /// account's standing to tailor the error.
        public static let invalidSession = Code(rawValue: "invalidSession")
        /// The server ended the session while it was being authenticated (Stoat's `Logout`).
        public static let loggedOut = Code(rawValue: "loggedOut")
        /// The server refused authentication for another reason (for example `InvalidToken`).
        public static let authenticationFailed = Code(rawValue: "authenticationFailed")
        /// The account was disabled by its owner.
        public static let accountDisabled = Code(rawValue: "accountDisabled")
    }

    /// What kind of failure this is.
    public var code: Code

    /// A message for people (the server's error kind), never containing a secret.
    public var message: String

    /// The error that caused this one, if any. Not part of equality.
    public var cause: (any Error)? {
        get { causeBox?.error }
        set { causeBox = newValue.map(ErrorBox.init) }
    }

    /// The cause, boxed: one reference instead of an existential, so that the events and transitions
    /// that carry this value stay cheap to copy.
    private var causeBox: ErrorBox?

    /// Creates a reason.
    ///
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - message: A message for people; must never contain a token or password.
    ///   - cause: The error that caused this one, if any.
    public init(code: Code, message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.causeBox = cause.map(ErrorBox.init)
    }

    /// The session is invalid: Stoat's `InvalidSession`.
    public static let invalidSession = PermanentFailureReason(code: .invalidSession, message: "InvalidSession")
}
