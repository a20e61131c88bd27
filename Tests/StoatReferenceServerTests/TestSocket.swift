import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

@testable import StoatReferenceServer

/// How a ``TestSocket`` ended from the server's side: the close frame's code and reason.
struct WebSocketCloseFrame: Equatable {
    var closeCode: WebSocketErrorCode
    var reason: String?
}

/// Why a ``TestSocket`` never opened.
enum TestSocketError: Error, Equatable {
    /// The server answered the upgrade request with something other than 101.
    case webSocketUpgradeFailed
    /// The URL is not a `ws://` URL with a host.
    case invalidURL
}

/// A plain WebSocket client for the tests, on swift-nio's own WebSocket support: no Lifeline code. Received
/// messages are buffered in order; `next()` awaits the next one with a timeout that is only a failure bound. A
/// binary message reads as the JSON its MessagePack stands for (keys sorted); `nextMessage()` gives it as it came.
///
/// Every end is reported by the channel itself (`channelInactive`), so a socket the server ends right after the
/// upgrade is always seen to end (swift-websocket's client, which this replaced, now and then was not).
actor TestSocket {
    /// A message as it arrived.
    enum Message: Equatable {
        case text(String)
        case binary([UInt8])

        /// The text, or the JSON a binary message's MessagePack stands for.
        var text: String {
            switch self {
            case .text(let text): text
            case .binary(let bytes):
                MessagePackValue(bytes: bytes)?.bonfireJSON?.wire.text ?? "<binary \(bytes.count) bytes>"
            }
        }
    }

    struct Timeout: Error, CustomStringConvertible {
        var description: String { "No message arrived in time" }
    }

    /// What the channel reports, in order, through one stream.
    fileprivate enum Report: Sendable {
        case upgraded(any Channel)
        case message(Message)
        case closeFrame(WebSocketCloseFrame)
        case failed(any Error)
        case ended
    }

    private var buffer: [Message] = []
    private var finished = false
    private var waiter: CheckedContinuation<Void, Never>?
    private var channel: (any Channel)?
    private var unsent: [Message] = []
    private var closeRequested = false
    private var closeFrame: WebSocketCloseFrame?
    private var failure: (any Error)?
    private var endWaiters: [CheckedContinuation<Void, Never>] = []
    private var feeder: Task<Void, Never>?

    /// Connects to `url` (a full events URL with its query) and starts buffering messages.
    static func connect(_ url: String) async -> TestSocket {
        let socket = TestSocket()
        await socket.start(url: url)
        return socket
    }

    private func start(url: String) {
        let (reports, report) = AsyncStream.makeStream(of: Report.self)
        feeder = Task {
            for await item in reports { self.handle(item) }
            self.finish()
        }
        guard let parsed = URLComponents(string: url), parsed.scheme == "ws", let host = parsed.host else {
            report.yield(.failed(TestSocketError.invalidURL))
            report.finish()
            return
        }
        let port = parsed.port ?? 80
        let target =
            (parsed.percentEncodedPath.isEmpty ? "/" : parsed.percentEncodedPath)
            + (parsed.percentEncodedQuery.map { "?" + $0 } ?? "")
        // NIO's own connect timeout is 10 s, which a loaded machine exceeded: the failure bound instead.
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(TimeAmount(.failureBound))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let request = UpgradeRequestHandler(host: "\(host):\(port)", target: target, report: report)
                    let upgrader = NIOWebSocketClientUpgrader(
                        maxFrameSize: 1 << 26, automaticErrorHandling: false
                    ) { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(FrameHandler(report: report))
                            report.yield(.upgraded(channel))
                        }
                    }
                    // A server may send its first frame in the same read as the 101 (a token in the URL is
                    // answered at once): those bytes are the WebSocket's, not to be dropped with the decoder.
                    try channel.pipeline.syncOperations.addHTTPClientHandlers(
                        leftOverBytesStrategy: .forwardBytes,
                        withClientUpgrade: (
                            upgraders: [upgrader],
                            completionHandler: { context in
                                context.pipeline.removeHandler(name: UpgradeRequestHandler.name, promise: nil)
                            }
                        ))
                    try channel.pipeline.syncOperations.addHandler(request, name: UpgradeRequestHandler.name)
                }
            }
        bootstrap.connect(host: host, port: port).whenFailure { error in
            report.yield(.failed(error))
            report.finish()
        }
    }

    private func handle(_ report: Report) {
        switch report {
        case .upgraded(let channel):
            self.channel = channel
            if closeRequested {
                Self.sendClose(on: channel)
            } else {
                for message in unsent { Self.write(message, on: channel) }
            }
            unsent = []
        case .message(let message):
            buffer.append(message)
            wake()
        case .closeFrame(let frame):
            closeFrame = frame
        case .failed(let error):
            failure = failure ?? error
        case .ended:
            finish()
        }
    }

    private func finish() {
        finished = true
        wake()
        for waiter in endWaiters { waiter.resume() }
        endWaiters = []
    }

    private func wake() {
        waiter?.resume()
        waiter = nil
    }

    /// Sends a text frame.
    func send(_ text: String) {
        send(.text(text))
    }

    /// Sends a binary frame.
    func send(binary bytes: [UInt8]) {
        send(.binary(bytes))
    }

    private func send(_ message: Message) {
        guard !closeRequested else { return }
        if let channel { Self.write(message, on: channel) } else { unsent.append(message) }
    }

    private static func write(_ message: Message, on channel: any Channel) {
        let frame: WebSocketFrame
        switch message {
        case .text(let text):
            frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text))
        case .binary(let bytes):
            frame = WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(), data: ByteBuffer(bytes: bytes))
        }
        channel.writeAndFlush(frame, promise: nil)
    }

    private static func sendClose(on channel: any Channel) {
        var data = ByteBuffer()
        data.write(webSocketErrorCode: .normalClosure)
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data)
        channel.writeAndFlush(frame).whenComplete { _ in channel.close(promise: nil) }
    }

    /// The next message's text (a binary one as the JSON it stands for), or nil once the socket closed with
    /// nothing left. Throws `Timeout` past the bound.
    func next(timeout: Duration = .failureBound) async throws -> String? {
        try await nextMessage(timeout: timeout)?.text
    }

    /// The next message as it came, or nil once the socket closed with nothing left.
    func nextMessage(timeout: Duration = .failureBound) async throws -> Message? {
        let deadline = ContinuousClock.now + timeout
        while buffer.isEmpty && !finished {
            guard ContinuousClock.now < deadline else { throw Timeout() }
            let alarm = Task {
                try await Task.sleep(until: deadline)
                self.wake()
            }
            await withCheckedContinuation { waiter = $0 }
            alarm.cancel()
        }
        return buffer.isEmpty ? nil : buffer.removeFirst()
    }

    /// The next message whose `type` is not in `types` (others are read and dropped).
    func next(skipping types: Set<String>, timeout: Duration = .failureBound) async throws -> String? {
        while let text = try await next(timeout: timeout) {
            let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            if let type = object?["type"] as? String, types.contains(type) { continue }
            return text
        }
        return nil
    }

    /// The next message of type `type`, skipping others; nil if the socket closes first.
    nonisolated func nextEvent(_ type: String, timeout: Duration = .failureBound) async throws -> [String: Any]? {
        while let object = try await nextJSON(timeout: timeout) {
            if object["type"] as? String == type { return object }
        }
        return nil
    }

    /// The next message parsed as a JSON object, skipping messages of `types`.
    nonisolated func nextJSON(
        skipping types: Set<String>, timeout: Duration = .failureBound
    ) async throws
        -> [String: Any]?
    {
        guard let text = try await next(skipping: types, timeout: timeout) else { return nil }
        return try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    }

    /// The next message parsed as a JSON object.
    nonisolated func nextJSON(timeout: Duration = .failureBound) async throws -> [String: Any]? {
        guard let text = try await next(timeout: timeout) else { return nil }
        return try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    }

    /// The next message's `type`.
    nonisolated func nextType(timeout: Duration = .failureBound) async throws -> String? {
        try await nextJSON(timeout: timeout)?["type"] as? String
    }

    /// How the socket ended, once it has: the server's close frame (nil when the connection ended without one),
    /// or why it never opened.
    func outcome() async -> Result<WebSocketCloseFrame?, any Error> {
        if !finished { await withCheckedContinuation { endWaiters.append($0) } }
        if let failure, channel == nil { return .failure(failure) }
        return .success(closeFrame)
    }

    /// Closes the socket from the client side (a close frame, then the connection).
    func close() {
        guard !closeRequested else { return }
        closeRequested = true
        unsent = []
        if let channel { Self.sendClose(on: channel) }
    }
}

/// Sends the upgrade request once connected; sees the response only when the server refused the upgrade.
private final class UpgradeRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart
    static let name = "test-socket-upgrade-request"

    private let host: String
    private let target: String
    private let report: AsyncStream<TestSocket.Report>.Continuation

    init(host: String, target: String, report: AsyncStream<TestSocket.Report>.Continuation) {
        self.host = host
        self.target = target
        self.report = report
    }

    func channelActive(context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: host)
        headers.add(name: "Content-Length", value: "0")
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            report.yield(.failed(TestSocketError.webSocketUpgradeFailed))
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        report.yield(.failed(error))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        report.yield(.ended)
        report.finish()
    }
}

/// Reads frames after the upgrade: joins fragments, answers pings, records the server's close frame and answers
/// it, and reports the end when the connection goes.
private final class FrameHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let report: AsyncStream<TestSocket.Report>.Continuation
    private var fragments: ByteBuffer?
    private var fragmentsAreText = false
    private var closing = false

    init(report: AsyncStream<TestSocket.Report>.Continuation) {
        self.report = report
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary:
            fragmentsAreText = frame.opcode == .text
            fragments = frame.unmaskedData
            if frame.fin { deliver() }
        case .continuation:
            var data = frame.unmaskedData
            fragments?.writeBuffer(&data)
            if frame.fin { deliver() }
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            var data = frame.unmaskedData
            let code = data.readWebSocketErrorCode() ?? .unknown(1005)
            let reason = data.readString(length: data.readableBytes)
            report.yield(.closeFrame(WebSocketCloseFrame(closeCode: code, reason: reason)))
            guard !closing else {
                context.close(promise: nil)
                return
            }
            closing = true
            var answer = ByteBuffer()
            answer.write(webSocketErrorCode: code)
            let reply = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: answer)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(reply)).whenComplete { _ in channel.close(promise: nil) }
        default:
            break
        }
    }

    private func deliver() {
        guard var buffer = fragments else { return }
        fragments = nil
        if fragmentsAreText {
            report.yield(.message(.text(buffer.readString(length: buffer.readableBytes) ?? "")))
        } else {
            report.yield(.message(.binary(buffer.readBytes(length: buffer.readableBytes) ?? [])))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        report.yield(.failed(error))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        report.yield(.ended)
        report.finish()
    }
}
