public import Foundation
public import LifelineCore

/// A server's answer to a password check that is neither "right" nor "wrong".
///
/// Lifeline's one error shape (`CodedError`) over ``PasswordVerificationFailureCode``; its details
/// (``PasswordVerificationFailureDetails``) are read as its own properties: `supportURL`, `standing`.
public typealias PasswordVerificationFailure = CodedError<PasswordVerificationFailureCode>

/// What kind of failure a ``PasswordVerificationFailure`` is. Compare with the static members; a verifier may
/// add its own.
public struct PasswordVerificationFailureCode: LifelineErrorCode, RawRepresentable {
    /// What a ``PasswordVerificationFailure`` carries beside its code, message and cause.
    public typealias Details = PasswordVerificationFailureDetails

    /// The code's stable name, for logs and JSON.
    public let rawValue: String

    /// Creates a code from its stable name.
    ///
    /// - Parameter rawValue: The code's stable name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The account cannot log in: disabled by its owner, or suspended, banned, deleted or removed as spam
    /// (``PasswordVerificationFailureDetails/standing`` says which, when the verifier could tell).
    public static let accountDisabled = Self(rawValue: "accountDisabled")
    /// Too many attempts: try later.
    public static let rateLimited = Self(rawValue: "rateLimited")
    /// The server's abuse protection refused the login (Stoat's BlockedByShield);
    /// ``PasswordVerificationFailureDetails/supportURL`` links to the server's explanation.
    public static let blocked = Self(rawValue: "blocked")
    /// The second factor was wrong or its challenge expired.
    public static let secondFactorRefused = Self(rawValue: "secondFactorRefused")
    /// Any other failure.
    public static let other = Self(rawValue: "other")
}

/// What a ``PasswordVerificationFailure`` carries beside its code, message and cause.
public struct PasswordVerificationFailureDetails: Sendable, Hashable {
    /// A page that explains the failure to the user, when the server has one (Stoat's BlockedByShield article).
    public var supportURL: URL?
    /// For ``PasswordVerificationFailureCode/accountDisabled``: why the account cannot log in, when the
    /// verifier could tell (`AccountStanding.disabled` by its owner, or suspended, banned, deleted, removed as
    /// spam).
    public var standing: AccountStanding?
}

extension CodedError where Code == PasswordVerificationFailureCode {
    /// Creates a failure.
    ///
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - message: A sentence for people; it must not contain the password.
    ///   - supportURL: A page that explains the failure, if the server has one.
    ///   - cause: The error that caused this one, if any.
    ///   - standing: For ``PasswordVerificationFailureCode/accountDisabled``, why the account cannot log in,
    ///     if known.
    public init(
        code: Code, message: String, supportURL: URL? = nil, cause: (any Error)? = nil,
        standing: AccountStanding? = nil
    ) {
        self.init(
            code: code, message: message,
            details: PasswordVerificationFailureDetails(supportURL: supportURL, standing: standing), cause: cause)
    }
}
