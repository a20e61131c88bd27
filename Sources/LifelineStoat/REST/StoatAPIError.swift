public import LifelineCore

/// Why a call to Stoat's REST API failed: the server's refusal, a response the client cannot read, or a
/// failure of the network.
///
/// A struct with an open set of codes, like grpc-swift's `RPCError`: match on ``code``, not on the message.
/// The server's error kind (`{"type": KIND, "location": …}`) is kept in ``kind`` and ``location`` even when
/// the client knows no code for it.
///
/// The ``description`` never contains a token, a password, an MFA code or a response body, so an error
/// can be logged or shown as it is.
public struct StoatAPIError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The code's stable name: Stoat's error kind for the server's refusals (`InvalidCredentials`), a
        /// lower-camel-case name for the client's own (`network`).
        public var rawValue: String

        /// Creates a code from its stable name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The credentials were right but the account was disabled by its owner (a login answered `Disabled`).
        public static let accountDisabled = Code(rawValue: "Disabled")
        /// The email and password do not match (401 `InvalidCredentials`).
        public static let invalidCredentials = Code(rawValue: "InvalidCredentials")
        /// Too many wrong passwords: the account is locked for a while (403 `LockedOut`).
        public static let lockedOut = Code(rawValue: "LockedOut")
        /// The account's email is not verified yet (403 `UnverifiedAccount`).
        public static let unverifiedAccount = Code(rawValue: "UnverifiedAccount")
        /// Stoat's abuse shield refused the request (400 `BlockedByShield`); see ``StoatAPIError/supportURL``.
        public static let blockedByShield = Code(rawValue: "BlockedByShield")
        /// The password appears in a breach list (`CompromisedPassword`).
        public static let compromisedPassword = Code(rawValue: "CompromisedPassword")
        /// The captcha was missing or wrong (`CaptchaFailed`).
        public static let captchaFailed = Code(rawValue: "CaptchaFailed")
        /// An MFA ticket or code is wrong or expired (401 `InvalidToken`).
        public static let invalidToken = Code(rawValue: "InvalidToken")
        /// The username is in use (409 `UsernameTaken`).
        public static let usernameTaken = Code(rawValue: "UsernameTaken")
        /// The user has already picked a username (403 `AlreadyOnboarded`).
        public static let alreadyOnboarded = Code(rawValue: "AlreadyOnboarded")
        /// The request was refused as invalid, for example a malformed username (400 `FailedValidation`).
        public static let failedValidation = Code(rawValue: "FailedValidation")
        /// The session token is no longer valid (401 `InvalidSession`).
        public static let invalidSession = Code(rawValue: "InvalidSession")
        /// The call needs a session and none was given (401 `NotAuthenticated`).
        public static let notAuthenticated = Code(rawValue: "NotAuthenticated")
        /// The thing asked for does not exist (404 `NotFound`).
        public static let notFound = Code(rawValue: "NotFound")
        /// The server failed (500 `InternalError`).
        public static let internalError = Code(rawValue: "InternalError")
        /// The server answered a status the call does not expect, with no error kind the client knows;
        /// ``StoatAPIError/kind`` holds the server's kind if it sent one.
        public static let unexpectedStatus = Code(rawValue: "unexpectedStatus")
        /// The server answered a success the client cannot read: not JSON, a missing field, too large.
        public static let malformedResponse = Code(rawValue: "malformedResponse")
        /// The request did not reach the server or its answer did not come back (refused, unreachable,
        /// reset, TLS).
        public static let network = Code(rawValue: "network")
        /// No answer arrived within the request timeout.
        public static let timeout = Code(rawValue: "timeout")
        /// The calling task was cancelled.
        public static let cancelled = Code(rawValue: "cancelled")
        /// The request could not be made: for example a URL that is not HTTP.
        public static let invalidRequest = Code(rawValue: "invalidRequest")

        /// The codes named after Stoat's error kinds, by kind.
        static let byKind: [String: Code] = Dictionary(
            uniqueKeysWithValues: [
                invalidCredentials, lockedOut, unverifiedAccount, blockedByShield, compromisedPassword,
                captchaFailed, invalidToken, usernameTaken, alreadyOnboarded, failedValidation, invalidSession,
                notAuthenticated, notFound, internalError,
            ].map { ($0.rawValue, $0) })

        /// The code's stable name.
        public var description: String { rawValue }
    }

    /// The support article Stoat asks clients to link to when its shield blocks a user.
    public static let blockedByShieldSupportURL = "https://support.stoat.chat/kb/safety/blocked-for-spam"

    /// What kind of failure this is.
    public var code: Code
    /// The server's error kind (`type`), when the response carried one.
    public var kind: String?
    /// The server's error `location`, when the response carried one.
    public var location: String?
    /// The HTTP status, when a response arrived.
    public var status: Int?
    /// A sentence for developers; never contains a secret or a response body.
    public var message: String
    /// The error that caused this one (a transport or decoding error), if any. Its own description is
    /// not part of ``description``.
    public var underlying: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - message: A sentence for developers; it must not contain a token or a password.
    ///   - kind: The server's error kind, if any.
    ///   - location: The server's error location, if any.
    ///   - status: The HTTP status, if a response arrived.
    ///   - underlying: The error that caused this one, if any.
    public init(
        _ code: Code, message: String, kind: String? = nil, location: String? = nil, status: Int? = nil,
        underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.kind = kind
        self.location = location
        self.status = status
        self.underlying = underlying
    }

    /// The refusal a login answered `Disabled` stands for: the account was disabled by its owner.
    public static func disabled(userID: String) -> StoatAPIError {
        StoatAPIError(.accountDisabled, message: "The account is disabled.", kind: "Disabled")
    }

    /// The support article to link to: Stoat's "blocked for spam" article for ``Code/blockedByShield``,
    /// otherwise `nil`.
    public var supportURL: String? {
        code == .blockedByShield ? Self.blockedByShieldSupportURL : nil
    }

    /// Whether the failure happened on the way to or from the server (``Code/network`` or
    /// ``Code/timeout``): the request may succeed if tried again.
    public var isTransportFailure: Bool { code == .network || code == .timeout }

    /// The failure as the login interface shows it, for `Session.reportLoginFailure(_:)`: Stoat's error
    /// kind as the code, a sentence for the user, and the support link for ``Code/blockedByShield``.
    public var loginFailure: LoginFailure {
        LoginFailure(code: kind ?? code.rawValue, message: userMessage, supportURL: supportURL)
    }

    /// A sentence for the user of a login or onboarding form.
    var userMessage: String {
        switch code {
        case .accountDisabled: "This account has been disabled."
        case .invalidCredentials: "The email or password is incorrect."
        case .lockedOut: "Too many failed attempts. Wait a while, then try again."
        case .unverifiedAccount: "Verify your email address before logging in."
        case .blockedByShield: "Your login was blocked to protect the platform from spam."
        case .compromisedPassword: "This password appeared in a data breach. Reset your password to continue."
        case .captchaFailed: "The captcha check failed. Try again."
        case .invalidToken: "The code is incorrect or has expired."
        case .usernameTaken: "This username is taken."
        case .alreadyOnboarded: "This account already has a username."
        case .failedValidation: "The server refused the request as invalid."
        case .invalidSession, .notAuthenticated: "Your session has ended. Log in again."
        case .network, .timeout: "The server could not be reached. Check your connection and try again."
        default: "Something went wrong (\(code)). Try again later."
        }
    }

    /// The code, the status, the server's kind and location, and the message; never a secret.
    public var description: String {
        var parts = ["\(code)"]
        if let status { parts.append("HTTP \(status)") }
        if let kind, kind != code.rawValue { parts.append("kind \(kind)") }
        if let location { parts.append("at \(location)") }
        return "StoatAPIError(\(parts.joined(separator: ", "))): \(message)"
    }
}
