import Foundation
import Lifeline
import LifelineCore
import LifelineTesting
import StoatReferenceServer
import Testing

@testable import LifelineStoat

/// Waking from a suspend against the reference server: the socket is checked with a `Ping` at once, and one that
/// does not answer is left within the wake check's deadline, not the heartbeat's worst case.
@Suite("Waking from a suspend, against the reference server", .hangBound)
struct WakeTests {
    @Test(
        "the socket check's Ping is answered by its Pong on a live socket; on a socket that stopped answering, it fails when the socket is closed"
    )
    func socketCheck() async throws {
        let server = try await ReferenceServer.start()
        let url = server.eventsURL.absoluteString
        let factory = StoatConnectionFactory(
            eventsURL: { url }, configuration: .init(heartbeatInterval: .seconds(86_400)), clock: TestClock())
        let events = ConnectionEvents()
        let connection = factory.makeConnection(
            for: SessionCredentials(token: server.defaultAccount.token, userID: server.defaultAccount.userID),
            generation: 1)
        let task = events.run(connection)
        await events.wait { $0 == .ready }
        guard case .pending(let answered) = connection.startSocketCheck() else {
            Issue.record("a check of an open socket awaits its Pong")
            return
        }
        try await answered()
        await server.setIgnoresPings(true)
        guard case .pending(let unanswered) = connection.startSocketCheck() else {
            Issue.record("a check of an open socket awaits its Pong")
            return
        }
        let waiting = Task { try await unanswered() }
        connection.close()
        await #expect(throws: StoatConnectionError.self) { try await waiting.value }
        await task.value
        guard case .failed = connection.startSocketCheck() else {
            Issue.record("a closed socket cannot be checked")
            return
        }
        await server.stop()
    }

    @Test(
        "a wake on a socket that answers no Ping leaves it within the wake check's 3 s, not the heartbeat's 40 s, and the session reconnects"
    )
    func deafSocketLeft() async throws {
        let harness = try await OutboxHarness()
        let wake = ManualWakeMonitor()
        var configuration = StoatClient.Configuration()
        configuration.session.wakeMonitor = wake
        configuration.deliveryCheck = nil
        configuration.requestTimeout = .failureBound  // a REST call's exchange runs on the wall clock
        let client = StoatClient(
            apiURL: harness.server.apiURL, configuration: configuration, network: harness.network,
            clock: harness.clock, random: SeededRandomNumberGenerator(seed: 5))
        let heartbeatWorstCase = configuration.connection.heartbeatInterval + configuration.connection.pongTimeout
        #expect(heartbeatWorstCase == .seconds(40))
        let recorder = SnapshotRecorder(client.session.states)
        let running = Task { await client.run() }
        await client.resume(harness.credentials)
        try #require(await recorder.next(.connected) != nil)
        // The device slept; the server stops answering Pings, as a peer that gave up on the socket answers none.
        await harness.server.setIgnoresPings(true)
        let woke = harness.clock.now
        wake.wake(suspended: .seconds(600))
        let deadline = await harness.clock.nextSleep { $0 == woke.advanced(by: .seconds(3)) }
        harness.clock.advance(to: deadline)
        let left = try #require(await recorder.next(.disconnected))
        let transition = try #require(left.transitions.first { $0.to == .disconnected })
        #expect(transition.cause?.code == .temporary(.wakeCheckFailed))
        let leftAfter = left.time - woke.offset
        #expect(leftAfter <= .seconds(3), "left \(leftAfter) after the wake")
        #expect(leftAfter < heartbeatWorstCase / 10)
        // The server answers again: the retry connects.
        await harness.server.setIgnoresPings(false)
        let retry = try #require(client.session.snapshot.nextRetry)
        harness.clock.advance(to: .init(offset: retry))
        try #require(await recorder.next(.connected) != nil)
        running.cancel()
        await running.value
        await harness.server.stop()
    }
}
