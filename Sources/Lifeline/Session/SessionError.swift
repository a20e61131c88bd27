public import LifelineCore

/// An error a ``Session`` reports: thrown by its API, and shown as ``SessionSnapshot/lastError``.
///
/// Lifeline's one error shape (`CodedError`): a code from an open set (``SessionErrorCode``), a message for
/// people, and the error that caused it — for a connection failure, the typed `TemporaryFailureCause` or
/// `PermanentFailureReason`.
public typealias SessionError = CodedError<SessionErrorCode>

/// What kind of error a ``SessionError`` is. For ``temporaryFailure`` and ``permanentFailure`` the error's
/// cause is the failure's typed `TemporaryFailureCause` or `PermanentFailureReason`; for ``onboardingFailed``,
/// the server's refusal.
public struct SessionErrorCode: LifelineErrorCode, RawRepresentable {
    /// The code's stable name.
    public var rawValue: String

    /// Creates a code from its stable name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The connection failed in a way that may heal (TEMPORARY_FAILURE).
    public static let temporaryFailure = SessionErrorCode(rawValue: "temporaryFailure")
    /// The session is no longer valid (PERMANENT_FAILURE).
    public static let permanentFailure = SessionErrorCode(rawValue: "permanentFailure")
    /// The server ended the session.
    public static let loggedOut = SessionErrorCode(rawValue: "loggedOut")
    /// Onboarding could not be completed (for example, the username is taken).
    public static let onboardingFailed = SessionErrorCode(rawValue: "onboardingFailed")
    /// The call does not fit the session's current state (for example, a username outside ONBOARDING).
    public static let wrongState = SessionErrorCode(rawValue: "wrongState")
}

extension SessionError {
    /// The error for a failure the lifecycle took an edge on: the failure's message, the failure as the
    /// cause — what ``SessionSnapshot/lastError`` holds while the failure is the last one.
    ///
    /// - Parameter failure: A transition's cause (``SessionTransition/cause``).
    public init(_ failure: SessionFailure) {
        switch failure {
        case .temporary(let cause): self.init(code: .temporaryFailure, message: cause.message, cause: cause)
        case .permanent(let reason): self.init(code: .permanentFailure, message: reason.message, cause: reason)
        case .loggedOut: self.init(code: .loggedOut, message: "The server ended the session.")
        }
    }

    /// The error for what the machine recorded as the session's last error.
    init<TimerToken, ConnectionToken>(_ lastError: SessionMachine<TimerToken, ConnectionToken>.LastError) {
        switch lastError {
        case .failure(let failure): self.init(failure)
        case .onboardingRefused(let message, let cause):
            self.init(code: .onboardingFailed, message: message, cause: cause)
        }
    }

    /// The failure this error stands for, when it is a connection failure.
    public var failure: SessionFailure? {
        switch cause {
        case let cause as TemporaryFailureCause: .temporary(cause)
        case let reason as PermanentFailureReason: .permanent(reason)
        default: nil
        }
    }
}
