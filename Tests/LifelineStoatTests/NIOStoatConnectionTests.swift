import Foundation
import Lifeline
import LifelineCore
import LifelineTesting
import StoatReferenceServer
import Synchronization
import Testing

@testable import LifelineStoat

/// The milestones one connection reported, for tests that run a connection without a session.
final class ConnectionEvents: Sendable {
    /// The reports, and whether `run` returned.
    private let reports = Waiters<(events: [ConnectionEvent], returned: Bool)>(([], false))

    var all: [ConnectionEvent] { reports.value.events }
    var end: SessionFailure? {
        all.lazy.compactMap { if case .ended(let end) = $0 { end } else { nil } }.first
    }

    /// Runs the connection in a task of its own, recording its reports; the task is returned to cancel.
    func run(_ connection: any SessionConnection) -> Task<Void, Never> {
        Task {
            await connection.run { event in self.reports.update { $0.events.append(event) } }
            self.reports.update { $0.returned = true }
        }
    }

    /// Waits until a report satisfies `condition` (`nil` is `run`'s return).
    func wait(for condition: @escaping @Sendable (ConnectionEvent?) -> Bool) async {
        await reports.wait { $0.events.contains(where: condition) || ($0.returned && condition(nil)) }
    }

    /// Waits until the connection reports its end, and returns it.
    func ended() async -> SessionFailure? {
        await wait { if case .ended = $0 { true } else { false } }
        return end
    }
}

@Suite("Stoat's events socket on NIO channel handlers", .hangBound)
struct NIOStoatConnectionTests {
    static func credentials(_ server: ReferenceServer) -> SessionCredentials {
        SessionCredentials(token: server.defaultAccount.token, userID: server.defaultAccount.userID)
    }

    @Test(
        "the socket's TCP connect is allowed the session's connect timeout, never less than 10 s",
        arguments: [(Duration.seconds(120), Duration.seconds(120)), (.seconds(1), .seconds(10))])
    func tcpConnectTimeout(configured: Duration, expected: Duration) {
        // NIO's own default (10 s) ended sockets on a loaded machine that the session allowed two minutes.
        let factory = StoatConnectionFactory(
            eventsURL: { "ws://127.0.0.1:1/events" }, configuration: .init(connectTimeout: configured),
            clock: TestClock())
        #expect(factory.connector.configuration.connectTimeout == expected)
    }

    @Test(
        "a close frame's code and reason reach the session: a dropped socket that names both; 1007 is a refused frame",
        arguments: [
            (UInt16(4000), TemporaryFailureCause.Code.socketDropped), (1007, .frameRefused),
        ])
    func closeCode(code: UInt16, expected: TemporaryFailureCause.Code) async throws {
        let server = try await ScriptedWebSocketServer.start()
        let url = server.url().absoluteString
        let factory = StoatConnectionFactory(eventsURL: { url }, clock: TestClock())
        let events = ConnectionEvents()
        let task = events.run(factory.makeConnection(for: SessionCredentials(token: "t0k3n"), generation: 1))
        await server.waitUntil { $0.frames.count == 1 }
        #expect(server.record.frames.first?.text == #"{"type":"Authenticate","token":"t0k3n"}"#)
        #expect(server.record.requests.first?.target == "/events?version=1&format=json")
        try await server.send(ScriptedWebSocketServer.close(code: code, reason: "bad payload"))
        guard case .temporary(let cause)? = await events.ended() else {
            Issue.record("\(events.all)")
            return
        }
        #expect(cause.code == expected)
        #expect(cause.message == "the server closed the socket with \(code): bad payload")
        let end = try #require(cause.cause as? WebSocketTransportEnd)
        #expect(end.closeCode == code && end.closeReason == "bad payload")
        #expect(events.all.first == .opened)
        await task.value
        await server.stop()
    }

    @Test("a Logout the server closes the socket right behind ends the connection as a logout: the frame came first")
    func logoutThenClose() async throws {
        let server = try await ScriptedWebSocketServer.start()
        let url = server.url().absoluteString
        let factory = StoatConnectionFactory(eventsURL: { url }, clock: TestClock())
        let events = ConnectionEvents()
        _ = events.run(factory.makeConnection(for: SessionCredentials(token: "t"), generation: 1))
        await server.waitUntil { $0.frames.count == 1 }
        // One write: the socket reads the close with the Logout, so its own end (the peer's close) is recorded
        // before the connection's task has handled the Logout.
        try await server.send(
            ScriptedWebSocketServer.text(#"{"type":"Logout"}"#) + ScriptedWebSocketServer.close(code: 1000, reason: ""))
        #expect(await events.ended() == .loggedOut)
        await server.stop()
    }

    @Test("a Pong timeout ends the connection through its socket's one end, which carries the heartbeat's cause")
    func pongTimeout() async throws {
        let server = try await ScriptedWebSocketServer.start()
        let url = server.url().absoluteString
        let clock = TestClock()
        let factory = StoatConnectionFactory(
            eventsURL: { url }, configuration: .init(readyTimeout: .seconds(3600)),
            clock: clock)
        let events = ConnectionEvents()
        _ = events.run(factory.makeConnection(for: SessionCredentials(token: "t"), generation: 1))
        await server.waitUntil { $0.frames.count == 1 }
        try await server.send(ScriptedWebSocketServer.text(#"{"type":"Authenticated"}"#))
        await events.wait { $0 == .authenticated }
        await clock.waitForSleep(until: .init(offset: .seconds(30)))
        clock.advance(by: .seconds(30))
        await server.waitUntil { $0.frames.contains { $0.text.contains(#""type":"Ping""#) } }
        await clock.waitForSleep(until: .init(offset: .seconds(40)))
        clock.advance(by: .seconds(10))
        #expect(
            await events.ended() == .temporary(.init(code: .heartbeatTimeout, message: "no Pong within 10.0 seconds")))
        await events.wait { $0 == nil }
        #expect(factory.timer.count == 0, "the timer holds nothing of an ended connection")
        await server.waitUntil { $0.open == 0 }
        await server.stop()
    }

    @Test("a message larger than the configured limit drops the connection as a protocol violation")
    func oversizedMessage() async throws {
        let server = try await ScriptedWebSocketServer.start()
        let url = server.url().absoluteString
        let factory = StoatConnectionFactory(
            eventsURL: { url }, configuration: .init(maximumFrameSize: 1000), clock: TestClock())
        let events = ConnectionEvents()
        _ = events.run(factory.makeConnection(for: SessionCredentials(token: "t"), generation: 1))
        await server.waitUntil { $0.frames.count == 1 }
        try await server.send(ScriptedWebSocketServer.text(String(repeating: "x", count: 1001)))
        guard case .temporary(let cause)? = await events.ended() else {
            Issue.record("\(events.all)")
            return
        }
        #expect(cause.code == .protocolViolation)
        await server.waitUntil { $0.open == 0 }
        await server.stop()
    }

    @Test("a server that never answers the upgrade is dropped by the connect timeout, and its connection closed")
    func unansweredUpgrade() async throws {
        let server = try await ScriptedWebSocketServer.start(answer: .silence)
        let url = server.url().absoluteString
        let clock = TestClock()
        let factory = StoatConnectionFactory(eventsURL: { url }, clock: clock)
        let events = ConnectionEvents()
        _ = events.run(factory.makeConnection(for: SessionCredentials(token: "t"), generation: 1))
        await server.waitUntil { $0.requests.count == 1 }
        await clock.waitForSleep(until: .init(offset: .seconds(10)))
        clock.advance(by: .seconds(10))
        #expect(
            await events.ended() == .temporary(.init(code: .connectTimeout, message: "no message within 10.0 seconds")))
        await server.waitUntil { $0.open == 0 }
        await server.stop()
    }

    @Test("refused upgrades leave no socket open, whether the server keeps the refused connection or closes it")
    func refusedUpgradesLeaveNoSocket() async throws {
        let refusals = 5
        func expectNoSocket(toPort port: Int) {
            guard let open = openClientSockets(toPort: port) else { return }  // no /proc/net/tcp here
            #expect(open == 0)
        }
        func connect(_ url: String, credentials: SessionCredentials) async -> SessionFailure? {
            let factory = StoatConnectionFactory(eventsURL: { url }, clock: TestClock())
            let events = ConnectionEvents()
            _ = events.run(factory.makeConnection(for: credentials, generation: 1))
            return await events.ended()
        }
        // The reference server (Hummingbird) closes a connection it refused to upgrade.
        let reference = try await ReferenceServer.start()
        await reference.refuseNextUpgrades(refusals)
        for _ in 0..<refusals {
            let end = await connect(reference.eventsURL.absoluteString, credentials: Self.credentials(reference))
            #expect(end?.temporaryCode == .connectFailed)
        }
        #expect(await reference.socketCounters().upgradesRefused == refusals)
        // This socket reports its end once its channel is closed, so nothing is left to wait for.
        expectNoSocket(toPort: reference.port)
        await reference.stop()
        // A keep-alive server keeps it: only the client can close it.
        let keeping = try await ScriptedWebSocketServer.start(answer: .refuse(status: 403))
        for _ in 0..<refusals {
            let end = await connect(keeping.url().absoluteString, credentials: SessionCredentials(token: "t"))
            #expect(end?.temporaryCode == .connectFailed)
        }
        expectNoSocket(toPort: keeping.port)
        await keeping.waitUntil { $0.accepted == refusals }
        await keeping.waitUntil { $0.open == 0 }
        await keeping.stop()
    }

    @Test("close() while the events URL is being asked returns at once, without a report, and stops the asking")
    func closeWhileAskingForTheURL() async throws {
        let asked = AsyncStream.makeStream(of: Void.self)
        let cancelled = AsyncStream.makeStream(of: Void.self)
        let factory = StoatConnectionFactory(
            eventsURL: {
                asked.continuation.yield()
                // A server that never answers GET /: waits until the asking is cancelled.
                await withTaskCancellationHandler {
                    try? await TestClock().sleep(for: .seconds(3600))
                } onCancel: {
                    cancelled.continuation.yield()
                }
                throw CancellationError()
            }, clock: TestClock())
        let connection = factory.makeConnection(for: SessionCredentials(token: "t"), generation: 1)
        let events = ConnectionEvents()
        _ = events.run(connection)
        _ = await asked.stream.first { _ in true }
        connection.close()
        await events.wait { $0 == nil }
        _ = await cancelled.stream.first { _ in true }
        #expect(events.all.isEmpty)
    }

    @Test("the connect timeout runs while the events URL is being asked")
    func timeoutWhileAskingForTheURL() async throws {
        let clock = TestClock()
        let factory = StoatConnectionFactory(
            eventsURL: {
                try await clock.sleep(for: .seconds(3600))
                return "ws://127.0.0.1:1/"
            }, clock: clock)
        let events = ConnectionEvents()
        _ = events.run(factory.makeConnection(for: SessionCredentials(token: "t"), generation: 1))
        await clock.waitForPendingSleeps(2)
        clock.advance(by: .seconds(10))
        #expect(
            await events.ended() == .temporary(.init(code: .connectTimeout, message: "no message within 10.0 seconds")))
    }

    @Test("a significant event is played as its frame once the socket is open; before, the socket is not open")
    func play() async throws {
        let server = try await ReferenceServer.start()
        let url = server.eventsURL.absoluteString
        let factory = StoatConnectionFactory(eventsURL: { url }, clock: TestClock())
        let connection = factory.makeConnection(for: Self.credentials(server), generation: 1)
        await #expect(throws: StoatConnectionError.self) {
            try await connection.play(SignificantEvent(.subscribe, server.lobbyServerID))
        }
        let events = ConnectionEvents()
        let task = events.run(connection)
        await events.wait { $0 == .ready }
        try await connection.play(SignificantEvent(.subscribe, server.lobbyServerID))
        try await server.waitUntil(timeout: .failureBound) { records, _ in
            records.last?.receivedFrames.contains { $0.contains(#""type":"Subscribe""#) } == true
        }
        do {
            try await connection.play(SignificantEvent(.unsubscribe, server.lobbyServerID))
            Issue.record("Stoat has no Unsubscribe frame")
        } catch let error as StoatConnectionError {
            #expect(error.code == .unsupportedEvent)
        }
        task.cancel()
        await task.value
        try await server.waitUntil(timeout: .failureBound) { _, counters in counters.liveSockets == 0 }
        #expect(!events.all.contains { if case .ended = $0 { true } else { false } }, "a cancelled run reports nothing")
        await server.stop()
    }

    @Test("a play is answered at once: succeeded when the open socket takes its frame, failed before it opens")
    func startPlayAnswersAtOnce() async throws {
        let server = try await ReferenceServer.start()
        let url = server.eventsURL.absoluteString
        let factory = StoatConnectionFactory(eventsURL: { url }, clock: TestClock())
        let connection = factory.makeConnection(for: Self.credentials(server), generation: 1)
        guard case .failed(let early as StoatConnectionError) = connection.startPlay(.init(.subscribe, "early")) else {
            Issue.record("a play before the socket opens fails at once")
            return
        }
        #expect(early.code == .notOpen)
        let events = ConnectionEvents()
        let task = events.run(connection)
        await events.wait { $0 == .ready }
        let servers = (0..<20).map { "answered-\($0)" }
        for id in servers {
            guard case .succeeded = connection.startPlay(SignificantEvent(.subscribe, id)) else {
                Issue.record("a frame the open socket takes is answered at once, not awaited")
                return
            }
        }
        try await server.waitUntil(timeout: .failureBound) { records, _ in
            records.last?.subscriptions.count == servers.count
        }
        guard case .failed(let refused as StoatConnectionError) = connection.startPlay(.init(.unsubscribe, "x")) else {
            Issue.record("Stoat has no Unsubscribe frame")
            return
        }
        #expect(refused.code == .unsupportedEvent)
        task.cancel()
        await task.value
        try await server.waitUntil(timeout: .failureBound) { _, counters in counters.liveSockets == 0 }
        await server.stop()
    }
}

extension SessionFailure {
    /// A temporary end's code.
    var temporaryCode: TemporaryFailureCause.Code? {
        if case .temporary(let cause) = self { cause.code } else { nil }
    }
}

extension SessionConnection {
    /// Plays an event and waits for its answer, as the session does with `startPlay`.
    fileprivate func play(_ event: SignificantEvent) async throws {
        switch startPlay(event) {
        case .succeeded: return
        case .failed(let error): throw error
        case .pending(let answer): try await answer()
        }
    }
}
