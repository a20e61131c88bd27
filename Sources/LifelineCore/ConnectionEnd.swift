/// Why a connection (or an authentication attempt) ended: what the runtime reports to
/// ``SessionMachine/connectionEnded(_:generation:connectedFor:using:)``. Also thrown by an authenticator.
public enum ConnectionEnd: Error, Sendable, Hashable {
    /// A failure that may heal: the lifecycle retries.
    case temporary(TemporaryFailureCause)
    /// The session is no longer valid — or the server says so; the machine confirms an `InvalidSession`
    /// before it believes it (``SessionCheckPolicy``).
    case permanent(PermanentFailureReason)
    /// The server ended the session (Stoat's `Logout` frame): an external LOGOUT.
    case loggedOut
}
