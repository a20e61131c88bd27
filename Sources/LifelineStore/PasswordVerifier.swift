public import LifelineCore

/// Checks an account's password with the server: the caller's side of the sign-in flow.
///
/// The store never talks to the network. A Stoat client implements this with a login
/// (`POST /auth/session/login`); the answer decides between "wrong password", "encryption failure" and
/// creating the database. Implementations finish any multi-factor step themselves, or answer
/// ``PasswordVerification/failed(_:)`` with ``PasswordVerificationFailure/Code/mfaRequired``.
public protocol PasswordVerifier: Sendable {
    /// Asks the server whether `password` is the account's password.
    ///
    /// - Parameters:
    ///   - email: The account's email.
    ///   - password: The password the user typed. Never log it.
    /// - Returns: The server's answer; a verified password comes with the session the login created.
    func verifyPassword(email: String, password: String) async -> PasswordVerification
}

/// The server's answer to a password check.
public enum PasswordVerification: Sendable {
    /// The password is right; the login created this session.
    case verified(SessionCredentials)
    /// The server says the email and password do not match.
    case wrongPassword
    /// The server could not be reached (no network, timeout, 5xx): the password is neither right nor wrong.
    case unreachable
    /// The server answered with another failure: multi-factor needed, account disabled, rate limited…
    case failed(PasswordVerificationFailure)
}

/// A server's answer to a password check that is neither "right" nor "wrong".
public struct PasswordVerificationFailure: Error, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name.
        public let name: String

        /// Creates a code. Prefer the static members; a verifier may add its own.
        ///
        /// - Parameter name: A stable name for logs and JSON.
        public init(_ name: String) {
            self.name = name
        }

        /// The account needs a second factor the verifier could not provide.
        public static let mfaRequired = Code("mfaRequired")
        /// The account is disabled.
        public static let accountDisabled = Code("accountDisabled")
        /// Too many attempts: try later.
        public static let rateLimited = Code("rateLimited")
        /// Any other failure.
        public static let other = Code("other")

        /// The code's name.
        public var description: String { name }
    }

    /// What kind of failure this is.
    public var code: Code
    /// A sentence for people; never contains the password.
    public var message: String
    /// The error that caused this one, if any.
    public var cause: (any Error)?

    /// Creates a failure.
    ///
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - message: A sentence for people; it must not contain the password.
    ///   - cause: The error that caused this one, if any.
    public init(code: Code, message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The code and the message.
    public var description: String { "\(code): \(message)" }
}
