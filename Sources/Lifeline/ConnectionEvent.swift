public import LifelineCore

/// A milestone in a connection's life.
public enum ConnectionEvent: Sendable, Hashable {
    /// The socket opened.
    case opened
    /// The server accepted the session (Stoat's `Authenticated`).
    case authenticated
    /// The initial data has loaded (Stoat's `Ready`): the session is connected.
    case ready
    /// The connection ended, and why.
    case ended(SessionFailure)
}
