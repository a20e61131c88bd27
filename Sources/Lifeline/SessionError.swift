public import LifelineCore

/// An error a ``Session`` reports: thrown by its API, and shown as ``SessionSnapshot/lastError``.
///
/// Lifeline's one error shape: a ``Code`` from an open set, a message for people, and the error that
/// caused it — for a connection failure, the typed `TemporaryFailureCause` or
/// `PermanentFailureReason`.
public struct SessionError: LifelineError, Sendable, Hashable {
    /// What kind of error this is.
    public struct Code: LifelineErrorCode, RawRepresentable {
        /// The code's stable name.
        public var rawValue: String

        /// Creates a code from its stable name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The connection failed in a way that may heal (TEMPORARY_FAILURE).
        public static let temporaryFailure = Code(rawValue: "temporaryFailure")
        /// The session is no longer valid (PERMANENT_FAILURE).
        public static let permanentFailure = Code(rawValue: "permanentFailure")
        /// The server ended the session.
        public static let loggedOut = Code(rawValue: "loggedOut")
        /// Onboarding could not be completed (for example, the username is taken).
        public static let onboardingFailed = Code(rawValue: "onboardingFailed")
        /// The call does not fit the session's current state (for example, a username outside ONBOARDING).
        public static let wrongState = Code(rawValue: "wrongState")
    }

    /// What kind of error this is.
    public var code: Code
    /// A message for people; never contains a token or password.
    public var message: String
    /// The error that caused this one, if any (not part of equality): the failure's typed cause for
    /// ``Code/temporaryFailure`` and ``Code/permanentFailure``, the server's refusal for
    /// ``Code/onboardingFailed``.
    public var cause: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of error this is.
    ///   - message: A message for people; must never contain a token or password.
    ///   - cause: The error that caused this one, if any.
    public init(code: Code, message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The error for a failure the lifecycle took an edge on: the failure's message, the failure as the
    /// cause.
    init(_ failure: SessionFailure) {
        switch failure {
        case .temporary(let cause): self.init(code: .temporaryFailure, message: cause.message, cause: cause)
        case .permanent(let reason): self.init(code: .permanentFailure, message: reason.message, cause: reason)
        case .loggedOut: self.init(code: .loggedOut, message: "The server ended the session.")
        }
    }

    /// The error for what the machine recorded as the session's last error.
    init(_ lastError: SessionMachine.LastError) {
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
