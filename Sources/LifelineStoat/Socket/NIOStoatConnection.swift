import Foundation
package import Lifeline
package import LifelineCore
package import Logging
package import NIOCore
import NIOPosix
import Synchronization

/// Opens Stoat events sockets on NIO channel handlers (``WebSocketTransport``): what ``StoatConnectionFactory``
/// makes its connections with — the events URL with its query, `Authenticate`, SOCKET_CONNECTED once `Ready` is
/// decoded, the heartbeat and the timeouts on the session's clock, the error mapping and the statistics — with
/// no task of their own.
///
/// A connection's frames are read, reassembled and answered on the channel's event loop; its deadlines are
/// kept by this factory's one ``SocketTimer`` on the injected clock (so tests control time); what reaches the
/// session waits in the connection's inbox for the task that runs it. So an idle connection costs its
/// channel, a heap entry in the timer and one suspended continuation: no reading task, no sleeper, no
/// command loop.
package struct NIOStoatConnectionFactory: ConnectionFactory {
    let eventsURL: @Sendable () async throws -> String
    /// The server whose sessions the sockets authenticate with (``StoatConnectionFactory/server``).
    let server: ServerIdentity?
    let configuration: StoatConnectionFactory.Configuration
    let clock: SessionClock
    /// The one timer of all this factory's sockets.
    let timer: SocketTimer
    let connector: WebSocketConnector
    let logger: Logger
    let onEvent: @Sendable (BonfireEvent) async -> Void
    /// What the connections tolerated, for all connections of this factory.
    package let statistics: StoatConnectionFactory.Statistics

    /// Creates a factory.
    ///
    /// - Parameters:
    ///   - eventsURL: Gives the events socket's URL (`GET /`'s `ws`); asked before each connection.
    ///   - server: The API server whose `GET /` gives the events URL; only its sessions (and sessions without
    ///     an issuer) are sent, as ``StoatConnectionFactory/init(eventsURL:server:configuration:clock:logger:onEvent:)``
    ///     says.
    ///   - configuration: Timing, limits, TLS and format, as for ``StoatConnectionFactory``.
    ///   - clock: The clock for the heartbeat and the timeouts: the session's, so tests control both.
    ///   - eventLoopGroup: Where the sockets run; by default NIO's shared group.
    ///   - logger: Where connections log (never a token).
    ///   - statistics: Where to count tolerated frames; by default the factory's own.
    ///   - onEvent: Receives every event after `Ready` — messages, typing, updates — and `Ready` itself.
    package init(
        eventsURL: @escaping @Sendable () async throws -> String,
        server: ServerIdentity? = nil,
        configuration: StoatConnectionFactory.Configuration = .init(),
        clock: some Clock<Duration> = ContinuousClock(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "lifeline.stoat", factory: { _ in SwiftLogNoOpLogHandler() }),
        statistics: StoatConnectionFactory.Statistics? = nil,
        onEvent: @escaping @Sendable (BonfireEvent) async -> Void = { _ in }
    ) {
        self.eventsURL = eventsURL
        self.server = server
        self.configuration = configuration
        let clock = SessionClock(clock)
        self.clock = clock
        timer = SocketTimer(clock: clock, eventLoop: eventLoopGroup.any())
        connector = WebSocketConnector(
            configuration: .init(
                maximumMessageSize: configuration.maximumFrameSize, tls: configuration.tls,
                // The session's timeout (on its clock) decides; the TCP connect's own is only a backstop that
                // never cuts it short.
                connectTimeout: max(configuration.connectTimeout, .seconds(10))),
            group: eventLoopGroup)
        self.logger = logger
        self.statistics = statistics ?? StoatConnectionFactory.Statistics()
        self.onEvent = onEvent
    }

    /// Makes the connection for one attempt.
    package func makeConnection(for credentials: SessionCredentials, generation: UInt64) -> any SessionConnection {
        NIOStoatConnection(credentials: credentials, generation: generation, factory: self)
    }
}

/// One events socket on NIO channel handlers, as a `SessionConnection`.
///
/// The socket's handlers (on its event loop) write `Authenticate` when it opens, note every message's arrival
/// in the ``Heartbeat``, and post what they got to the inbox; ``run(reporting:)``, in the task the session
/// gives it, waits on one continuation for the inbox, decodes the messages there (not on the event loop, so
/// a large `Ready` holds up no other socket) and reports. The factory's ``SocketTimer`` calls
/// ``deadlineReached(at:)``, which writes a `Ping` or aborts the socket. Every end — a deadline, a frame that
/// ends the session, ``close()``, the peer — closes the channel, and `run` returns once the socket says it is
/// closed.
final class NIOStoatConnection: SessionConnection, WebSocketTransportDelegate, SocketTimerTarget {
    /// What the socket posted for the connection's task.
    private enum Inbound: Sendable {
        case opened
        case message(WebSocketTransport.Message)
        case ended(WebSocketTransportEnd)
    }

    private struct State {
        var heartbeat: Heartbeat
        var socket: WebSocketTransport?
        var inbox: [Inbound] = []
        /// The connection's task, waiting for the inbox (or, before the socket exists, for an end).
        var waiter: CheckedContinuation<Void, Never>?
        /// Why the connection ends, once it does; the first reason wins.
        var ending: SessionFailure?
        /// Whether the runtime closed it: it then reports nothing.
        var closed = false
    }

    /// What a heartbeat decision asks of the socket, done outside the lock.
    private enum Effect {
        case none
        case ping(Int64)
        case abort
    }

    let credentials: SessionCredentials
    let generation: UInt64
    let factory: NIOStoatConnectionFactory
    private let state: Mutex<State>

    init(credentials: SessionCredentials, generation: UInt64, factory: NIOStoatConnectionFactory) {
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
        var end: SessionFailure?
        if start {
            end = await withTaskCancellationHandler {
                await runSocket(report)
            } onCancel: {
                close()
            }
        }
        let (socket, closed) = state.withLock { state in
            factory.timer.schedule(self, at: nil)
            defer { state.socket = nil }
            return (state.socket, state.closed)
        }
        socket?.abort()
        guard !closed, !Task.isCancelled, let end else { return }
        factory.logger.debug(
            "events socket ended", metadata: ["lifeline.generation": "\(generation)", "lifeline.end": "\(end)"])
        await report(.ended(end))
    }

    /// Closes the socket at once (a close frame, then the channel, without waiting for the peer); `run`
    /// returns without reporting.
    func close() {
        let (socket, waiter) = state.withLock { state in
            state.closed = true
            defer { state.waiter = nil }
            return (state.socket, state.waiter)
        }
        socket?.close()
        waiter?.resume()
    }

    /// Plays a significant event as its Bonfire frame; success is the frame taken by the open socket.
    ///
    /// Decision: while the socket's outbound buffer has room, the frame counts as written once it is handed to
    /// the channel (as an async channel writer takes it), without waiting for the event loop to report the
    /// write: a replay of 1 000 subscriptions otherwise waits for 1 000 round trips to the event loop. A full
    /// buffer (the peer not reading) is waited on; a write that fails later ends the socket, and the replay
    /// plays again on the next connection.
    func play(_ event: SignificantEvent) async throws {
        switch startPlay(event) {
        case .succeeded: return
        case .failed(let error): throw error
        case .pending(let written): try await written()
        }
    }

    /// Starts a play: answered at once while the socket's outbound buffer has room (``play(_:)``'s criterion),
    /// so the session's sequential replay plays on without a task or a hop per frame; awaited only when the
    /// buffer is full.
    func startPlay(_ event: SignificantEvent) -> PlayStart {
        let frame: BonfireClientFrame
        do {
            frame = try BonfireClientFrame(playing: event)
        } catch {
            return .failed(error)
        }
        guard let socket = state.withLock({ $0.socket }), socket.isOpen else {
            return .failed(StoatConnectionError(code: .notOpen, message: "the socket is not open"))
        }
        let hadRoom = socket.isWritable
        let written = send(frame, on: socket)
        guard !hadRoom else { return .succeeded }
        return .pending {
            do {
                try await written.get()
            } catch {
                throw StoatConnectionError(code: .writeFailed, message: "the frame could not be written", cause: error)
            }
        }
    }

    /// The factory's timer woke the connection at its deadline.
    func deadlineReached(at now: Duration) {
        let (effect, socket, waiter) = state.withLock { state in
            let effect = apply(state.heartbeat.deadlineReached(at: now), in: &state)
            return (effect, state.socket, wakingOnEnd(effect, &state))
        }
        perform(effect, on: socket)
        waiter?.resume()
    }

    // MARK: - The socket's reports (on its event loop)

    func webSocketOpened(_ socket: WebSocketTransport) {
        heartbeat(on: socket) { heartbeat, now in heartbeat.socketOpened(at: now) }
        send(.authenticate(token: credentials.token), on: socket)
        post(.opened)
    }

    func webSocket(_ socket: WebSocketTransport, received message: WebSocketTransport.Message) {
        heartbeat(on: socket) { heartbeat, now in heartbeat.messageReceived(at: now) }
        post(.message(message))
    }

    func webSocket(_ socket: WebSocketTransport, endedWith end: WebSocketTransportEnd) {
        post(.ended(end))
    }

    // MARK: - The connection's task

    private func runSocket(_ report: @escaping @Sendable (ConnectionEvent) async -> Void) async -> SessionFailure? {
        if let refusal = foreignCredentials() { return refusal }
        let url: String
        switch await eventsURLUnlessStopped() {
        case nil:
            return state.withLock { $0.ending }
        case .failure(let error):
            if let ending = state.withLock({ $0.ending }) { return ending }
            // A certificate the server's `GET /` was refused for is named; any other error names what failed
            // (an events URL the server would not give); it carries no token.
            let tls = factory.configuration.tls
            let cause =
                await TLSDiagnosis.socketCause(of: error, socketURL: nil, tls: tls)
                ?? TemporaryFailureCause(code: .connectFailed, message: "\(error)", cause: error)
            return .temporary(cause)
        case .success(let events):
            url = eventsSocketURL(
                events, format: factory.configuration.format, readyFields: factory.configuration.readyFields)
        }
        let endpoint: StoatEventsEndpoint
        do {
            // The scheme decides TLS, case-insensitively; a scheme that is not a WebSocket's is refused.
            endpoint = try StoatEventsEndpoint(socketURL: url)
        } catch {
            return .temporary(TemporaryFailureCause(code: .connectFailed, message: "\(error)", cause: error))
        }
        let socket = factory.connector.makeSocket(delegate: self)
        let stopped = state.withLock { state in
            guard !state.closed, state.ending == nil else { return true }
            state.socket = socket
            return false
        }
        if stopped { return state.withLock { $0.ending } }
        socket.connect(to: endpoint.url)
        return await read(socket, tlsURL: endpoint.usesTLS ? endpoint.url : nil, report: report)
    }

    /// The end of a connection whose session another server issued: its token goes only to the events
    /// socket its issuer's `GET /` names (the factory's server). `nil` when the session may be sent.
    private func foreignCredentials() -> SessionFailure? {
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

    /// Handles what the socket posts until it says it is closed; `nil` once the runtime closed the connection.
    private func read(
        _ socket: WebSocketTransport, tlsURL: URL?, report: @escaping @Sendable (ConnectionEvent) async -> Void
    ) async -> SessionFailure? {
        while let batch = await nextBatch() {
            // Each batch is handled in a child task that ends with it. A task keeps the memory its deepest call
            // ever took (its stack of async frames grows in slabs it frees only when it ends), and handling an
            // event goes deep — decoding, the session, the cache; `Ready` deepest — so this idle reader would
            // otherwise hold that for as long as the connection lives (measured in `lifeline bench-idle`).
            let outcome = await withTaskGroup(of: BatchOutcome.self) { group in
                group.addTask { await self.handle(batch, socket: socket, tlsURL: tlsURL, report: report) }
                return await group.next() ?? .handled(messages: 0, bytes: 0)
            }
            switch outcome {
            case .handled(let messages, let bytes): socket.consumed(messages: messages, bytes: bytes)
            case .ended(let end): return end
            }
        }
        return nil
    }

    /// What handling one batch of the inbox came to.
    private enum BatchOutcome: Sendable {
        /// Every item was handled: so many messages of so many bytes.
        case handled(messages: Int, bytes: Int)
        /// The socket said it ended, so: the connection's end.
        case ended(SessionFailure)
    }

    private func handle(
        _ batch: [Inbound], socket: WebSocketTransport, tlsURL: URL?,
        report: @escaping @Sendable (ConnectionEvent) async -> Void
    ) async -> BatchOutcome {
        var handled = (messages: 0, bytes: 0)
        for item in batch {
            let isEnding = state.withLock { $0.ending != nil }
            switch item {
            case .opened:
                if !isEnding { await report(.opened) }
            case .message(let message):
                handled.messages += 1
                handled.bytes += message.bytes.readableBytes
                // After the end nothing more is read.
                guard !isEnding else { continue }
                if let end = await handle(message, socket: socket, report: report) { self.end(end, socket) }
            case .ended(let end):
                if let ending = state.withLock({ $0.ending }) { return .ended(ending) }
                // A certificate the socket's handshake refused is named (untrusted, expired, another name).
                if end.code == .connectFailed, let error = end.cause,
                    let cause = await TLSDiagnosis.socketCause(
                        of: error, socketURL: tlsURL, tls: factory.configuration.tls)
                {
                    return .ended(.temporary(cause))
                }
                return .ended(Self.connectionEnd(for: end))
            }
        }
        return .handled(messages: handled.messages, bytes: handled.bytes)
    }

    /// What a socket's end means for the session, when nothing the connection decided came first. A close
    /// with 1007 (inconsistent data) is the server refusing a frame the client sent: Stoat's new events
    /// server refuses a `Subscribe` so, and the replay plan acts on `frameRefused`.
    static func connectionEnd(for end: WebSocketTransportEnd) -> SessionFailure {
        let code: TemporaryFailureCause.Code
        switch end.code {
        case .messageTooLarge, .protocolViolation: code = .protocolViolation
        case .closed where end.closeCode == 1007: code = .frameRefused
        default: code = end.wasOpen ? .socketDropped : .connectFailed
        }
        return .temporary(TemporaryFailureCause(code: code, message: end.message, cause: end))
    }

    /// The inbox's contents once it has any; `nil` once the runtime closed the connection.
    private func nextBatch() async -> [Inbound]? {
        while true {
            let batch: [Inbound]?? = state.withLock { state in
                if state.closed { return .some(nil) }
                guard !state.inbox.isEmpty else { return nil }
                var batch: [Inbound] = []
                swap(&batch, &state.inbox)
                return .some(batch)
            }
            if let batch { return batch }
            await wait()
        }
    }

    /// Asks for the events URL, unless the connection is closed or a deadline passes first; `nil` then.
    private func eventsURLUnlessStopped() async -> Result<String, any Error>? {
        await withTaskGroup(of: Result<String, any Error>?.self) { group in
            group.addTask {
                do { return .success(try await self.factory.eventsURL()) } catch { return .failure(error) }
            }
            group.addTask {
                while !Task.isCancelled, !self.state.withLock({ $0.closed || $0.ending != nil }) {
                    await self.wait()
                }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Suspends on the connection's one continuation until the inbox has something, the connection is
    /// closed or ending, or the waiting task is cancelled.
    private func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state in
                    if Task.isCancelled || state.closed || state.ending != nil || !state.inbox.isEmpty { return true }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }

    private func post(_ item: Inbound) {
        let waiter = state.withLock { state in
            state.inbox.append(item)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Records why the connection ends (unless it already does) and closes the socket.
    private func end(_ end: SessionFailure, _ socket: WebSocketTransport) {
        state.withLock { state in
            if state.ending == nil { state.ending = end }
        }
        socket.abort()
    }

    // MARK: - The heartbeat

    /// Runs the heartbeat's decision for a socket event, with the current time, and does what it asks.
    private func heartbeat(on socket: WebSocketTransport, _ decide: (inout Heartbeat, Duration) -> Heartbeat.Action) {
        let now = factory.clock.elapsed()
        let effect = state.withLock { state in apply(decide(&state.heartbeat, now), in: &state) }
        perform(effect, on: socket)
    }

    /// Keeps the timer to the heartbeat's decision and records a failure, under the lock.
    private func apply(_ action: Heartbeat.Action, in state: inout State) -> Effect {
        switch action {
        case .none:
            return .none
        case .wake(let deadline):
            factory.timer.schedule(self, at: deadline)
            return .none
        case .sendPing(let data, let deadline):
            factory.timer.schedule(self, at: deadline)
            return .ping(data)
        case .fail(let cause):
            factory.timer.schedule(self, at: nil)
            if state.ending == nil { state.ending = .temporary(cause) }
            return .abort
        }
    }

    /// The waiter to resume when a deadline ends the connection before its socket exists.
    private func wakingOnEnd(_ effect: Effect, _ state: inout State) -> CheckedContinuation<Void, Never>? {
        guard case .abort = effect else { return nil }
        defer { state.waiter = nil }
        return state.waiter
    }

    private func perform(_ effect: Effect, on socket: WebSocketTransport?) {
        switch effect {
        case .none:
            break
        case .ping(let data):
            guard let socket else { return }
            send(.ping(data), on: socket).whenFailure { error in
                let cause = TemporaryFailureCause(
                    code: .socketDropped, message: "the heartbeat could not be written", cause: error)
                self.end(.temporary(cause), socket)
            }
        case .abort:
            socket?.abort()
        }
    }

    // MARK: - Messages

    /// Writes a frame in the socket's format: JSON text, or MessagePack binary (strings as `bin`, as
    /// ``BonfireClientFrame/messagePack`` writes them).
    @discardableResult
    private func send(_ frame: BonfireClientFrame, on socket: WebSocketTransport) -> EventLoopFuture<Void> {
        factory.configuration.format == .messagePack
            ? socket.send(binary: frame.messagePack) : socket.send(text: frame.json)
    }

    /// Acts on one whole message; returns how the connection ends, if it does.
    private func handle(
        _ message: WebSocketTransport.Message, socket: WebSocketTransport,
        report: @escaping @Sendable (ConnectionEvent) async -> Void
    ) async -> SessionFailure? {
        let decoder = BonfireDecoder(maximumFrameSize: factory.configuration.maximumFrameSize)
        let outcome: BonfireDecoder.Outcome
        switch message {
        case .binary(let bytes):
            guard factory.configuration.format == .messagePack else {
                factory.statistics.binary()
                return nil
            }
            outcome = decoder.decode(messagePack: bytes)
        case .text(let bytes):
            // Decoded straight from the bytes the message arrived in: no String, no second copy.
            let skipped: [String]
            (outcome, skipped) = decoder.decodeReportingSkips(bytes)
            for reason in skipped {
                // One bad event of a Bulk is skipped; the others are applied.
                factory.statistics.skippedInBulk()
                factory.logger.debug("an event of a Bulk frame skipped", metadata: ["lifeline.reason": "\(reason)"])
            }
        }
        switch outcome {
        case .tooLarge(let bytes):
            return .temporary(TemporaryFailureCause(code: .protocolViolation, message: "a \(bytes)-byte frame"))
        case .undecodable(let reason):
            factory.statistics.undecodable()
            factory.logger.debug("undecodable frame ignored", metadata: ["lifeline.reason": "\(reason)"])
            return nil
        case .event(let event):
            return await handle(event, socket: socket, report: report)
        }
    }

    private func handle(
        _ event: BonfireEvent, socket: WebSocketTransport, report: @escaping @Sendable (ConnectionEvent) async -> Void
    ) async -> SessionFailure? {
        switch event {
        case .authenticated:
            heartbeat(on: socket) { heartbeat, now in heartbeat.authenticated(at: now) }
            await report(.authenticated)
        case .ready:
            let now = factory.clock.elapsed()
            let (isFirst, effect) = state.withLock { state in
                let (isFirst, action) = state.heartbeat.readyReceived(at: now)
                return (isFirst, apply(action, in: &state))
            }
            perform(effect, on: socket)
            guard isFirst else {
                // The gateway's session process restarted under this socket (`session.ex`: a transient restart,
                // then `handle_continue(:ready)`) and lost what was published meanwhile. Applying this Ready in
                // place would leave those events missing and no gap recorded: the session leaves the socket and
                // reconnects instead, so the catch-up after the next CONNECTED runs (see StoatProtocol).
                factory.logger.info("a second Ready on the open socket: reconnecting to catch up")
                return .temporary(
                    TemporaryFailureCause(
                        code: .sessionRestarted,
                        message: "a second Ready arrived on the open socket (the events server's session restarted)"))
            }
            await factory.onEvent(event)
            await report(.ready)
        case .pong(let data):
            heartbeat(on: socket) { heartbeat, now in heartbeat.pongReceived(data, at: now) }
        case .ping(let data):
            if let data {
                let pong = BonfireClientFrame.pong(data)
                if factory.configuration.format == .messagePack {
                    socket.sendUnlessBackedUp(binary: pong.messagePack)
                } else {
                    socket.sendUnlessBackedUp(text: pong.json)
                }
            }
        case .logout:
            return .loggedOut
        case .error(let error):
            return error.connectionEnd
        case .bulk(let events):
            for event in events {
                if let end = await handle(event, socket: socket, report: report) { return end }
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
