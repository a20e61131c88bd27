/// A forced answer to the next login (see ``ReferenceServer/answerNextLogins(with:count:)``).
public struct LoginAnswer: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case error(StoatErrorKind)
        case mfa
        case disabled
    }

    let kind: Kind

    /// Answer with this error kind and its status code.
    public static func error(_ kind: StoatErrorKind) -> LoginAnswer { LoginAnswer(kind: .error(kind)) }
    /// Answer `{"result":"MFA",…}` with a ticket that the account's TOTP or recovery codes complete.
    public static let mfa = LoginAnswer(kind: .mfa)
    /// Answer `{"result":"Disabled","user_id":…}`.
    public static let disabled = LoginAnswer(kind: .disabled)
    /// Answer 400 `BlockedByShield`.
    public static let blockedByShield = LoginAnswer.error(.blockedByShield)
    /// Answer 403 `LockedOut`.
    public static let lockedOut = LoginAnswer.error(.lockedOut)
    /// Answer 401 `InvalidCredentials`.
    public static let invalidCredentials = LoginAnswer.error(.invalidCredentials)
    /// Answer 403 `UnverifiedAccount`.
    public static let unverifiedAccount = LoginAnswer.error(.unverifiedAccount)
}
