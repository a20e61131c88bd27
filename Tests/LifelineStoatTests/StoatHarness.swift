import Foundation
import Lifeline
import LifelineCore
import LifelineStoat
import LifelineTesting
import StoatReferenceServer
import Synchronization

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
        try await server.waitUntil(timeout: .failureBound, condition)
    }

    func stop() async {
        runner.cancel()
        await runner.value
        await server.stop()
    }
}

/// The data events the connection delivered.
typealias EventLog = AwaitableList<BonfireEvent>

extension TestClock {
    /// Advances through the waits between the session checks that confirm an `InvalidSession` (each
    /// known only within its jitter), so the last check can answer.
    func advanceThroughSessionChecks(_ policy: SessionCheckPolicy = .standard) async {
        for answers in 1..<max(1, policy.checks) {
            let nominal = policy.backoff.nominalDelay(failures: answers)
            let now = self.now
            let wait = await nextSleep { deadline in
                let delay = now.duration(to: deadline)
                return delay >= nominal * 0.79 && delay <= nominal * 1.21
            }
            advance(to: wait)
        }
    }
}
