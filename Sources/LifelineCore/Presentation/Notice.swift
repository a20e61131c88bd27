/// A message the login screen shows once, beyond the screen itself.
public enum Notice: Sendable, Hashable {
    /// The server ended the session (an external LOGOUT): "You were logged out".
    case loggedOut
    /// A login at the login interface failed (wrong password, blocked, disabled…).
    case loginFailed(LoginFailure)
    /// The account's standing explains an external logout or a login refused as `Disabled`: the account
    /// is suspended, banned, deleted or removed as spam (never ``AccountStanding/loggedOut``, which keeps
    /// the notice it tailors).
    case accountStanding(AccountStanding)

    /// The notice's text for the user.
    public var text: String {
        switch self {
        case .loggedOut: "You were logged out."
        case .loginFailed(let failure): failure.message
        case .accountStanding(let standing): standing.message
        }
    }
}
