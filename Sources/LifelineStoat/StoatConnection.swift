import Dispatch
import Foundation
public import Lifeline
public import LifelineCore
public import Logging
import NIOCore
public import NIOSSL
import NIOWebSocket
import Synchronization
import WSClient

/// Opens Stoat events sockets for a `Session`: the WebSocket connection with the specification's
/// heartbeat and connect timeout, on the session's injected clock.
///
/// Each connection opens the events URL (`GET /`'s `ws`, with `version=1&format=json`, or `format=msgpack`
/// with ``Configuration/format``), sends
/// `Authenticate` (the token never goes into the URL), and reports SOCKET_CONNECTED only once `Ready` has
/// been decoded. Then it pings every ``Configuration/heartbeatInterval``; no matching `Pong` within
/// ``Configuration/pongTimeout``, no message at all within ``Configuration/connectTimeout`` of starting,
/// or no `Ready` within ``Configuration/readyTimeout`` of `Authenticated` aborts the socket at once —
/// with no close handshake that could hang — and reports a TEMPORARY_FAILURE.
///
/// The deadlines are decided by a pure machine per socket and kept by one timer for all the factory's
/// sockets, so an idle connection costs no task of its own beyond its socket (see the catalog's "The
/// socket's timers").
///
/// Errors map as the catalog's "Error mapping" says: `Logout` is an external LOGOUT; an `Error` that
/// says the session cannot authenticate (`InvalidSession`…) is a permanent end, which the lifecycle
/// confirms before it believes an `InvalidSession`; every other error, a close and a transport error are
/// TEMPORARY_FAILUREs — a refused frame (`InvalidPayload`, or a close with 1007: Stoat's new events server
/// refuses a `Subscribe` so) as `TemporaryFailureCause.Code.frameRefused`, which the replay
/// plan acts on. Unknown event types and undecodable frames are ignored and counted (``Statistics``),
/// never fatal.
public struct StoatConnectionFactory: ConnectionFactory {
    /// The socket's timing and limits. The defaults are the specification's.
    public struct Configuration: Sendable {
        /// How often to send `Ping` after the socket opens. Default 30 s.
        public var heartbeatInterval: Duration
        /// How long to wait for the matching `Pong`. Default 10 s.
        public var pongTimeout: Duration
        /// How long to wait for the first message after starting the connection. Default 10 s.
        public var connectTimeout: Duration
        /// How long to wait for `Ready` after `Authenticated` (extension). Default 30 s.
        public var readyTimeout: Duration
        /// The largest message accepted; a larger one drops the connection. Default 16 MiB: several times
        /// the `Ready` of a large account, and a bound on what a hostile server can make a client hold
        /// (a message is kept once, as the bytes it arrived in, while it is decoded).
        public var maximumFrameSize: Int
        /// TLS for `wss://` URLs (certificates verified; set trust roots to test with your own CA). By default
        /// ``defaultTLS``. ``StoatClient/Configuration/tls`` is this configuration, used for REST too.
        public var tls: TLSConfiguration
        /// The `ready` query filter: only these `Ready` fields are sent (empty: all).
        public var readyFields: [String]
        /// The frames' format: JSON text (the default) or MessagePack.
        public var format: StoatWireFormat

        /// Creates a configuration.
        public init(
            heartbeatInterval: Duration = .seconds(30), pongTimeout: Duration = .seconds(10),
            connectTimeout: Duration = .seconds(10), readyTimeout: Duration = .seconds(30),
            maximumFrameSize: Int = 16 << 20, tls: TLSConfiguration = Configuration.defaultTLS,
            readyFields: [String] = [], format: StoatWireFormat = .json
        ) {
            self.heartbeatInterval = heartbeatInterval
            self.pongTimeout = pongTimeout
            self.connectTimeout = connectTimeout
            self.readyTimeout = readyTimeout
            self.maximumFrameSize = maximumFrameSize
            self.tls = tls
            self.readyFields = readyFields
            self.format = format
        }
    }

    /// Counts of frames the connections tolerated rather than failed on.
    public final class Statistics: Sendable {
        private let counts = Mutex((unknown: 0, undecodable: 0, binary: 0, skippedInBulk: 0))
        /// Frames of an event type Lifeline does not model.
        public var unknownEvents: Int { counts.withLock { $0.unknown } }
        /// Frames that were not a well-formed event.
        public var undecodableFrames: Int { counts.withLock { $0.undecodable } }
        /// Binary frames on a JSON socket (ignored there).
        public var binaryFrames: Int { counts.withLock { $0.binary } }
        /// Events of `Bulk` frames that did not decode and were skipped (the frame's other events were applied).
        public var skippedBulkEvents: Int { counts.withLock { $0.skippedInBulk } }

        init() {}
        func unknown() { counts.withLock { $0.unknown += 1 } }
        func undecodable() { counts.withLock { $0.undecodable += 1 } }
        func binary() { counts.withLock { $0.binary += 1 } }
        func skippedInBulk() { counts.withLock { $0.skippedInBulk += 1 } }
    }

    let eventsURL: @Sendable () async throws -> String
    /// The server whose `GET /` names the events URL, when known: the only server whose sessions the
    /// sockets authenticate with.
    public let server: ServerIdentity?
    let configuration: Configuration
    let clock: SessionClock
    /// The one timer of all this factory's sockets.
    let timer: SocketTimer
    let logger: Logger
    let onEvent: @Sendable (BonfireEvent) async -> Void
    /// What the connections tolerated, for all connections of this factory.
    public let statistics = Statistics()

    /// Creates a factory.
    ///
    /// A session's token is sent only to the events socket of the server that issued it: a connection for
    /// credentials whose `SessionCredentials/issuer` is not `server` (or for any issued session, when
    /// `server` is `nil`) ends before it opens, with a permanent failure
    /// (`PermanentFailureReason.Code.authenticationFailed`, its cause ``StoatAPIError/Code/foreignCredentials``).
    /// Credentials without an issuer (a bare token) are sent as they are.
    ///
    /// - Parameters:
    ///   - eventsURL: Gives the events socket's URL (`GET /`'s `ws`); asked before each connection.
    ///   - server: The API server whose `GET /` gives the events URL (``StoatAPI/server``); `nil` when the URL
    ///     comes from elsewhere, and then only sessions without an issuer are sent.
    ///   - configuration: Timing and limits.
    ///   - clock: The clock for the heartbeat and the timeouts: the session's, so tests control both.
    ///   - logger: Where connections log (never a token).
    ///   - onEvent: Receives every event after `Ready` — messages, typing, updates — and `Ready` itself.
    public init(
        eventsURL: @escaping @Sendable () async throws -> String,
        server: ServerIdentity? = nil,
        configuration: Configuration = Configuration(),
        clock: some Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "lifeline.stoat", factory: { _ in SwiftLogNoOpLogHandler() }),
        onEvent: @escaping @Sendable (BonfireEvent) async -> Void = { _ in }
    ) {
        self.eventsURL = eventsURL
        self.server = server
        self.configuration = configuration
        let clock = SessionClock(clock)
        self.clock = clock
        timer = SocketTimer(clock: clock)
        self.logger = logger
        self.onEvent = onEvent
    }

    /// Makes the connection for one attempt.
    public func makeConnection(for credentials: SessionCredentials, generation: UInt64) -> any SessionConnection {
        StoatConnection(credentials: credentials, generation: generation, factory: self)
    }
}

/// One events socket.
///
/// Its task runs the socket in one child (the reading loop) and itself waits for a command: a Ping to
/// write, or the end. The end comes from the reading loop, from a deadline (``deadlineReached(at:)``, called
/// by the factory's ``SocketTimer``), or from ``close()``; it cancels the reading loop, which aborts the
/// socket without a close handshake.
final class StoatConnection: SessionConnection {
    /// What the connection's task is asked to do.
    private enum Command: Sendable {
        case ping(Int64)
        case end
    }

    private struct State {
        var heartbeat: Heartbeat
        var writer: WebSocketOutboundWriter?
        /// Why the connection ends, once it does; the first reason wins.
        var ending: ConnectionEnd?
        /// Whether the runtime closed it: it then reports nothing.
        var closed = false
        var commands: [Command] = []
        var waiter: CheckedContinuation<Command?, Never>?
    }

    let credentials: SessionCredentials
    let generation: UInt64
    let factory: StoatConnectionFactory
    private let state: Mutex<State>

    init(credentials: SessionCredentials, generation: UInt64, factory: StoatConnectionFactory) {
        self.credentials = credentials
        self.generation = generation
        self.factory = factory
        let configuration = factory.configuration
        let timing = Heartbeat.Timing(
            heartbeatInterval: configuration.heartbeatInterval, pongTimeout: configuration.pongTimeout,
            connectTimeout: configuration.connectTimeout, readyTimeout: configuration.readyTimeout)
        state = Mutex(State(heartbeat: Heartbeat(startedAt: factory.clock.elapsed(), timing: timing)))
    }

    func run(reporting report: @escaping @Sendable (ConnectionEvent) async -> Void) async {
        let start = state.withLock { state in
            // The connect timeout runs from here; closed before it started, it never runs.
            if !state.closed { factory.timer.schedule(self, at: state.heartbeat.scheduled) }
            return !state.closed
        }
        if start {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    let end = await self.runSocket(report)
                    self.end(end)
                }
                commands: while let command = await nextCommand() {
                    switch command {
                    case .ping(let data): await writePing(data)
                    case .end: break commands
                    }
                }
                // The end, or this task was cancelled (the session is stopping): abort the socket.
                group.cancelAll()
            }
        }
        let (end, closed) = state.withLock { state in
            factory.timer.schedule(self, at: nil)
            state.writer = nil
            return (state.ending, state.closed)
        }
        guard !closed, !Task.isCancelled, let end else { return }
        factory.logger.debug(
            "events socket ended", metadata: ["lifeline.generation": "\(generation)", "lifeline.end": "\(end)"])
        await report(.ended(end))
    }

    /// Closes the socket at once; `run` returns without reporting.
    func close() {
        let waiter = state.withLock { state in
            state.closed = true
            return post(.end, in: &state)
        }
        resume(waiter)
    }

    /// Plays a significant event as its Bonfire frame. Stoat answers none of them, so success is the frame
    /// written.
    func play(_ event: SignificantEvent) async throws {
        let frame: BonfireClientFrame
        switch event.kind {
        case .subscribe: frame = .subscribe(serverID: event.target)
        case .beginTyping: frame = .beginTyping(channel: event.target)
        case .endTyping: frame = .endTyping(channel: event.target)
        default:
            throw StoatConnectionError(code: .unsupportedEvent, message: "Stoat has no frame for \(event.kind)")
        }
        guard let writer = state.withLock({ $0.writer }) else {
            throw StoatConnectionError(code: .notOpen, message: "the socket is not open")
        }
        do {
            try await write(frame, to: writer)
        } catch {
            throw StoatConnectionError(code: .writeFailed, message: "the frame could not be written", cause: error)
        }
    }

    /// The factory's timer woke the connection at its deadline.
    func deadlineReached(at now: Duration) {
        let waiter = state.withLock { state in
            apply(state.heartbeat.deadlineReached(at: now), in: &state)
        }
        resume(waiter)
    }

    /// The URL with the query Stoat expects; never the token.
    func url() async throws -> String {
        var url = try await factory.eventsURL()
        url += url.contains("?") ? "&" : "?"
        url += "version=1&format=\(factory.configuration.format.queryValue)"
        for field in factory.configuration.readyFields { url += "&ready=\(field)" }
        return url
    }

    // MARK: - The connection's task

    /// Performs what the heartbeat decided, under the lock; returns a waiter to resume with the first
    /// posted command, if the connection's task waits.
    private func apply(_ action: Heartbeat.Action, in state: inout State) -> CheckedContinuation<Command?, Never>? {
        switch action {
        case .none:
            return nil
        case .wake(let deadline):
            factory.timer.schedule(self, at: deadline)
            return nil
        case .sendPing(let data, let deadline):
            factory.timer.schedule(self, at: deadline)
            return post(.ping(data), in: &state)
        case .fail(let cause):
            factory.timer.schedule(self, at: nil)
            if state.ending == nil { state.ending = .temporary(cause) }
            return post(.end, in: &state)
        }
    }

    /// Queues a command for the connection's task; returns its waiter, now owed the oldest command.
    private func post(_ command: Command, in state: inout State) -> CheckedContinuation<Command?, Never>? {
        state.commands.append(command)
        guard let waiter = state.waiter else { return nil }
        state.waiter = nil
        return waiter
    }

    /// Records why the connection ends (unless it already does) and wakes the connection's task.
    private func end(_ end: ConnectionEnd) {
        let waiter = state.withLock { state in
            if state.ending == nil { state.ending = end }
            return post(.end, in: &state)
        }
        resume(waiter)
    }

    private func resume(_ waiter: CheckedContinuation<Command?, Never>?) {
        guard let waiter else { return }
        let command = state.withLock { $0.commands.isEmpty ? nil : $0.commands.removeFirst() }
        waiter.resume(returning: command ?? .end)
    }

    /// The next command, or `nil` once the task is cancelled or the connection has ended.
    private func nextCommand() async -> Command? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Command?, Never>) in
                let ready: Command?? = state.withLock { state in
                    if Task.isCancelled { return .some(nil) }
                    if !state.commands.isEmpty {
                        let command = state.commands.removeFirst()
                        // After the end nothing more is read.
                        if case .end = command { state.commands = [] }
                        return .some(command)
                    }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    private func writePing(_ data: Int64) async {
        guard let writer = state.withLock({ $0.writer }) else { return }
        do {
            try await write(.ping(data), to: writer)
        } catch {
            let cause = TemporaryFailureCause(
                code: .socketDropped, message: "the heartbeat could not be written", cause: error)
            end(.temporary(cause))
        }
    }

    /// Runs the heartbeat's decision for a socket event, with the current time.
    private func heartbeat(_ decide: (inout Heartbeat, Duration) -> Heartbeat.Action) {
        let now = factory.clock.elapsed()
        let waiter = state.withLock { state in apply(decide(&state.heartbeat, now), in: &state) }
        resume(waiter)
    }

    /// Writes a frame in the socket's format: JSON text, or MessagePack binary.
    private func write(_ frame: BonfireClientFrame, to writer: WebSocketOutboundWriter) async throws {
        if factory.configuration.format == .messagePack {
            try await writer.write(.binary(ByteBuffer(bytes: frame.messagePack)))
        } else {
            try await writer.write(.text(frame.json))
        }
    }

    // MARK: - The socket

    private func runSocket(_ report: @escaping @Sendable (ConnectionEvent) async -> Void) async -> ConnectionEnd {
        if let refusal = foreignCredentials() { return refusal }
        let opened = Atomic<Bool>(false)
        let maximum = factory.configuration.maximumFrameSize
        var socketURL: URL?
        do {
            // The scheme decides TLS, case-insensitively; a scheme that is not a WebSocket's is refused.
            let endpoint = try StoatEventsEndpoint(socketURL: try await url())
            socketURL = endpoint.usesTLS ? endpoint.url : nil
            var configuration = WebSocketClientConfiguration()
            configuration.maxFrameSize = maximum
            // A cancelled socket is aborted, not closed politely: WSClient closes its input and waits at most
            // this long for the close handshake, so a silent peer cannot hold a dead connection open.
            configuration.closeTimeout = .milliseconds(10)
            let close = try await WebSocketClient.connect(
                url: endpoint.url.absoluteString, configuration: configuration,
                tlsConfiguration: endpoint.usesTLS ? factory.configuration.tls : nil,
                logger: factory.logger
            ) { inbound, outbound, _ in
                opened.store(true, ordering: .relaxed)
                self.heartbeat { heartbeat, now in heartbeat.socketOpened(at: now) }
                self.state.withLock { $0.writer = outbound }
                await report(.opened)
                try await self.write(.authenticate(token: self.credentials.token), to: outbound)
                var message = MessageAssembler(maximumSize: maximum)
                for try await frame in inbound {
                    guard let assembled = message.append(frame) else { continue }
                    self.heartbeat { heartbeat, now in heartbeat.messageReceived(at: now) }
                    if let end = await self.handle(assembled, outbound: outbound, report: report) {
                        self.end(end)
                        return
                    }
                }
            }
            if let end = state.withLock({ $0.ending }) { return end }
            guard let close else { return .temporary(TemporaryFailureCause(code: .socketDropped, message: "closed")) }
            let code = UInt16(webSocketErrorCode: close.closeCode)
            // 1007 (inconsistent data): the server refused a frame the client sent.
            guard code == 1007 else {
                return .temporary(TemporaryFailureCause(code: .socketDropped, message: "closed with \(code)"))
            }
            return .temporary(
                TemporaryFailureCause(code: .frameRefused, message: "closed with 1007: the server refused a frame"))
        } catch {
            if let end = state.withLock({ $0.ending }) { return end }
            if let cause = await TLSDiagnosis.socketCause(
                of: error, socketURL: socketURL, tls: factory.configuration.tls)
            {
                return .temporary(cause)
            }
            let code: TemporaryFailureCause.Code = opened.load(ordering: .relaxed) ? .socketDropped : .connectFailed
            // The error's description names what failed (a refused connection, an events URL the server would
            // not give); the socket's URL carries no token, so it is safe to show.
            return .temporary(TemporaryFailureCause(code: code, message: "\(error)", cause: error))
        }
    }

    /// The end of a connection whose session another server issued: its token goes only to the events
    /// socket its issuer's `GET /` names (the factory's ``StoatConnectionFactory/server``). `nil` when the
    /// session may be sent.
    private func foreignCredentials() -> ConnectionEnd? {
        guard let issuer = credentials.issuer, issuer != factory.server else { return nil }
        let socketServer = factory.server.map { "\($0)'s" } ?? "an unidentified server's"
        let error = StoatAPIError(
            code: .foreignCredentials,
            message: "the session was issued by \(issuer); its token is not sent to \(socketServer) events socket")
        factory.logger.warning(
            "events socket refused a session of another server",
            metadata: [
                "lifeline.issuer": "\(issuer)", "lifeline.server": "\(factory.server.map(\.description) ?? "-")",
            ])
        return .permanent(
            PermanentFailureReason(code: .authenticationFailed, message: error.message, cause: error))
    }

    /// Acts on one whole message; returns how the connection ends, if it does.
    private func handle(
        _ message: MessageAssembler.Message,
        outbound: WebSocketOutboundWriter,
        report: @escaping @Sendable (ConnectionEvent) async -> Void
    ) async -> ConnectionEnd? {
        switch message {
        case .binary(let buffer):
            guard factory.configuration.format == .messagePack else {
                factory.statistics.binary()
                return nil
            }
            let decoder = BonfireDecoder(maximumFrameSize: factory.configuration.maximumFrameSize)
            let outcome = buffer.withUnsafeReadableBytes { bytes in
                guard let base = bytes.baseAddress, bytes.count > 0 else { return decoder.decode(messagePack: Data()) }
                return decoder.decode(
                    messagePack: Data(
                        bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none))
            }
            return await handle(outcome, outbound: outbound, report: report)
        case .tooLarge(let bytes):
            let cause = TemporaryFailureCause(
                code: .protocolViolation, message: "a message of more than \(bytes) bytes")
            return .temporary(cause)
        case .text(let buffer):
            // Decoded straight from the bytes the message arrived in: no String, no second copy.
            let decoder = BonfireDecoder(maximumFrameSize: factory.configuration.maximumFrameSize)
            let (outcome, skipped) = buffer.withUnsafeReadableBytes { bytes in
                guard let base = bytes.baseAddress, bytes.count > 0 else { return decoder.decodeReportingSkips(Data()) }
                return decoder.decodeReportingSkips(
                    Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none))
            }
            for reason in skipped {
                // One bad event of a Bulk is skipped; the others are applied.
                factory.statistics.skippedInBulk()
                factory.logger.debug("an event of a Bulk frame skipped", metadata: ["lifeline.reason": "\(reason)"])
            }
            return await handle(outcome, outbound: outbound, report: report)
        }
    }

    /// Acts on one decoded frame; returns how the connection ends, if it does.
    private func handle(
        _ outcome: BonfireDecoder.Outcome,
        outbound: WebSocketOutboundWriter,
        report: @escaping @Sendable (ConnectionEvent) async -> Void
    ) async -> ConnectionEnd? {
        switch outcome {
        case .tooLarge(let bytes):
            return .temporary(TemporaryFailureCause(code: .protocolViolation, message: "a \(bytes)-byte frame"))
        case .undecodable(let reason):
            factory.statistics.undecodable()
            factory.logger.debug("undecodable frame ignored", metadata: ["lifeline.reason": "\(reason)"])
            return nil
        case .event(let event):
            return await handle(event, outbound: outbound, report: report)
        }
    }

    private func handle(
        _ event: BonfireEvent,
        outbound: WebSocketOutboundWriter,
        report: @escaping @Sendable (ConnectionEvent) async -> Void
    ) async -> ConnectionEnd? {
        switch event {
        case .authenticated:
            heartbeat { heartbeat, now in heartbeat.authenticated(at: now) }
            await report(.authenticated)
        case .ready:
            let now = factory.clock.elapsed()
            let (isFirst, waiter) = state.withLock { state in
                let (isFirst, action) = state.heartbeat.readyReceived(at: now)
                return (isFirst, apply(action, in: &state))
            }
            resume(waiter)
            guard isFirst else { return nil }  // a second Ready changes nothing
            await factory.onEvent(event)
            await report(.ready)
        case .pong(let data):
            heartbeat { heartbeat, now in heartbeat.pongReceived(data, at: now) }
        case .ping(let data):
            if let data { try? await write(.pong(data), to: outbound) }
        case .logout:
            return .loggedOut
        case .error(let error):
            // The server's words travel as the cause, its `detail` included; the message stays the kind.
            let cause = StoatConnectionError(
                code: .serverError, message: "the server answered \(error.kind)", detail: error.detail)
            if error.isAuthenticationError {
                let code: PermanentFailureReason.Code =
                    error.kind == "InvalidSession" ? .invalidSession : .authenticationFailed
                return .permanent(PermanentFailureReason(code: code, message: error.kind, cause: cause))
            }
            // `InvalidPayload`: the server refused a frame the client sent, and closes the connection next.
            let code: TemporaryFailureCause.Code = error.kind == "InvalidPayload" ? .frameRefused : .serverError
            return .temporary(TemporaryFailureCause(code: code, message: error.kind, cause: cause))
        case .bulk(let events):
            for event in events {
                if let end = await handle(event, outbound: outbound, report: report) { return end }
            }
        case .unknown(let type):
            factory.statistics.unknown()
            factory.logger.debug("unknown event ignored", metadata: ["lifeline.event": "\(type)"])
        default:
            // Every data event (messages, typing, updates, operations) goes to the client as it is.
            await factory.onEvent(event)
        }
        return nil
    }
}

/// Assembles a WebSocket message from its frames into one buffer, and refuses one larger than the limit
/// before holding it: a message is kept once, as the bytes it arrived in.
struct MessageAssembler {
    /// A whole message.
    enum Message {
        /// A text message's bytes (UTF-8, unvalidated: the decoder validates what it reads).
        case text(ByteBuffer)
        /// A binary message's bytes (MessagePack, when the socket asked for it).
        case binary(ByteBuffer)
        /// A message beyond the limit: at least this many bytes.
        case tooLarge(Int)
    }

    let maximumSize: Int
    private var buffer: ByteBuffer?
    private var isText = false
    private var size = 0

    init(maximumSize: Int) {
        self.maximumSize = maximumSize
    }

    /// Adds a frame; returns the message when the frame ends one.
    mutating func append(_ frame: WebSocketDataFrame) -> Message? {
        switch frame.opcode {
        case .text, .binary:
            isText = frame.opcode == .text
            size = frame.data.readableBytes
            buffer = frame.data
        case .continuation:
            size += frame.data.readableBytes
            if size <= maximumSize, buffer != nil {
                var data = frame.data
                buffer?.writeBuffer(&data)
            }
        }
        guard frame.fin else { return nil }
        defer {
            buffer = nil
            size = 0
        }
        if size > maximumSize { return .tooLarge(size) }
        // A continuation without a first frame ends no message.
        guard let buffer else { return nil }
        return isText ? .text(buffer) : .binary(buffer)
    }
}
