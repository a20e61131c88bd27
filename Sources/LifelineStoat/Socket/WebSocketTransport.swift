package import Foundation
package import NIOCore
import NIOHTTP1
import NIOPosix
package import NIOSSL
import NIOWebSocket
import Synchronization

/// What a ``WebSocketTransport`` tells its owner. Every call comes on the socket's event loop, in order:
/// at most one ``webSocketOpened(_:)``, then the messages, then exactly one
/// ``webSocket(_:endedWith:)`` — once the socket is closed, so nothing of it is left open after.
///
/// The calls must return quickly (they run on the event loop); an owner hands a message to its own task
/// and says when it has handled it with ``WebSocketTransport/consumed(messages:bytes:)``.
package protocol WebSocketTransportDelegate: AnyObject, Sendable {
    /// The upgrade succeeded: the socket can send.
    func webSocketOpened(_ socket: WebSocketTransport)
    /// A whole message arrived, reassembled from its fragments.
    func webSocket(_ socket: WebSocketTransport, received message: WebSocketTransport.Message)
    /// The socket is closed, and why. The last call.
    func webSocket(_ socket: WebSocketTransport, endedWith end: WebSocketTransportEnd)
}

/// Opens ``WebSocketTransport``s: the settings and the TLS context every socket of one owner shares.
///
/// The TLS context is made once, from the configuration's `TLSConfiguration`, the first time a `wss` socket
/// opens (loading trust roots is the expensive part of TLS setup, so no socket pays it again).
package final class WebSocketConnector: Sendable {
    /// The sockets' limits and TLS.
    package struct Configuration: Sendable {
        /// The largest message accepted, in bytes; a larger one ends the socket with
        /// ``WebSocketTransportEndCode/messageTooLarge`` before it is held.
        package var maximumMessageSize: Int
        /// TLS for `wss` URLs. Certificates are verified as it says, against the URL's host name (also sent as
        /// SNI unless the host is an IP address). The socket does not wait for the peer's `close_notify`.
        package var tls: TLSConfiguration
        /// How many delivered messages the owner may leave unhandled before the socket stops reading.
        package var pendingMessageLimit: Int
        /// How long the TCP connection may take to open before the socket ends with
        /// ``WebSocketTransportEndCode/connectFailed``. The owner's own deadline (the session's connect timeout)
        /// is the one that matters, so its owner passes that deadline here: NIO's default of 10 s ended sockets
        /// on a loaded machine that the session had allowed two minutes.
        package var connectTimeout: Duration

        /// Creates a configuration.
        package init(
            maximumMessageSize: Int = 16 << 20, tls: TLSConfiguration = .makeClientConfiguration(),
            pendingMessageLimit: Int = 64, connectTimeout: Duration = .seconds(10)
        ) {
            self.maximumMessageSize = maximumMessageSize
            self.tls = tls
            self.pendingMessageLimit = pendingMessageLimit
            self.connectTimeout = connectTimeout
        }
    }

    let configuration: Configuration
    let group: any EventLoopGroup
    private let tlsContext = Mutex<Result<NIOSSLContext, any Error>?>(nil)

    /// Creates a connector.
    ///
    /// - Parameters:
    ///   - configuration: The sockets' limits and TLS.
    ///   - group: Where the sockets run; by default NIO's shared group, one thread per core.
    package init(configuration: Configuration, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) {
        self.configuration = configuration
        self.group = group
    }

    /// Makes a socket that reports to `delegate`; it opens when ``WebSocketTransport/connect(to:)`` is called,
    /// so that its owner can hold it before the delegate hears anything.
    package func makeSocket(delegate: some WebSocketTransportDelegate) -> WebSocketTransport {
        WebSocketTransport(connector: self, eventLoop: group.next(), delegate: delegate)
    }

    /// Makes a socket and starts opening it to `url`.
    package func connect(to url: URL, delegate: some WebSocketTransportDelegate) -> WebSocketTransport {
        let socket = makeSocket(delegate: delegate)
        socket.connect(to: url)
        return socket
    }

    /// The TLS context, made on first use; a configuration that cannot make one fails every `wss` socket.
    func sslContext() throws -> NIOSSLContext {
        try tlsContext.withLock { context in
            if let context { return context }
            var tls = configuration.tls
            // An ending socket is closed at once; waiting for the peer's close_notify could hold it.
            tls.shutdownTimeout = .zero
            let made = Result { try NIOSSLContext(configuration: tls) }
            context = made
            return made
        }.get()
    }
}

/// One WebSocket client connection as NIO channel handlers: no task of its own, no task to cancel.
///
/// The channel's pipeline is, for `wss`, NIOSSL's client handler, then NIOHTTP1's upgrading HTTP client with
/// NIOWebSocket's client upgrader; after a 101 with the right accept key, NIOWebSocket's frame encoder and
/// decoder (at most the message limit per frame) and ``WebSocketFrameHandler``, which reassembles
/// fragmented messages, answers pings and reads the close frame. Every frame this side sends is masked.
///
/// Any end closes the channel: a refused or invalid upgrade, a close frame (answered, then closed without
/// waiting), a protocol violation, an oversized message, ``abort(because:)``. The delegate hears the end only once
/// the channel is closed, so a socket whose end was reported holds no descriptor — no `CLOSE_WAIT`.
package final class WebSocketTransport: Sendable {
    /// A whole message, as the bytes it arrived in (reassembled into one buffer when fragmented).
    package enum Message: Sendable, Hashable {
        /// A text message: UTF-8 as the peer sent it, unvalidated (the reader validates what it reads).
        case text(ByteBuffer)
        /// A binary message.
        case binary(ByteBuffer)

        /// The message's bytes.
        package var bytes: ByteBuffer {
            switch self {
            case .text(let bytes), .binary(let bytes): bytes
            }
        }
    }

    private struct State {
        var delegate: (any WebSocketTransportDelegate)?
        /// The connected channel; `nil` before the connection is made and after the end was reported.
        var channel: (any NIOCore.Channel)?
        /// The channels still trying to connect (one per address tried), closed by an early abort.
        var candidates: [any NIOCore.Channel] = []
        var end: WebSocketTransportEnd?
        var isOpen = false
        var isAborted = false
        /// Whether ``connect(to:)`` began opening the socket.
        var isStarted = false
        /// Messages delivered and not yet handled by the owner, and their bytes.
        var pendingMessages = 0
        var pendingBytes = 0
        var readingPaused = false
        /// Frames sent and not yet handed to the channel: written, in order, at the event loop's next turn.
        var outbound: [(frame: WebSocketFrame, promise: EventLoopPromise<Void>)] = []
        /// How many turns of the event loop wrote ``outbound``'s frames.
        var outboundTurns = 0

        /// Records why the socket ends, unless a reason was recorded first.
        mutating func record(
            _ code: WebSocketTransportEnd.Code, _ message: String, status: Int? = nil, closeCode: UInt16? = nil,
            closeReason: String? = nil, cause: (any Error)? = nil
        ) {
            guard end == nil else { return }
            end = WebSocketTransportEnd(
                code: code, message: message, wasOpen: isOpen, status: status, closeCode: closeCode,
                closeReason: closeReason, cause: cause)
        }
    }

    /// The event loop the socket runs on, from the start.
    package let eventLoop: any EventLoop
    let connector: WebSocketConnector
    private let state: Mutex<State>

    fileprivate init(connector: WebSocketConnector, eventLoop: any EventLoop, delegate: any WebSocketTransportDelegate)
    {
        self.connector = connector
        self.eventLoop = eventLoop
        state = Mutex(State(delegate: delegate))
    }

    /// Whether the upgrade succeeded and the socket has not ended.
    package var isOpen: Bool { state.withLock { $0.isOpen && $0.channel != nil } }

    /// Whether the socket is open and its outbound buffer has room (the peer is taking what is sent).
    package var isWritable: Bool {
        guard let channel = state.withLock({ $0.isOpen ? $0.channel : nil }) else { return false }
        return channel.isWritable
    }

    /// Whether the socket stopped reading because its owner holds too many unhandled messages.
    package var isReadingPaused: Bool { state.withLock { $0.readingPaused } }

    // MARK: - Sending and closing

    /// Sends a text message as one masked frame.
    ///
    /// - Returns: A future that succeeds once the frame is written to the socket, and fails with
    ///   `ChannelError.ioOnClosedChannel` when the socket is not open.
    @discardableResult
    package func send(text: String) -> EventLoopFuture<Void> {
        send(.text) { $0.buffer(string: text) }
    }

    /// Sends a binary message as one masked frame.
    ///
    /// - Returns: A future that succeeds once the frame is written to the socket, and fails with
    ///   `ChannelError.ioOnClosedChannel` when the socket is not open.
    @discardableResult
    package func send(binary: [UInt8]) -> EventLoopFuture<Void> {
        send(.binary) { $0.buffer(bytes: binary) }
    }

    /// Sends a text message unless the socket's outbound buffer is full (the peer is not reading): for
    /// answers a peer could ask for faster than it reads them, such as a protocol's own pongs.
    package func sendUnlessBackedUp(text: String) {
        let channel = state.withLock { $0.isOpen ? $0.channel : nil }
        guard let channel, channel.isWritable else { return }
        send(text: text)
    }

    /// Sends a binary message unless the socket's outbound buffer is full, as ``sendUnlessBackedUp(text:)``.
    package func sendUnlessBackedUp(binary: [UInt8]) {
        let channel = state.withLock { $0.isOpen ? $0.channel : nil }
        guard let channel, channel.isWritable else { return }
        send(binary: binary)
    }

    /// Queues a frame for the channel; the first frame of a turn asks the event loop to write the queue.
    ///
    /// Decision: frames sent from outside the event loop are gathered and written in one turn of the loop with
    /// one flush, as an async channel's writer does: a burst (a replay of 1 000 subscriptions) costs a few
    /// wake-ups of the loop and a few `writev`s, not one of each per frame. Frames keep the order they were sent
    /// in; each future still says when its own frame was written.
    private func send(
        _ opcode: WebSocketOpcode, _ payload: (ByteBufferAllocator) -> ByteBuffer
    ) -> EventLoopFuture<Void> {
        let channel = state.withLock { $0.isOpen ? $0.channel : nil }
        guard let channel else { return eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel) }
        let frame = WebSocketFrame(fin: true, opcode: opcode, maskKey: .random(), data: payload(channel.allocator))
        let promise = channel.eventLoop.makePromise(of: Void.self)
        let isFirst = state.withLock { state in
            state.outbound.append((frame, promise))
            return state.outbound.count == 1
        }
        if isFirst {
            if channel.eventLoop.inEventLoop {
                writeOutbound(to: channel)
            } else {
                channel.eventLoop.execute { self.writeOutbound(to: channel) }
            }
        }
        return promise.futureResult
    }

    /// Writes the queued frames in order and flushes once (on the event loop).
    private func writeOutbound(to channel: any NIOCore.Channel) {
        let frames = state.withLock { state in
            state.outboundTurns += 1
            defer { state.outbound.removeAll(keepingCapacity: false) }
            return state.outbound
        }
        for (frame, promise) in frames { channel.write(frame, promise: promise) }
        channel.flush()
    }

    /// How many turns of the event loop have written frames sent from this socket's owner: fewer than the
    /// frames when a burst was gathered.
    package var outboundTurns: Int { state.withLock { $0.outboundTurns } }

    /// How many bytes the socket holds that the peer has not taken yet (0 once it is closed).
    package func bufferedOutboundBytes() async throws -> Int {
        guard let channel = state.withLock({ $0.channel }) else { return 0 }
        return try await channel.getOption(ChannelOptions.bufferedWritableBytes).get()
    }

    /// Whether this side ended the socket (``abort(because:)``, ``close()``): nothing is delivered after it.
    package var isAborted: Bool { state.withLock { $0.isAborted } }

    /// Closes the socket at once, without a close handshake: the channel is closed now, whatever the peer
    /// does. The delegate then hears ``WebSocketTransportEndCode/aborted`` with `cause`, unless another end
    /// came first — also when the socket never began to open (its end is then reported on the event loop).
    ///
    /// - Parameter cause: Why the owner ends the socket (a deadline its heartbeat missed, a frame it refused),
    ///   carried by the end as its `cause`: the owner's reason travels the one path
    ///   every end takes, so it keeps no record of its own.
    package func abort(because cause: (any Error)? = nil) {
        let (channel, candidates, finishes) = state.withLock { state in
            let finishes = !state.isStarted && !state.isAborted
            state.isAborted = true
            state.record(.aborted, "closed by this side", cause: cause)
            defer { state.candidates = [] }
            return (state.channel, state.candidates, finishes)
        }
        channel?.close(promise: nil)
        for candidate in candidates { candidate.close(promise: nil) }
        if finishes { eventLoop.execute { self.finish() } }
    }

    /// Closes the socket politely but without waiting: a close frame (1000) goes out if the socket is
    /// open, and the channel is closed right after it, without waiting for the peer's answer.
    package func close() {
        let (channel, isOpen) = state.withLock { ($0.channel, $0.isOpen) }
        if let channel, isOpen {
            var reason = channel.allocator.buffer(capacity: 2)
            reason.write(webSocketErrorCode: .normalClosure)
            let frame = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: reason)
            // Both are queued on the event loop in this order: the frame is flushed before the close.
            channel.writeAndFlush(frame, promise: nil)
        }
        abort()
    }

    /// The owner handled messages it was delivered: reading resumes if it had stopped for them.
    package func consumed(messages: Int, bytes: Int) {
        let resume = state.withLock { state in
            state.pendingMessages -= messages
            state.pendingBytes -= bytes
            return state.readingPaused
        }
        guard resume else { return }
        eventLoop.execute {
            // Decided on the event loop, where reading was paused, so a later pause cannot be undone.
            let channel: (any NIOCore.Channel)? = self.state.withLock { state in
                guard state.readingPaused, !self.isOverPendingLimit(state) else { return nil }
                state.readingPaused = false
                return state.channel
            }
            try? channel?.syncOptions?.setOption(ChannelOptions.autoRead, value: true)
        }
    }

    // MARK: - Opening

    /// Starts opening the socket to `url` (`ws` or `wss`; its path and query are the upgrade request's
    /// target). The delegate hears the rest; a failure to connect is its
    /// ``WebSocketTransportDelegate/webSocket(_:endedWith:)``. Call it once.
    package func connect(to url: URL) {
        // Aborted before it began, the socket never opens: its end is reported already.
        let aborted = state.withLock { state in
            state.isStarted = true
            return state.isAborted
        }
        guard !aborted else { return }
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "ws" || scheme == "wss", let host = url.host, !host.isEmpty else {
            fail(.connectFailed, "\(url.absoluteString) is not a WebSocket URL")
            return
        }
        let usesTLS = scheme == "wss"
        let port = url.port ?? (usesTLS ? 443 : 80)
        let sslContext: NIOSSLContext?
        do {
            sslContext = usesTLS ? try connector.sslContext() : nil
        } catch {
            fail(.connectFailed, "the TLS configuration cannot be used: \(error)", cause: error)
            return
        }
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(TimeAmount(connector.configuration.connectTimeout))
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { [self] channel in
                let aborted = state.withLock { state in
                    if !state.isAborted { state.candidates.append(channel) }
                    return state.isAborted
                }
                return aborted
                    ? channel.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
                    : channel.eventLoop.makeSucceededVoidFuture()
            }
        let target = Self.target(of: url)
        bootstrap.connect(host: host, port: port).whenComplete { [self] result in
            switch result {
            case .success(let channel):
                let aborted = state.withLock { state in
                    state.candidates = []
                    state.channel = channel
                    return state.isAborted
                }
                channel.closeFuture.whenComplete { _ in self.finish() }
                if aborted {
                    channel.close(promise: nil)
                    return
                }
                do {
                    try upgrade(
                        channel, host: host, port: port, usesTLS: usesTLS, target: target, sslContext: sslContext)
                } catch {
                    record(.connectFailed, "the connection could not be set up: \(error)", cause: error)
                    channel.close(promise: nil)
                }
            case .failure(let error):
                fail(.connectFailed, "\(host):\(port) could not be reached: \(error)", cause: error)
            }
        }
    }

    /// What the upgrade came to.
    private enum UpgradeOutcome: Sendable {
        case upgraded
        case refused
    }

    /// Sets the connected channel's pipeline up for the upgrade (which writes the request at once).
    private func upgrade(
        _ channel: any NIOCore.Channel, host: String, port: Int, usesTLS: Bool, target: String,
        sslContext: NIOSSLContext?
    ) throws {
        let pipeline = channel.pipeline.syncOperations
        if let sslContext {
            // SNI names a host, never an address; NIOSSL then checks the certificate against the address.
            let isAddress = (try? SocketAddress(ipAddress: host, port: port)) != nil
            try pipeline.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: isAddress ? nil : host))
        }
        let maximum = connector.configuration.maximumMessageSize
        let upgrader = NIOTypedWebSocketClientUpgrader<UpgradeOutcome>(
            maxFrameSize: Int(min(UInt32.max, UInt32(clamping: maximum))),
            enableAutomaticErrorHandling: false,
            upgradePipelineHandler: { [self] channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        WebSocketFrameHandler(transport: self, maximumMessageSize: maximum))
                    return .upgraded
                }
            })
        var headers = HTTPHeaders()
        let defaultPort = usesTLS ? 443 : 80
        let hostHeader = host.contains(":") ? "[\(host)]" : host
        headers.add(name: "Host", value: port == defaultPort ? hostHeader : "\(hostHeader):\(port)")
        headers.add(name: "Origin", value: "\(usesTLS ? "wss" : "ws")://\(hostHeader)")
        let request = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers)
        let upgrade = NIOTypedHTTPClientUpgradeConfiguration<UpgradeOutcome>(
            upgradeRequestHead: request, upgraders: [upgrader],
            notUpgradingCompletionHandler: { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RefusedUpgradeHandler(transport: self))
                    return .refused
                }
            })
        var configuration = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: upgrade)
        // Frames the server sends right behind its 101 are kept for the frame decoder.
        configuration.leftOverBytesStrategy = .forwardBytes
        try pipeline.configureUpgradableHTTPClientPipeline(configuration: configuration).whenComplete { [self] result in
            switch result {
            case .success(.upgraded):
                opened()
            case .success(.refused):
                break  // RefusedUpgradeHandler reads the status and closes the channel
            case .failure(let error):
                switch error as? NIOHTTPClientUpgradeError {
                case .upgraderDeniedUpgrade?:
                    record(
                        .upgradeInvalid, "the server's Sec-WebSocket-Accept does not match the key sent", cause: error)
                case .responseProtocolNotFound?:
                    record(.upgradeInvalid, "the server's 101 does not upgrade to websocket", cause: error)
                default:
                    record(.connectFailed, "the upgrade failed: \(error)", cause: error)
                }
                channel.close(promise: nil)
            }
        }
    }

    /// The upgrade request's target: the URL's path (at least `/`) and query, as they are encoded.
    static func target(of url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? ""
        let query = components?.percentEncodedQuery.map { "?\($0)" } ?? ""
        return (path.isEmpty ? "/" : path) + query
    }

    // MARK: - What the handlers report (on the event loop)

    private func opened() {
        let delegate = state.withLock { state in
            state.isOpen = state.channel != nil && state.end == nil
            return state.isOpen ? state.delegate : nil
        }
        delegate?.webSocketOpened(self)
    }

    /// Hands a whole message to the delegate; stops reading while the owner has too many unhandled.
    func deliver(_ message: Message, on channel: any NIOCore.Channel) {
        let bytes = message.bytes.readableBytes
        let (delegate, pause) = state.withLock { state -> ((any WebSocketTransportDelegate)?, Bool) in
            guard state.isOpen, state.end == nil else { return (nil, false) }
            state.pendingMessages += 1
            state.pendingBytes += bytes
            let pause = !state.readingPaused && isOverPendingLimit(state)
            if pause { state.readingPaused = true }
            return (state.delegate, pause)
        }
        if pause { try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: false) }
        delegate?.webSocket(self, received: message)
    }

    private func isOverPendingLimit(_ state: State) -> Bool {
        state.pendingMessages >= connector.configuration.pendingMessageLimit
            || state.pendingBytes > connector.configuration.maximumMessageSize
    }

    /// Records why the socket ends, unless a reason was recorded first.
    func record(
        _ code: WebSocketTransportEnd.Code, _ message: String, status: Int? = nil, closeCode: UInt16? = nil,
        closeReason: String? = nil, cause: (any Error)? = nil
    ) {
        state.withLock { state in
            state.record(
                code, message, status: status, closeCode: closeCode, closeReason: closeReason, cause: cause)
        }
    }

    /// Records an end that needs no channel closed (there is none), and reports it.
    private func fail(_ code: WebSocketTransportEnd.Code, _ message: String, cause: (any Error)? = nil) {
        record(code, message, cause: cause)
        eventLoop.execute { self.finish() }
    }

    /// Reports the end once, and lets go of the delegate and the channel.
    private func finish() {
        let (delegate, end) = state.withLock { state in
            let end =
                state.end
                ?? WebSocketTransportEnd(
                    code: state.isOpen ? .dropped : .connectFailed,
                    message: state.isOpen
                        ? "the connection closed" : "the connection closed before the upgrade was answered",
                    wasOpen: state.isOpen)
            state.end = end
            defer {
                state.delegate = nil
                state.channel = nil
                state.isOpen = false
            }
            return (state.delegate, end)
        }
        delegate?.webSocket(self, endedWith: end)
    }
}

/// Reads the response to a refused upgrade (any status but 101): records its status and closes the channel,
/// so a refusal never leaves a connection open.
private final class RefusedUpgradeHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    let transport: WebSocketTransport

    init(transport: WebSocketTransport) {
        self.transport = transport
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let head) = unwrapInboundIn(data) else { return }
        transport.record(
            .upgradeRefused, "the server refused the upgrade: \(head.status.code) \(head.status.reasonPhrase)",
            status: Int(head.status.code))
        context.close(promise: nil)
    }
}
