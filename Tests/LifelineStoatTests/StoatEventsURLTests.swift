import Foundation
import Lifeline
import LifelineCore
import LifelineStoat
import LifelineTesting
import StoatReferenceServer
import Testing

/// The socket's scheme decides TLS, case-insensitively, before the token's frame is written.
@Suite("The events socket's scheme", .timeLimit(.minutes(1)))
struct StoatEventsURLTests {
    /// Runs one connection to `url` until it is ready (then cancels it) or ends, and returns its events.
    static func run(_ url: String, server: ReferenceServer) async -> [ConnectionEvent] {
        let factory: any ConnectionFactory =
            switch StoatHarness.socket {
            case .webSocketClient: StoatConnectionFactory(eventsURL: { url }, clock: TestClock())
            case .channelHandlers: NIOStoatConnectionFactory(eventsURL: { url }, clock: TestClock())
            }
        let connection = factory.makeConnection(
            for: SessionCredentials(token: server.defaultAccount.token, userID: server.defaultAccount.userID),
            generation: 1)
        let (stream, continuation) = AsyncStream.makeStream(of: ConnectionEvent.self)
        let task = Task {
            await connection.run { continuation.yield($0) }
            continuation.finish()
        }
        var events: [ConnectionEvent] = []
        for await event in stream {
            events.append(event)
            if event == .ready { task.cancel() }
        }
        return events
    }

    @Test("an upper-case WSS URL opens TLS: against a plaintext server it fails before any frame is sent")
    func upperCaseTLS() async throws {
        let server = try await ReferenceServer.start()
        let url = server.eventsURL.absoluteString.replacingOccurrences(of: "ws://", with: "WSS://")
        let events = await Self.run(url, server: server)
        #expect(!events.contains(.opened))
        guard case .ended(.temporary(let cause))? = events.last else {
            Issue.record("\(events)")
            await server.stop()
            return
        }
        #expect(cause.code == .connectFailed)
        let records = await server.connections()
        #expect(records.allSatisfy { $0.receivedFrames.isEmpty })
        await server.stop()
    }

    @Test("an upper-case WS URL to a plaintext server connects")
    func upperCasePlaintext() async throws {
        let server = try await ReferenceServer.start()
        let url = server.eventsURL.absoluteString.replacingOccurrences(of: "ws://", with: "WS://")
        let events = await Self.run(url, server: server)
        #expect(events.prefix(3) == [.opened, .authenticated, .ready])
        await server.stop()
    }

    @Test("a URL that is not a WebSocket's is refused without connecting")
    func foreignScheme() async throws {
        let server = try await ReferenceServer.start()
        let url = server.eventsURL.absoluteString.replacingOccurrences(of: "ws://", with: "ftp://")
        let events = await Self.run(url, server: server)
        #expect(events.count == 1)
        #expect((await server.connections()).isEmpty)
        await server.stop()
    }
}
