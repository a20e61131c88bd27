public import LifelineCore

/// Opens connections for a ``Session``: the seam between the protocol-neutral runtime and a protocol.
///
/// The runtime asks for one connection at a time, and starts the next only once the last one's `run`
/// has returned. `LifelineStoat` implements this
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
    /// ``ConnectionEvent/ended(_:)`` when it ends by itself, then returns. When ``close()`` is called, or
    /// the calling task is cancelled, the connection closes at once — without waiting for the peer — and
    /// returns; it need not report anything then. Reports after that are ignored by the runtime.
    ///
    /// - Parameter report: Called with each milestone; awaiting it applies back-pressure.
    func run(reporting report: @escaping @Sendable (ConnectionEvent) async -> Void) async

    /// Closes the connection at once, without waiting for the peer: ``run(reporting:)`` returns soon after.
    ///
    /// The runtime calls it when the lifecycle is done with the connection (a logout, a failure, a new
    /// attempt), from any task, perhaps before `run` has started (then `run` returns at once) and perhaps
    /// more than once. It is how a session stops one connection inside its task group without a `Task`
    /// handle.
    func close()

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
