import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOWebSocket
import Synchronization
import Testing

@testable import LifelineStoat

/// What a test's socket told its delegate, in order.
final class RecordingDelegate: WebSocketTransportDelegate {
    enum Event: Sendable, Hashable {
        case opened
        case text(String)
        case binary([UInt8])
        case ended(WebSocketTransportEnd)
    }

    /// Whether each message is handled (``WebSocketTransport/consumed(messages:bytes:)``) as it arrives.
    let consumes: Bool
    private let recorded = Waiters<[Event]>([])

    init(consumes: Bool = true) {
        self.consumes = consumes
    }

    var events: [Event] { recorded.value }
    var messages: [Event] {
        events.filter { if case .text = $0 { true } else if case .binary = $0 { true } else { false } }
    }

    var end: WebSocketTransportEnd? {
        events.lazy.compactMap { if case .ended(let end) = $0 { end } else { nil } }.first
    }

    func webSocketOpened(_ socket: WebSocketTransport) { append(.opened) }

    func webSocket(_ socket: WebSocketTransport, received message: WebSocketTransport.Message) {
        switch message {
        case .text(let bytes): append(.text(String(buffer: bytes)))
        case .binary(let bytes): append(.binary(Array(bytes.readableBytesView)))
        }
        if consumes { socket.consumed(messages: 1, bytes: message.bytes.readableBytes) }
    }

    func webSocket(_ socket: WebSocketTransport, endedWith end: WebSocketTransportEnd) { append(.ended(end)) }

    /// Waits until the events satisfy `condition` (the test's time limit bounds it).
    func wait(until condition: @escaping @Sendable ([Event]) -> Bool) async {
        await recorded.wait(until: condition)
    }

    /// Waits for the end and returns it.
    func ended() async -> WebSocketTransportEnd? {
        await wait { events in events.contains { if case .ended = $0 { true } else { false } } }
        return end
    }

    private func append(_ event: Event) {
        recorded.update { $0.append(event) }
    }
}

@Suite("The WebSocket transport on NIO channel handlers", .hangBound)
struct WebSocketTransportTests {
    static func connector(
        maximumMessageSize: Int = 1 << 20, tls: TLSConfiguration = .makeClientConfiguration(),
        pendingMessageLimit: Int = 64
    ) -> WebSocketConnector {
        WebSocketConnector(
            configuration: .init(
                maximumMessageSize: maximumMessageSize, tls: tls, pendingMessageLimit: pendingMessageLimit,
                connectTimeout: .failureBound))
    }

    /// Opens a socket to the server and waits until it is open.
    static func open(
        _ server: ScriptedWebSocketServer, connector: WebSocketConnector = connector(),
        delegate: RecordingDelegate = RecordingDelegate()
    ) async -> (WebSocketTransport, RecordingDelegate) {
        let socket = connector.connect(to: server.url(), delegate: delegate)
        await delegate.wait { $0.contains(.opened) || $0.contains { if case .ended = $0 { true } else { false } } }
        return (socket, delegate)
    }

    @Test("the upgrade asks for the URL's path and query; every frame the client sends is masked")
    func upgradeAndMasking() async throws {
        let server = try await ScriptedWebSocketServer.start()
        let delegate = RecordingDelegate()
        let socket = Self.connector().connect(
            to: server.url("/events?version=1&format=json&ready=users&ready=servers"), delegate: delegate)
        await delegate.wait { $0.contains(.opened) }
        socket.send(text: #"{"type":"Authenticate"}"#)
        await server.waitUntil { $0.frames.count == 1 }
        let request = try #require(server.record.requests.first)
        #expect(request.target == "/events?version=1&format=json&ready=users&ready=servers")
        #expect(request.headers["upgrade"]?.lowercased() == "websocket")
        #expect(request.headers["host"] == "127.0.0.1:\(server.port)")
        #expect(
            server.record.frames == [
                .init(opcode: .text, fin: true, masked: true, data: Array(#"{"type":"Authenticate"}"#.utf8))
            ])
        // Closing sends a masked 1000 and closes the connection without waiting for an answer.
        socket.close()
        #expect(await delegate.ended()?.code == .aborted)
        await server.waitUntil { $0.open == 0 }
        let close = try #require(server.record.frames.last)
        #expect(close.opcode == .connectionClose && close.masked && close.closeCode == 1000)
        await server.stop()
    }

    @Test("a fragmented message is delivered once, whole; a ping between its fragments is answered with its data")
    func fragmentedMessage() async throws {
        let server = try await ScriptedWebSocketServer.start()
        let (socket, delegate) = await Self.open(server)
        try await server.send(
            ScriptedWebSocketServer.text(#"{"type":"Re"#, fin: false)
                + ScriptedWebSocketServer.frame(0x9, Array("are you there".utf8))
                + ScriptedWebSocketServer.continuation(#"ady","users""#, fin: false)
                + ScriptedWebSocketServer.continuation(#":[]}"#, fin: true)
                + ScriptedWebSocketServer.frame(0x2, [0, 1, 2, 255]))
        await delegate.wait { $0.count == 3 }
        #expect(delegate.events == [.opened, .text(#"{"type":"Ready","users":[]}"#), .binary([0, 1, 2, 255])])
        await server.waitUntil { $0.frames.contains { $0.opcode == .pong } }
        let pong = try #require(server.record.frames.first { $0.opcode == .pong })
        #expect(pong.masked && pong.text == "are you there")
        socket.abort()
        _ = await delegate.ended()
        await server.stop()
    }

    @Test("a peer that pings without reading the pongs cannot make the socket hold them: pings go unanswered")
    func pingFlood() async throws {
        let server = try await ScriptedWebSocketServer.start()
        let (socket, delegate) = await Self.open(server)
        try await server.setReading(false)
        // 200 000 pings of 125 bytes: 26 MB of pongs, far more than the loopback's socket buffers take.
        let ping = ScriptedWebSocketServer.frame(0x9, [UInt8](repeating: 7, count: 125))
        let batch = Array([[UInt8]](repeating: ping, count: 10_000).joined())
        for _ in 0..<20 { try await server.send(batch) }
        try await server.send(ScriptedWebSocketServer.text("after the pings"))
        await delegate.wait { $0.contains(.text("after the pings")) }
        let buffered = try await socket.bufferedOutboundBytes()
        #expect(buffered < 1 << 20, "\(buffered) bytes of pongs held")
        socket.abort()
        _ = await delegate.ended()
        await server.stop()
    }

    @Test("a fragmented message that grows past the limit ends the socket at the fragment that crosses it")
    func oversizedFragments() async throws {
        let server = try await ScriptedWebSocketServer.start()
        let (_, delegate) = await Self.open(server, connector: Self.connector(maximumMessageSize: 1000))
        let chunk = String(repeating: "x", count: 600)
        // The message never ends: the socket must not wait for its last fragment to refuse it.
        try await server.send(
            ScriptedWebSocketServer.text(chunk, fin: false) + ScriptedWebSocketServer.continuation(chunk, fin: false))
        let end = try #require(await delegate.ended())
        #expect(end.code == .messageTooLarge)
        #expect(end.wasOpen)
        #expect(delegate.messages.isEmpty)
        await server.waitUntil { $0.open == 0 }
        #expect(server.record.frames.last?.closeCode == 1009)
        await server.stop()
    }

    @Test("a frame whose header announces more than the limit ends the socket before its payload arrives")
    func oversizedFrame() async throws {
        let server = try await ScriptedWebSocketServer.start()
        let (_, delegate) = await Self.open(server, connector: Self.connector(maximumMessageSize: 1000))
        // Only the header and a few bytes: 16 MiB are announced and never sent.
        try await server.send(ScriptedWebSocketServer.frame(0x1, Array("{}".utf8), announcedLength: 16 << 20))
        let end = try #require(await delegate.ended())
        #expect(end.code == .messageTooLarge)
        await server.waitUntil { $0.open == 0 }
        await server.stop()
    }

    @Test("a close frame's code and reason reach the owner; the answer echoes the code and the channel closes")
    func closeWithCode() async throws {
        let server = try await ScriptedWebSocketServer.start()
        let (_, delegate) = await Self.open(server)
        try await server.send(ScriptedWebSocketServer.close(code: 1007, reason: "invalid payload: ü"))
        let end = try #require(await delegate.ended())
        #expect(end.code == .closed)
        #expect(end.closeCode == 1007)
        #expect(end.closeReason == "invalid payload: ü")
        #expect(end.wasOpen)
        await server.waitUntil { $0.open == 0 }
        let answer = try #require(server.record.frames.last)
        #expect(answer.opcode == .connectionClose && answer.masked && answer.closeCode == 1007)
        await server.stop()
    }

    @Test(
        "what a server may not send is a protocol violation that closes the socket",
        arguments: [
            ("a masked frame", ScriptedWebSocketServer.frame(0x1, Array("hi".utf8), mask: true)),
            ("a reserved bit", ScriptedWebSocketServer.frame(0x1, Array("hi".utf8), rsv1: true)),
            ("a continuation without a message", ScriptedWebSocketServer.continuation("hi", fin: true)),
            (
                "a message inside another",
                ScriptedWebSocketServer.text("a", fin: false) + ScriptedWebSocketServer.text("b", fin: true)
            ),
            ("an unknown opcode", ScriptedWebSocketServer.frame(0x3, Array("hi".utf8))),
            ("a fragmented ping", ScriptedWebSocketServer.frame(0x9, Array("hi".utf8), fin: false)),
        ])
    func protocolViolation(name: String, bytes: [UInt8]) async throws {
        let server = try await ScriptedWebSocketServer.start()
        let (_, delegate) = await Self.open(server)
        try await server.send(bytes)
        let end = try #require(await delegate.ended())
        #expect(end.code == .protocolViolation, "\(name): \(end)")
        #expect(delegate.messages.isEmpty)
        await server.waitUntil { $0.open == 0 }
        #expect(server.record.frames.last?.closeCode == 1002)
        await server.stop()
    }

    @Test("a refused upgrade closes its connection: after many refusals, no socket of the client is left open")
    func refusedUpgrades() async throws {
        let server = try await ScriptedWebSocketServer.start(answer: .refuse(status: 403))
        let connector = Self.connector()
        for _ in 0..<8 {
            let delegate = RecordingDelegate()
            _ = connector.connect(to: server.url(), delegate: delegate)
            let end = try #require(await delegate.ended())
            #expect(end.code == .upgradeRefused)
            #expect(end.status == 403)
            #expect(!end.wasOpen)
            #expect(!delegate.events.contains(.opened))
        }
        // The server keeps refused connections open, as a keep-alive server does: only the client closes them.
        await server.waitUntil { $0.accepted == 8 && $0.open == 0 }
        if let open = openClientSockets(toPort: server.port) { #expect(open == 0) }
        await server.stop()
    }

    @Test("an upgrade answered with a wrong accept key, or not at all, leaves no connection")
    func invalidOrSilentUpgrade() async throws {
        let server = try await ScriptedWebSocketServer.start(answer: .wrongAcceptKey)
        let delegate = RecordingDelegate()
        _ = Self.connector().connect(to: server.url(), delegate: delegate)
        let end = try #require(await delegate.ended())
        #expect(end.code == .upgradeInvalid)
        await server.waitUntil { $0.open == 0 }
        // A server that never answers: the owner's deadline aborts the socket, which closes at once.
        server.setAnswer(.silence)
        let silent = RecordingDelegate()
        let socket = Self.connector().connect(to: server.url(), delegate: silent)
        await server.waitUntil { $0.requests.count == 2 }
        socket.abort()
        #expect(await silent.ended()?.code == .aborted)
        await server.waitUntil { $0.open == 0 }
        if let open = openClientSockets(toPort: server.port) { #expect(open == 0) }
        await server.stop()
    }

    @Test("an abort before the connection is made ends the socket; a port nobody listens on fails to connect")
    func earlyEnds() async throws {
        try await withClosedPort { port in
            let delegate = RecordingDelegate()
            _ = Self.connector().connect(to: URL(string: "ws://127.0.0.1:\(port)/")!, delegate: delegate)
            let refused = try #require(await delegate.ended())
            #expect(refused.code == .connectFailed)
            #expect(refused.cause != nil)
            let early = RecordingDelegate()
            let socket = Self.connector().makeSocket(delegate: early)
            socket.abort()
            socket.connect(to: URL(string: "ws://127.0.0.1:\(port)/")!)
            #expect(await early.ended()?.code == .aborted)
        }
    }

    @Test("an abort before the socket began to open reports its end with the owner's cause; connect then opens nothing")
    func abortBeforeConnect() async throws {
        struct Reason: Error, Equatable { let name: String }
        let server = try await ScriptedWebSocketServer.start()
        let delegate = RecordingDelegate()
        let socket = Self.connector().makeSocket(delegate: delegate)
        socket.abort(because: Reason(name: "deadline"))
        // The end is reported without a connect: an owner that ends a socket before it opens hears it once.
        let end = try #require(await delegate.ended())
        #expect(end.code == .aborted && !end.wasOpen)
        #expect(end.cause as? Reason == Reason(name: "deadline"))
        #expect(socket.isAborted)
        socket.connect(to: server.url())
        // Another socket's upgrade proves the server answers: the aborted one never asked.
        let other = RecordingDelegate()
        let opened = Self.connector().connect(to: server.url("/other"), delegate: other)
        await other.wait { $0.contains(.opened) }
        #expect(server.record.requests.map { $0.target } == ["/other"])
        #expect(delegate.events.count == 1, "one end, nothing after it")
        opened.abort()
        await server.stop()
    }

    @Test("frames sent in a burst from outside the event loop are written in one of its turns, in order, each masked")
    func burstInOneTurn() async throws {
        let server = try await ScriptedWebSocketServer.start()
        // A loop of the test's own, held while the burst is sent, so the burst is all queued when it runs.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let connector = WebSocketConnector(configuration: .init(maximumMessageSize: 1 << 20), group: group)
        let (socket, _) = await Self.open(server, connector: connector)
        let gate = DispatchSemaphore(value: 0)
        socket.eventLoop.execute { gate.wait() }
        let texts = (0..<200).map { #"{"type":"Subscribe","server_id":"s\#($0)"}"# }
        let written = texts.map { socket.send(text: $0) }
        gate.signal()
        for future in written { try await future.get() }
        #expect(socket.outboundTurns == 1)
        await server.waitUntil { $0.frames.count == texts.count }
        #expect(server.record.frames.map(\.text) == texts)
        #expect(server.record.frames.allSatisfy { $0.masked && $0.opcode == .text && $0.fin })
        // Sent from the loop itself, a frame is written at once, in a turn of its own.
        try await socket.eventLoop.submit { socket.send(text: "on the loop") }.get().get()
        #expect(socket.outboundTurns == 2)
        socket.abort()
        #expect(try await socket.send(text: "too late").map { true }.recover { _ in false }.get() == false)
        await server.stop()
        try await group.shutdownGracefully()
    }

    @Test("the socket stops reading while its owner holds too many messages, and reads on once it handled them")
    func backPressure() async throws {
        let server = try await ScriptedWebSocketServer.start()
        let delegate = RecordingDelegate(consumes: false)
        let (socket, _) = await Self.open(
            server, connector: Self.connector(pendingMessageLimit: 4), delegate: delegate)
        let count = 200
        let message = String(repeating: "m", count: 32 * 1024)
        // Not awaited: the server's write completes only as the client reads.
        async let sent: Void = server.send((0..<count).flatMap { _ in ScriptedWebSocketServer.text(message) })
        await delegate.wait { $0.count >= 1 + 4 }
        #expect(socket.isReadingPaused)
        // Each batch handled lets the next in, until all arrived.
        var handled = 0
        while handled < count {
            let seen = handled
            await delegate.wait { $0.count > 1 + seen }
            let now = delegate.messages.count
            socket.consumed(messages: now - handled, bytes: (now - handled) * message.utf8.count)
            handled = now
        }
        #expect(delegate.messages.count == count)
        try await sent
        socket.abort()
        _ = await delegate.ended()
        await server.stop()
    }

    @Test("wss to a plaintext server opens with a TLS handshake: no upgrade request goes out in the clear")
    func tlsToPlaintext() async throws {
        let server = try await ScriptedWebSocketServer.start()
        let delegate = RecordingDelegate()
        let socket = Self.connector().connect(to: server.url(scheme: "wss"), delegate: delegate)
        // A plaintext HTTP server waits for a request line that never comes; the owner's deadline ends it.
        await server.waitUntil { !$0.openings.isEmpty }
        #expect(server.record.openings.first?.first == 0x16, "a TLS handshake record")
        #expect(server.record.requests.isEmpty)
        socket.abort()
        let end = try #require(await delegate.ended())
        #expect(end.code == .aborted && !end.wasOpen)
        await server.waitUntil { $0.open == 0 }
        await server.stop()
    }

    @Test("wss verifies the server's certificate against the host name it sends as SNI")
    func tlsHostName() async throws {
        let server = try await ScriptedWebSocketServer.start(tls: try LocalhostCertificate.server)
        let trusting = Self.connector(tls: try LocalhostCertificate.trustingClient)
        let delegate = RecordingDelegate()
        let socket = trusting.connect(to: server.url(scheme: "wss", host: "localhost"), delegate: delegate)
        await delegate.wait { $0.contains(.opened) }
        socket.send(text: "over TLS")
        await server.waitUntil { $0.frames.count == 1 }
        #expect(server.record.frames.first?.text == "over TLS")
        #expect(server.record.serverNames == ["localhost"])
        socket.abort()
        _ = await delegate.ended()
        // The certificate names localhost, not 127.0.0.1 (and an address is never sent as SNI).
        let byAddress = RecordingDelegate()
        _ = trusting.connect(to: server.url(scheme: "wss", host: "127.0.0.1"), delegate: byAddress)
        let mismatch = try #require(await byAddress.ended())
        #expect(mismatch.code == .connectFailed)
        #expect(server.record.serverNames.last == .some(nil))
        // The system's trust roots do not include it.
        let untrusting = RecordingDelegate()
        _ = Self.connector().connect(to: server.url(scheme: "wss", host: "localhost"), delegate: untrusting)
        let untrusted = try #require(await untrusting.ended())
        #expect(untrusted.code == .connectFailed)
        #expect(server.record.requests.count == 1, "no upgrade request reached the server over an untrusted channel")
        await server.waitUntil { $0.open == 0 }
        await server.stop()
    }
}
