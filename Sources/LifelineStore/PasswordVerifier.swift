public import Foundation
public import LifelineCore

/// Checks an account's password with the server, and ends sessions the sign-in flow cannot use: the caller's
/// side of the sign-in flow.
///
/// The store never talks to the network. A Stoat client implements this with a login
/// (`POST /auth/session/login`) and a logout (`POST /auth/session/logout`); the answer decides between "wrong
/// password", "encryption failure" and creating the database.
///
/// A login that needs a second factor answers ``PasswordVerification/secondFactorRequired(_:)`` with a
/// ``SecondFactorChallenge`` that continues it; the flow hands it to the UI as
/// ``SignInOutcome/secondFactorRequired(_:)`` and carries on where it stopped once the user answers.
///
/// Every session a verification creates reaches the caller, or is ended through ``endSession(_:)``: when the
/// server accepts a password that does not open the database (an encryption failure), or when the store cannot
/// keep the session (a failed write), the flow calls ``endSession(_:)`` before it answers, so no session is left
/// open on the server with nobody holding its token (see <doc:LifelineStore#Sessions-the-flow-cannot-use>).
public protocol PasswordVerifier: Sendable {
    /// Asks the server whether `password` is the account's password.
    ///
    /// - Parameters:
    ///   - email: The account's email.
    ///   - password: The password the user typed. Never log it.
    /// - Returns: The server's answer; a verified password comes with the session the login created.
    func verifyPassword(email: String, password: String) async -> PasswordVerification

    /// Ends a session a verification created that the sign-in flow cannot use.
    ///
    /// Called at most once per session, before the flow answers. Best effort: if the server cannot be reached,
    /// the session stays valid until the server expires it; the implementation may log that (without the
    /// token) or retry later.
    ///
    /// - Parameter session: The session to end. Its token is secret: never log it.
    func endSession(_ session: SessionCredentials) async
}

/// The server's answer to a password check.
public enum PasswordVerification: Sendable {
    /// The password is right; the login created this session.
    case verified(SessionCredentials)
    /// The server says the email and password do not match.
    case wrongPassword
    /// The server could not be reached (no network, timeout, 5xx): the password is neither right nor wrong.
    case unreachable
    /// The password is right but the account needs a second factor; the challenge continues the login.
    case secondFactorRequired(SecondFactorChallenge)
    /// The server answered with another failure: account disabled, rate limited, blocked…
    case failed(PasswordVerificationFailure)
}

/// A second factor the server asks for before it finishes a login: the methods it accepts and how to answer.
///
/// The verifier builds it around whatever the protocol needs to continue (for Stoat, the MFA ticket), which the
/// store never sees: ``respond(_:)`` runs the verifier's continuation.
public struct SecondFactorChallenge: Sendable {
    /// The methods the server accepts, in the server's order.
    public var methods: [SecondFactorMethod]

    private let continuation: @Sendable (SecondFactorResponse) async -> PasswordVerification

    /// Creates a challenge.
    ///
    /// - Parameters:
    ///   - methods: The methods the server accepts.
    ///   - continuation: Sends a response to the server and answers as a verification does: the session, a
    ///     failure (a wrong code), or another challenge.
    public init(
        methods: [SecondFactorMethod],
        continuation: @escaping @Sendable (SecondFactorResponse) async -> PasswordVerification
    ) {
        self.methods = methods
        self.continuation = continuation
    }

    /// Answers the challenge.
    ///
    /// - Parameter response: The method and the code the user gave.
    /// - Returns: The server's answer to the login, now with the second factor.
    public func respond(_ response: SecondFactorResponse) async -> PasswordVerification {
        await continuation(response)
    }
}

/// A kind of second factor. Compare with the static members; a verifier may add its own.
public struct SecondFactorMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method's stable name.
    public let rawValue: String

    /// Creates a method from its stable name.
    ///
    /// - Parameter rawValue: The method's stable name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A code from an authenticator app.
    public static let totp = SecondFactorMethod(rawValue: "totp")
    /// A single-use recovery code.
    public static let recoveryCode = SecondFactorMethod(rawValue: "recoveryCode")
    /// The account's password, asked again.
    public static let password = SecondFactorMethod(rawValue: "password")

    /// The method's name.
    public var description: String { rawValue }
}

/// The user's answer to a ``SecondFactorChallenge``.
public struct SecondFactorResponse: Sendable, CustomStringConvertible {
    /// The method the user answers with.
    public var method: SecondFactorMethod
    /// The code (or password). Secret: never log it.
    public var code: String

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - method: The method the user answers with.
    ///   - code: The code or password.
    public init(method: SecondFactorMethod, code: String) {
        self.method = method
        self.code = code
    }

    /// The method; the code is redacted.
    public var description: String { "SecondFactorResponse(\(method), <redacted>)" }
}

/// A server's answer to a password check that is neither "right" nor "wrong".
public struct PasswordVerificationFailure: Error, CustomStringConvertible {
    /// What kind of failure this is. Compare with the static members; a verifier may add its own.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name, for logs and JSON.
        public let rawValue: String

        /// Creates a code from its stable name.
        ///
        /// - Parameter rawValue: The code's stable name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The account is disabled.
        public static let accountDisabled = Code(rawValue: "accountDisabled")
        /// Too many attempts: try later.
        public static let rateLimited = Code(rawValue: "rateLimited")
        /// The server's abuse protection refused the login (Stoat's BlockedByShield); ``supportURL`` links to
        /// the server's explanation.
        public static let blocked = Code(rawValue: "blocked")
        /// The second factor was wrong or its challenge expired.
        public static let secondFactorRefused = Code(rawValue: "secondFactorRefused")
        /// Any other failure.
        public static let other = Code(rawValue: "other")

        /// The code's name.
        public var description: String { rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// A sentence for people; never contains the password.
    public var message: String
    /// A page that explains the failure to the user, when the server has one (Stoat's BlockedByShield article).
    public var supportURL: URL?
    /// The error that caused this one, if any.
    public var cause: (any Error)?

    /// Creates a failure.
    ///
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - message: A sentence for people; it must not contain the password.
    ///   - supportURL: A page that explains the failure, if the server has one.
    ///   - cause: The error that caused this one, if any.
    public init(code: Code, message: String, supportURL: URL? = nil, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.supportURL = supportURL
        self.cause = cause
    }

    /// The code and the message: `code: message`.
    public var description: String { "\(code): \(message)" }
}
