public import Foundation
public import LifelineCore

/// A server's answer to a password check that is neither "right" nor "wrong".
public struct PasswordVerificationFailure: LifelineError {
    /// What kind of failure this is. Compare with the static members; a verifier may add its own.
    public struct Code: LifelineErrorCode, RawRepresentable {
        /// The code's stable name, for logs and JSON.
        public let rawValue: String

        /// Creates a code from its stable name.
        ///
        /// - Parameter rawValue: The code's stable name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The account cannot log in: disabled by its owner, or suspended, banned, deleted or removed as spam
        /// (``PasswordVerificationFailure/standing`` says which, when the verifier could tell).
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
    }

    /// What kind of failure this is.
    public var code: Code
    /// A sentence for people; never contains the password.
    public var message: String
    /// A page that explains the failure to the user, when the server has one (Stoat's BlockedByShield article).
    public var supportURL: URL?
    /// The error that caused this one, if any.
    public var cause: (any Error)?
    /// For ``Code/accountDisabled``: why the account cannot log in, when the verifier could tell
    /// (`AccountStanding.disabled` by its owner, or suspended, banned, deleted, removed as spam).
    public var standing: AccountStanding?

    /// Creates a failure.
    ///
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - message: A sentence for people; it must not contain the password.
    ///   - supportURL: A page that explains the failure, if the server has one.
    ///   - cause: The error that caused this one, if any.
    ///   - standing: For ``Code/accountDisabled``, why the account cannot log in, if known.
    public init(
        code: Code, message: String, supportURL: URL? = nil, cause: (any Error)? = nil,
        standing: AccountStanding? = nil
    ) {
        self.code = code
        self.message = message
        self.supportURL = supportURL
        self.cause = cause
        self.standing = standing
    }
}
