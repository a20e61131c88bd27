import Crypto
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import NIOWebSocket
import Synchronization

/// A WebSocket server over real loopback sockets that misbehaves on request, for the channel-handler socket's
/// tests: it answers the upgrade as told (accept, refuse and keep the connection open, a wrong accept key,
/// never), records what clients send (request targets, frames, whether they were masked), and sends frames
/// written byte by byte — fragmented, oversized, masked, reserved bits, close codes.
///
/// Everything a test waits for is an event it can name (``waitUntil(_:)``); the test's time limit bounds it.
final class ScriptedWebSocketServer: Sendable {
    /// How the server answers an upgrade request.
    enum Answer: Sendable {
        /// 101 with the right accept key.
        case accept
        /// Another status, keeping the connection open as a keep-alive server does.
        case refuse(status: Int)
        /// 101 with an accept key that does not match.
        case wrongAcceptKey
        /// No answer at all.
        case silence
    }

    /// A frame a client sent, unmasked.
    struct ReceivedFrame: Sendable, Hashable {
        var opcode: WebSocketOpcode
        var fin: Bool
        var masked: Bool
        var data: [UInt8]

        var text: String { String(decoding: data, as: UTF8.self) }
        /// A close frame's code.
        var closeCode: UInt16? {
            data.count >= 2 ? UInt16(data[0]) << 8 | UInt16(data[1]) : nil
        }
    }

    /// What the server saw.
    struct Record: Sendable {
        /// Connections accepted, and open now.
        var accepted = 0
        var open = 0
        /// The targets (path and query) and headers of the upgrade requests, in order.
        var requests: [(target: String, headers: [String: String])] = []
        /// The host names clients sent as SNI (TLS only), in order; `nil` for none.
        var serverNames: [String?] = []
        /// Frames received on upgraded connections, in order, across connections.
        var frames: [ReceivedFrame] = []
        /// The first bytes each connection sent (up to 16), in order of arrival.
        var openings: [[UInt8]] = []
    }

    private struct State {
        var answer: Answer
        var upgraded: [any Channel] = []
    }

    let port: Int
    private let channel: any Channel
    private let state: Mutex<State>
    private let seen = Waiters(Record())

    private init(channel: any Channel, answer: Answer) {
        self.channel = channel
        port = channel.localAddress?.port ?? 0
        state = Mutex(State(answer: answer))
    }

    /// Starts a server on 127.0.0.1, with TLS when `tls` is given.
    static func start(answer: Answer = .accept, tls: TLSConfiguration? = nil) async throws -> ScriptedWebSocketServer {
        let box = Box()
        let sslContext = try tls.map { try NIOSSLContext(configuration: $0) }
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let server = box.server else { throw ChannelError.ioOnClosedChannel }
                    server.opened(channel)
                    if let sslContext {
                        try channel.pipeline.syncOperations.addHandler(
                            ByteToMessageHandler(
                                SNIHandler { result in
                                    server.sawServerName(result)
                                    return channel.eventLoop.makeSucceededVoidFuture()
                                }))
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sslContext))
                    }
                    try channel.pipeline.syncOperations.addHandler(HandshakeHandler(server: server))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = ScriptedWebSocketServer(channel: channel, answer: answer)
        box.server = server
        return server
    }

    /// The URL of the socket, with this path and query.
    func url(scheme: String = "ws", host: String = "127.0.0.1", _ pathAndQuery: String = "/events") -> URL {
        URL(string: "\(scheme)://\(host):\(port)\(pathAndQuery)")!
    }

    var record: Record { seen.value }

    /// Changes how later upgrades are answered.
    func setAnswer(_ answer: Answer) { state.withLock { $0.answer = answer } }

    /// Waits until what the server saw satisfies `condition`.
    func waitUntil(_ condition: @escaping @Sendable (Record) -> Bool) async {
        await seen.wait(until: condition)
    }

    /// Writes raw bytes to every upgraded connection still open.
    func send(_ bytes: [UInt8]) async throws {
        let channels = state.withLock { $0.upgraded }
        for channel in channels where channel.isActive {
            try await channel.writeAndFlush(channel.allocator.buffer(bytes: bytes)).get()
        }
    }

    /// Stops or resumes reading what clients send on upgraded connections (their frames then wait in the
    /// sockets' buffers).
    func setReading(_ reading: Bool) async throws {
        let channels = state.withLock { $0.upgraded }
        for channel in channels { try await channel.setOption(ChannelOptions.autoRead, value: reading).get() }
    }

    /// Closes the server's listening socket and every connection.
    func stop() async {
        let channels = state.withLock { $0.upgraded }
        for channel in channels { try? await channel.close() }
        try? await channel.close()
    }

    // MARK: - Frames, byte by byte (RFC 6455 §5.2), as a server writes them: unmasked unless told

    static func frame(
        _ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv1: Bool = false, mask: Bool = false,
        announcedLength: Int? = nil
    ) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | opcode]
        let length = announcedLength ?? payload.count
        let maskBit: UInt8 = mask ? 0x80 : 0
        if length < 126 {
            bytes.append(maskBit | UInt8(length))
        } else if length <= 0xFFFF {
            bytes.append(maskBit | 126)
            bytes += [UInt8(length >> 8), UInt8(length & 0xFF)]
        } else {
            bytes.append(maskBit | 127)
            bytes += (0..<8).reversed().map { UInt8((length >> ($0 * 8)) & 0xFF) }
        }
        guard mask else { return bytes + payload }
        let key: [UInt8] = [1, 2, 3, 4]
        return bytes + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
    }

    static func text(_ text: String, fin: Bool = true) -> [UInt8] { frame(0x1, Array(text.utf8), fin: fin) }
    static func continuation(_ text: String, fin: Bool) -> [UInt8] { frame(0x0, Array(text.utf8), fin: fin) }
    static func close(code: UInt16, reason: String) -> [UInt8] {
        frame(0x8, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8))
    }

    // MARK: - What the handlers report

    fileprivate func opened(_ channel: any Channel) {
        seen.update {
            $0.accepted += 1
            $0.open += 1
        }
        channel.closeFuture.whenComplete { _ in self.seen.update { $0.open -= 1 } }
    }

    fileprivate func sawServerName(_ result: SNIResult) {
        seen.update { record in
            switch result {
            case .hostname(let name): record.serverNames.append(name)
            case .fallback: record.serverNames.append(nil)
            }
        }
    }

    fileprivate func requested(target: String, headers: [String: String]) -> Answer {
        seen.update { $0.requests.append((target, headers)) }
        return state.withLock { $0.answer }
    }

    fileprivate func opening(_ bytes: [UInt8]) { seen.update { $0.openings.append(bytes) } }

    fileprivate func upgraded(_ channel: any Channel) { state.withLock { $0.upgraded.append(channel) } }

    fileprivate func received(_ frame: ReceivedFrame) { seen.update { $0.frames.append(frame) } }

    private final class Box: @unchecked Sendable {
        // Set once, before the first connection can be accepted.
        var server: ScriptedWebSocketServer?
    }
}

/// Reads the upgrade request and answers it as the server is told; after a 101, reads frames.
private final class HandshakeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let server: ScriptedWebSocketServer
    private var request: [UInt8] = []

    init(server: ScriptedWebSocketServer) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if request.isEmpty { server.opening(Array(unwrapInboundIn(data).readableBytesView.prefix(16))) }
        request += unwrapInboundIn(data).readableBytesView
        guard let end = request.firstRange(of: Array("\r\n\r\n".utf8)) else { return }
        let lines = String(decoding: request[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let target = lines.first?.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let answer = server.requested(target: target, headers: headers)
        let key = headers["sec-websocket-key"] ?? ""
        switch answer {
        case .accept, .wrongAcceptKey:
            let accepted = Data(Insecure.SHA1.hash(data: Data((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)))
                .base64EncodedString()
            let response =
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: \(answer.isAccept ? accepted : "d3Jvbmcga2V5IGZvciB0aGlzIHRlc3Q=")\r\n\r\n"
            if answer.isAccept {
                // Ready for frames before the client can know it is open (it may send, or a test may, at once).
                let pipeline = context.pipeline.syncOperations
                try? pipeline.addHandler(ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: 1 << 24)))
                try? pipeline.addHandler(FrameRecorder(server: server))
                server.upgraded(context.channel)
            }
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: response)), promise: nil)
            if answer.isAccept { context.pipeline.syncOperations.removeHandler(context: context, promise: nil) }
        case .refuse(let status):
            let response = "HTTP/1.1 \(status) Refused\r\nContent-Length: 0\r\n\r\n"
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: response)), promise: nil)
            request = []
        case .silence:
            break
        }
    }
}

extension ScriptedWebSocketServer.Answer {
    fileprivate var isAccept: Bool {
        if case .accept = self { return true }
        return false
    }
}

/// Records the frames a client sends.
private final class FrameRecorder: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame

    let server: ScriptedWebSocketServer

    init(server: ScriptedWebSocketServer) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        server.received(
            .init(
                opcode: frame.opcode, fin: frame.fin, masked: frame.maskKey != nil,
                data: Array(frame.unmaskedData.readableBytesView)))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// A certificate and key for `localhost` (and only that name), self-signed, valid until 2126: the TLS
/// server's identity, and the trust root of clients that should accept it.
enum LocalhostCertificate {
    static let certificate = """
        -----BEGIN CERTIFICATE-----
        MIIBpTCCAUugAwIBAgIUD1wcs45ql9PQ/RfZypkHBD4hXawwCgYIKoZIzj0EAwIw
        FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyNTAwNDYwNloYDzIxMjYxMTAx
        MDA0NjA2WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
        PQMBBwNCAAQi/FmKwy6Ha0MXb8hcKKKv1LNULmfgz+1xse8vyvjYhuRsIyDjIG3P
        gkmX4Po0hOKnJhOcgaZoDvP1K0gu6ArUo3kwdzAdBgNVHQ4EFgQUiKiETQ9lQ9ft
        +jYhthC5rZgF/88wHwYDVR0jBBgwFoAUiKiETQ9lQ9ft+jYhthC5rZgF/88wFAYD
        VR0RBA0wC4IJbG9jYWxob3N0MA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQD
        AgKEMAoGCCqGSM49BAMCA0gAMEUCIQDTFxocAwx/+K6bwWAbdprDPbaTtAqi1DfI
        SyYj024hggIgCPTsGOR5uXLYKgtzn7SRf0fftRHRXw8nbF2ntCfpitY=
        -----END CERTIFICATE-----
        """
    // A key made for these tests alone; it protects nothing.
    static let privateKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg3dDr9smVtNLkVto/
        nHxBn4ITNm44KHx/o0dUUyCiYd6hRANCAAQi/FmKwy6Ha0MXb8hcKKKv1LNULmfg
        z+1xse8vyvjYhuRsIyDjIG3PgkmX4Po0hOKnJhOcgaZoDvP1K0gu6ArU
        -----END PRIVATE KEY-----
        """

    static var server: TLSConfiguration {
        get throws {
            TLSConfiguration.makeServerConfiguration(
                certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(certificate.utf8), format: .pem))],
                privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(privateKey.utf8), format: .pem)))
        }
    }

    /// A client configuration that trusts this certificate alone.
    static var trustingClient: TLSConfiguration {
        get throws {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(certificate.utf8), format: .pem)])
            return tls
        }
    }
}

/// The client's TCP sockets to a local port that are still established or waiting to be closed
/// (`CLOSE_WAIT`), read from `/proc/net/tcp` and `/proc/net/tcp6`; `nil` where those files do not exist.
func openClientSockets(toPort port: Int) -> Int? {
    var found = 0
    var readAny = false
    for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
        // Read to the end: /proc files report no size, and a single read gives only a page of the table.
        guard let handle = FileHandle(forReadingAtPath: file), let data = try? handle.readToEnd() else { continue }
        let table = String(decoding: data, as: UTF8.self)
        readAny = true
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            // sl local_address rem_address st …; addresses are HEX_IP:HEX_PORT.
            guard fields.count > 3,
                let remotePort = fields[2].split(separator: ":").last.flatMap({ Int($0, radix: 16) })
            else { continue }
            // 01 ESTABLISHED, 08 CLOSE_WAIT: a socket whose descriptor is still open.
            if remotePort == port, fields[3] == "01" || fields[3] == "08" { found += 1 }
        }
    }
    return readAny ? found : nil
}
