public import LifelineCore

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
