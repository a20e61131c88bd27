public import LifelineCore

/// What a Stoat login answered: a session, a second factor to provide, or a disabled account.
///
/// Refusals (wrong password, locked out, blocked by the shield…) are thrown as ``StoatAPIError``.
public enum LoginResult: Sendable, Hashable, CustomStringConvertible {
    /// The login created a session (`{"result":"Success"}`): the token, the user's id and the session's id.
    case success(SessionCredentials)
    /// The account needs a second factor (`{"result":"MFA"}`): continue with
    /// ``StoatAPI/continueLogin(ticket:response:friendlyName:)``.
    case mfa(MFAChallenge)
    /// The owner disabled the account (`{"result":"Disabled"}`); no session was created.
    case disabled(userID: String)

    /// The result without its secrets: the session's token and the MFA ticket are redacted.
    public var description: String {
        switch self {
        case .success(let credentials): "success(\(credentials))"
        case .mfa(let challenge): "mfa(\(challenge))"
        case .disabled(let userID): "disabled(userID: \(userID))"
        }
    }
}
