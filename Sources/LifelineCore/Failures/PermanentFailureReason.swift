/// Why a session cannot go on: the payload of PERMANENT_FAILURE.
///
/// The same shape as ``TemporaryFailureCause`` (``CodedError``): a ``PermanentFailureCode`` from an open set, a
/// message, and the error that caused it.
public typealias PermanentFailureReason = CodedError<PermanentFailureCode>

/// What kind of permanent failure a ``PermanentFailureReason`` is.
public struct PermanentFailureCode: LifelineErrorCode, RawRepresentable {
    /// The code's stable name, as printed in `--json` output.
    public var rawValue: String

    /// Creates a code from its stable name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The server no longer accepts the session (Stoat's `InvalidSession`). A connection that meets it
    /// has it confirmed before the lifecycle gives up (``SessionCheckPolicy``), then looks up the
    /// account's standing to tailor the error.
    public static let invalidSession = PermanentFailureCode(rawValue: "invalidSession")
    /// The server ended the session while it was being authenticated (Stoat's `Logout`).
    public static let loggedOut = PermanentFailureCode(rawValue: "loggedOut")
    /// The server refused authentication for another reason (for example `InvalidToken`).
    public static let authenticationFailed = PermanentFailureCode(rawValue: "authenticationFailed")
    /// The account was disabled by its owner.
    public static let accountDisabled = PermanentFailureCode(rawValue: "accountDisabled")
}

extension PermanentFailureReason {
    /// The session is invalid: Stoat's `InvalidSession`.
    public static var invalidSession: PermanentFailureReason {
        PermanentFailureReason(code: .invalidSession, message: "InvalidSession")
    }
}
