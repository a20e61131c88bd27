public import LifelineCore

/// Opens connections for a ``Session``: the seam between the protocol-neutral runtime and a protocol.
///
/// The runtime asks for one connection at a time (DESIGN decision 8). `LifelineStoat` implements this
/// with a WebSocket; `LifelineTesting`'s `ScriptedConnectionFactory` lets a test play the server.
public protocol ConnectionFactory: Sendable {
    /// Makes a connection for a session; it starts when the runtime calls ``SessionConnection/run(reporting:)``.
    ///
    /// - Parameters:
    ///   - credentials: The session to authenticate with.
    ///   - generation: The attempt's generation number, for logs and metrics.
    func makeConnection(for credentials: SessionCredentials, generation: UInt64) -> any SessionConnection
}

/// One connection's whole life: open, authenticate, load the initial data, stay connected, end.
public protocol SessionConnection: Sendable {
    /// Runs the connection until it ends, reporting each milestone in order.
    ///
    /// The connection reports ``ConnectionEvent/ready`` once the initial data has loaded, and exactly one
    /// ``ConnectionEvent/ended(_:)`` when it ends by itself, then returns. When the calling task is
    /// cancelled the connection closes at once — without waiting for the peer — and returns; it need not
    /// report anything then. Reports after that are ignored by the runtime.
    ///
    /// - Parameter report: Called with each milestone; awaiting it applies back-pressure.
    func run(reporting report: @escaping @Sendable (ConnectionEvent) async -> Void) async

    /// Plays a significant event (a subscription, a typing indicator) on the connection, and returns when
    /// it succeeded by its kind's criterion — an awaited answer, or, where the protocol sends none, the
    /// frame written.
    ///
    /// - Throws: When the event cannot be played (the connection is not open, the write failed, the
    ///   protocol has no such event); the session retries it up to its limit.
    func play(_ event: SignificantEvent) async throws
}

/// A milestone in a connection's life.
public enum ConnectionEvent: Sendable, Hashable {
    /// The socket opened.
    case opened
    /// The server accepted the session (Stoat's `Authenticated`).
    case authenticated
    /// The initial data has loaded (Stoat's `Ready`): the session is connected.
    case ready
    /// The connection ended, and why.
    case ended(ConnectionEnd)
}

/// Why a connection (or an authentication attempt) ended. Also thrown by an ``Authenticator``.
public enum ConnectionEnd: Error, Sendable, Hashable {
    /// A failure that may heal: the lifecycle retries.
    case temporary(TemporaryFailureCause)
    /// The session is no longer valid.
    case permanent(PermanentFailureReason)
    /// The server ended the session (Stoat's `Logout` frame): an external LOGOUT.
    case loggedOut
}
