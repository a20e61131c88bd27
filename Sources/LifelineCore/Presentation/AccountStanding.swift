/// The standing of an account, as a lookup after a permanent failure, an external logout or a login
/// refused as `Disabled` reports it.
///
/// For Stoat, the `GET /users/{id}/flags` bits: 4 banned, 8 removed as spam, 2 deleted, 1 suspended, and
/// 0 for an account in good standing — whose session was simply logged out.
public enum AccountStanding: String, Sendable, Hashable, CaseIterable, Codable {
    /// The account is fine: the session was logged out (elsewhere, or expired).
    case loggedOut
    /// The owner disabled the account.
    case disabled
    /// The account is suspended.
    case suspended
    /// The account is banned.
    case banned
    /// The account was deleted.
    case deleted
    /// The account was removed as spam.
    case removedAsSpam

    /// The sentence that tells the user.
    public var message: String {
        switch self {
        case .loggedOut: "You have been logged out. Please log in again."
        case .disabled: "Your account has been disabled."
        case .suspended: "Your account has been suspended."
        case .banned: "Your account has been banned."
        case .deleted: "Your account has been deleted."
        case .removedAsSpam: "Your account was removed as spam."
        }
    }
}
