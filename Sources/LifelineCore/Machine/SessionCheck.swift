/// What a check of the session over the server's API found: the answer an `Authenticator`'s
/// `checkSession` gives. A check that fails in any other way has no definite answer.
public enum SessionCheck: Sendable, Hashable {
    /// The server accepts the session.
    case valid
    /// The server says the session is gone (Stoat: 401).
    case invalid
}
