/// The answer to an ``MFAChallenge``, sent with ``StoatAPI/continueLogin(ticket:response:friendlyName:)``.
///
/// Every case carries a secret, so ``description`` names the method only.
public enum MFAResponse: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// A code from an authenticator app (`totp_code`).
    case totp(String)
    /// A single-use recovery code (`recovery_code`).
    case recoveryCode(String)
    /// The account's password (`password`).
    case password(String)

    /// The method this response answers with.
    public var method: MFAMethod {
        switch self {
        case .totp: .totp
        case .recoveryCode: .recoveryCode
        case .password: .password
        }
    }

    /// The method; the secret is redacted.
    public var description: String { "MFAResponse(\(method), <redacted>)" }

    /// The same as ``description``: the secret is redacted in debug output too.
    public var debugDescription: String { description }
}
