public import LifelineCore

/// How the login goes on after the database opened: a cached session, or what the server said when none was.
public enum OpenedSession: Sendable {
    /// A session is cached: start it (LOGIN_CACHED). The server was not asked anything.
    case cached(SessionCredentials)

    /// No session was cached, so the flow verified the password with the server, which created this session;
    /// it is now cached. Start it (LOGIN_UNCACHED).
    case verified(SessionCredentials)

    /// No session was cached and the server refused the password that opened the database: it was changed on
    /// another device. The spec's "passwords used for db encryption and for account do not match"
    /// (`StoreError.passwordMismatch`). Ask for the new password and call
    /// ``AccountDatabase/renewSession(password:verifier:)`` with it: it re-keys the database and caches the new
    /// session.
    case passwordMismatch

    /// No session was cached and the server could not be reached: show home from the cache, offline; call
    /// ``AccountDatabase/renewSession(password:verifier:)`` when the network is back.
    case serverUnreachable

    /// No session was cached and the server refused the login otherwise (disabled, rate limited, blocked).
    case verificationFailed(PasswordVerificationFailure)

    /// The session to start, for ``cached(_:)`` and ``verified(_:)``.
    public var credentials: SessionCredentials? {
        switch self {
        case .cached(let session), .verified(let session): session
        default: nil
        }
    }

    /// A stable name: `cached`, `verified`, `passwordMismatch`, `serverUnreachable`, `verificationFailed`.
    public var name: String {
        switch self {
        case .cached: "cached"
        case .verified: "verified"
        case .passwordMismatch: "passwordMismatch"
        case .serverUnreachable: "serverUnreachable"
        case .verificationFailed: "verificationFailed"
        }
    }
}
