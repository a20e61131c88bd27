import Foundation
import Lifeline
import LifelineCore
import LifelineStoat
import LifelineTesting
import StoatReferenceServer
import Testing

/// The socket's scheme decides TLS, case-insensitively, before the token's frame is written.
@Suite("The events socket's scheme", .hangBound)
struct StoatEventsURLTests {
    /// Runs one connection to `url` until it is ready (then cancels it) or ends, and returns its events.
    static func run(_ url: String, server: ReferenceServer) async -> [ConnectionEvent] {
        let factory = StoatConnectionFactory(eventsURL: { url }, clock: TestClock())
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

    /// The socket sends no SNI for an address and starts the handshake, which a plaintext server never
    /// answers — so the connect timeout ends it, and nothing was sent in the clear.
    @Test(
        "an upper-case WSS URL opens TLS: against a plaintext server no frame is sent, and the connect timeout ends it")
    func upperCaseTLS() async throws {
        let server = try await ReferenceServer.start()
        let url = server.eventsURL.absoluteString.replacingOccurrences(of: "ws://", with: "WSS://")
        let clock = TestClock()
        let factory = StoatConnectionFactory(eventsURL: { url }, clock: clock)
        let events = ConnectionEvents()
        _ = events.run(
            factory.makeConnection(
                for: SessionCredentials(token: server.defaultAccount.token, userID: server.defaultAccount.userID),
                generation: 1))
        await clock.waitForSleep(until: .init(offset: .seconds(10)))
        clock.advance(by: .seconds(10))
        #expect(await events.ended()?.temporaryCode == .connectTimeout)
        #expect(!events.all.contains(.opened))
        #expect(await server.socketCounters().upgradesAccepted == 0)
        #expect((await server.connections()).allSatisfy { $0.receivedFrames.isEmpty })
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
