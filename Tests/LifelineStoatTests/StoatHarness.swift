import Foundation
import Lifeline
import LifelineCore
import LifelineStoat
import LifelineTesting
import StoatReferenceServer

/// A `Session` with Stoat's WebSocket connection, talking to an in-process reference server over
/// loopback; the client's timers run on a test clock, the server's in real time.
final class StoatHarness: Sendable {
    let server: ReferenceServer
    let clock = TestClock()
    let authenticator = ScriptedAuthenticator()
    let network = ManualNetworkMonitor(.online)
    let factory: StoatConnectionFactory
    let session: Session
    let recorder: SnapshotRecorder
    let events: EventLog
    private let runner: Task<Void, Never>

    init(
        configuration: StoatConnectionFactory.Configuration = .init(),
        server: ReferenceServer? = nil
    ) async throws {
        let server = if let server { server } else { try await ReferenceServer.start() }
        self.server = server
        let events = EventLog()
        self.events = events
        let eventsURL = server.eventsURL.absoluteString
        factory = StoatConnectionFactory(
            eventsURL: { eventsURL }, configuration: configuration, clock: clock,
            onEvent: { events.append($0) })
        session = Session(
            connections: factory, authenticator: authenticator, network: network, clock: clock,
            random: SeededRandomNumberGenerator(seed: 3))
        recorder = SnapshotRecorder(session.states)
        let session = session
        runner = Task { await session.run() }
    }

    /// The default account's session.
    var credentials: SessionCredentials {
        SessionCredentials(token: server.defaultAccount.token, userID: server.defaultAccount.userID)
    }

    /// Logs in with the default account's cached session and waits for CONNECTED.
    func connect() async {
        await session.logIn(credentials, cached: true)
        await recorder.next(.connected)
    }

    /// Waits until the server's records satisfy `condition` (a failure bound, not a sleep).
    func serverReaches(_ condition: @escaping @Sendable ([ConnectionRecord], SocketCounters) -> Bool) async throws {
        try await server.waitUntil(timeout: .seconds(20), condition)
    }

    func stop() async {
        runner.cancel()
        await runner.value
        await server.stop()
    }
}

/// The data events the connection delivered.
final class EventLog: Sendable {
    private let events = Mutex<[BonfireEvent]>([])
    var all: [BonfireEvent] { events.withLock { $0 } }
    func append(_ event: BonfireEvent) { events.withLock { $0.append(event) } }
}

import Synchronization
