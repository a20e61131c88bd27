import LifelineCore

/// An error a ``Session`` reports: thrown by its API, and shown as ``SessionSnapshot/lastError``.
public struct SessionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of error this is.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
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

        /// The code's stable name.
        public var description: String { rawValue }
    }

    /// What kind of error this is.
    public var code: Code
    /// A message for people; never contains a token or password.
    public var message: String
    /// The error that caused this one, if any (not part of equality).
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// The error for a connection that ended.
    init(_ end: ConnectionEnd) {
        switch end {
        case .temporary(let cause): self.init(.temporaryFailure, cause.description)
        case .permanent(let reason): self.init(.permanentFailure, reason.description)
        case .loggedOut: self.init(.loggedOut, "The server ended the session.")
        }
    }

    /// The code and the message.
    public var description: String { "\(code): \(message)" }

    /// Errors are equal when their codes and messages are.
    public static func == (lhs: SessionError, rhs: SessionError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }

    /// Hashes the code and the message.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }
}
