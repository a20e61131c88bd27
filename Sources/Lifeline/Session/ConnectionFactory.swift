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
