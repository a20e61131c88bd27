import Foundation
import Lifeline
import LifelineCore
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// One events socket on NIO channel handlers, as a `SessionConnection`: what ``StoatConnectionFactory`` makes.
///
/// The socket's handlers (on its event loop) write `Authenticate` when it opens, note every message's arrival
/// in the ``Heartbeat``, and post what they got to the inbox; ``run(reporting:)``, in the task the session
/// gives it, waits on one continuation for the inbox, decodes the messages there (not on the event loop, so
/// a large `Ready` holds up no other socket) and reports. The factory's ``SocketTimer`` calls
/// ``deadlineReached(at:)``, which writes a `Ping` or ends the socket.
///
/// Decision: a connection's end has one path, the socket's own. Whatever ends it — a deadline its heartbeat
/// missed, a frame that ends the session, a session of another server, an events URL it could not get —
/// aborts the socket with the reason (``WebSocketTransport/abort(because:)``), and the socket's one end,
/// posted to the inbox once its channel is closed, carries that reason back to the connection's task, which
/// reports it; the peer's end comes the same way. The connection keeps no record of why it ends, the socket
/// is aborted once, and the timer forgets the connection once, when `run` returns. Only ``close()`` (the
/// runtime's) is not an end: `run` then returns at once and reports nothing.
final class NIOStoatConnection: SessionConnection, WebSocketTransportDelegate, SocketTimerTarget {
    /// What the socket posted for the connection's task.
    private enum Inbound: Sendable {
        case opened
        case message(WebSocketTransport.Message)
        case ended(WebSocketTransportEnd)
    }

    private struct State {
        /// Where a check's `Ping` data starts: 2³¹, above the heartbeat's (the session clock in milliseconds)
        /// for its first 24 days, and far within the integers JSON carries exactly. A server echoes only a
        /// non-negative integer (stoatchat's `Ping`).
        static let checkDataBase: Int64 = 1 << 31

        var heartbeat: Heartbeat
        /// The socket, from the start of ``run(reporting:)``.
        var socket: WebSocketTransport?
        var inbox: [Inbound] = []
        /// The connection's task, waiting for the inbox.
        var waiter: CheckedContinuation<Void, Never>?
        /// Whether the runtime closed it: it then reports nothing.
        var closed = false
        /// Whether the socket ended: a check of it can no longer be answered.
        var ended = false
        /// The checks of the socket awaiting their `Pong`, by their `Ping`'s data.
        var socketChecks: [Int64: CheckedContinuation<Void, any Error>] = [:]
        /// The last data a check's `Ping` carried.
        var lastCheckData: Int64 = Self.checkDataBase
    }

    /// What a heartbeat decision asks of the socket, done outside the lock.
    private enum Effect {
        case none
        case ping(Int64)
        case end(SessionFailure)
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
        let socket = factory.connector.makeSocket(delegate: self)
        let started = state.withLock { state in
            // The connect timeout runs from here; closed before it started, it never runs.
            guard !state.closed else { return false }
            state.socket = socket
            factory.timer.schedule(self, at: state.heartbeat.scheduled)
            return true
        }
        guard started else { return }
        let end = await withTaskCancellationHandler {
            await runSocket(socket, report)
        } onCancel: {
            close()
        }
        // The one place the timer forgets the connection: its socket has ended, or the runtime closed it.
        factory.timer.schedule(self, at: nil)
        failSocketChecks()
        guard let end, !Task.isCancelled, !state.withLock({ $0.closed }) else { return }
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
        failSocketChecks()
        socket?.close()
        waiter?.resume()
    }

    /// Checks the socket at once: a `Ping` with data of its own, answered when its `Pong` comes (see
    /// ``SessionConnection/startSocketCheck()``). The `Ping` is written after the check is registered, so
    /// its `Pong` cannot come first.
    func startSocketCheck() -> PlayStart {
        // A connection closed or ended says so at once, even while its socket's close is still under way.
        guard let socket = state.withLock({ $0.closed || $0.ended ? nil : $0.socket }), socket.isOpen else {
            return .failed(StoatConnectionError(code: .notOpen, message: "the socket is not open"))
        }
        return .pending { try await self.awaitPong(on: socket) }
    }

    private func awaitPong(on socket: WebSocketTransport) async throws {
        let data = state.withLock { state in
            state.lastCheckData &+= 1
            return state.lastCheckData
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let registered = state.withLock { state in
                    guard !state.closed, !state.ended, !Task.isCancelled else { return false }
                    state.socketChecks[data] = continuation
                    return true
                }
                guard registered else {
                    continuation.resume(throwing: Self.checkEnded)
                    return
                }
                send(.ping(data), on: socket).whenFailure { error in
                    self.finishSocketCheck(
                        data,
                        with: .failure(
                            StoatConnectionError(
                                code: .writeFailed, message: "the check's Ping could not be written", cause: error)))
                }
            }
        } onCancel: {
            finishSocketCheck(data, with: .failure(CancellationError()))
        }
    }

    /// The error a check ends with when the connection ends or is closed before its `Pong`.
    private static let checkEnded = StoatConnectionError(
        code: .notOpen, message: "the connection ended before the check's Pong")

    private func finishSocketCheck(_ data: Int64, with result: Result<Void, any Error>) {
        let continuation = state.withLock { $0.socketChecks.removeValue(forKey: data) }
        continuation?.resume(with: result)
    }

    /// Fails every check awaiting its `Pong`: the socket ended or was closed.
    private func failSocketChecks() {
        let continuations = state.withLock { state in
            state.ended = true
            defer { state.socketChecks = [:] }
            return Array(state.socketChecks.values)
        }
        for continuation in continuations { continuation.resume(throwing: Self.checkEnded) }
    }

    /// Starts a play: answered at once while the socket's outbound buffer has room, so the session's sequential
    /// replay plays on without a task or a hop per frame; awaited only when the buffer is full.
    ///
    /// Decision: while the socket's outbound buffer has room, the frame counts as written once it is handed to
    /// the channel (as an async channel writer takes it), without waiting for the event loop to report the
    /// write: a replay of 1 000 subscriptions otherwise waits for 1 000 round trips to the event loop. A full
    /// buffer (the peer not reading) is waited on; a write that fails later ends the socket, and the replay
    /// plays again on the next connection.
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

    /// The factory's timer woke the connection at its deadline (the timer no longer holds one for it).
    func deadlineReached(at now: Duration) {
        let (effect, socket) = state.withLock { state in
            (apply(state.heartbeat.deadlineReached(at: now)), state.socket)
        }
        if let socket { perform(effect, on: socket) }
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
        failSocketChecks()
        post(.ended(end))
    }

    // MARK: - The connection's task

    /// Opens the socket, or ends it before it opens, and reads it until it ends; `nil` once the runtime
    /// closed the connection.
    private func runSocket(
        _ socket: WebSocketTransport, _ report: @escaping @Sendable (ConnectionEvent) async -> Void
    ) async -> SessionFailure? {
        var tlsURL: URL?
        switch await eventsEndpoint() {
        case nil:
            break
        case .failure(let refusal):
            socket.abort(because: refusal)
        case .success(let endpoint):
            tlsURL = endpoint.usesTLS ? endpoint.url : nil
            socket.connect(to: endpoint.url)
        }
        return await read(socket, tlsURL: tlsURL, report: report)
    }

    /// Where the socket is to open: the events URL the factory's server names, for credentials it issued.
    /// `nil` when the socket ended (or was closed) while the URL was asked.
    private func eventsEndpoint() async -> Result<StoatEventsEndpoint, SessionFailure>? {
        if let refusal = foreignCredentials() { return .failure(refusal) }
        let url: String
        switch await eventsURLUnlessEnded() {
        case nil:
            return nil
        case .failure(let error):
            // A certificate the server's `GET /` was refused for is named; any other error names what failed
            // (an events URL the server would not give); it carries no token.
            let tls = factory.configuration.tls
            let cause =
                await TLSDiagnosis.socketCause(of: error, socketURL: nil, tls: tls)
                ?? TemporaryFailureCause(code: .connectFailed, message: "\(error)", cause: error)
            return .failure(.temporary(cause))
        case .success(let events):
            url = eventsSocketURL(
                events, format: factory.configuration.format, readyFields: factory.configuration.readyFields)
        }
        do {
            // The scheme decides TLS, case-insensitively; a scheme that is not a WebSocket's is refused.
            return .success(try StoatEventsEndpoint(socketURL: url))
        } catch {
            return .failure(.temporary(TemporaryFailureCause(code: .connectFailed, message: "\(error)", cause: error)))
        }
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
        // The end a frame decided: the socket, aborted for it, may have ended for another reason behind that
        // frame already (Stoat closes the socket right after `Logout`), and the frame came first.
        var decided: SessionFailure?
        while let batch = await nextBatch() {
            // Each batch is handled in a child task that ends with it. A task keeps the memory its deepest call
            // ever took (its stack of async frames grows in slabs it frees only when it ends), and handling an
            // event goes deep — decoding, the session, the cache; `Ready` deepest — so this idle reader would
            // otherwise hold that for as long as the connection lives (measured in `lifeline bench-idle`).
            let outcome = await withTaskGroup(of: BatchOutcome.self) { [decided] group in
                group.addTask { await self.handle(batch, decided: decided, socket: socket, report: report) }
                return await group.next() ?? .handled(messages: 0, bytes: 0, decided: decided)
            }
            switch outcome {
            case .handled(let messages, let bytes, let end):
                decided = end
                socket.consumed(messages: messages, bytes: bytes)
            case .ended(let end, let decided):
                if let decided { return decided }
                return await Self.connectionEnd(for: end, tlsURL: tlsURL, tls: factory.configuration.tls)
            }
        }
        return nil
    }

    /// What handling one batch of the inbox came to.
    private enum BatchOutcome: Sendable {
        /// Every item was handled: so many messages of so many bytes, and the end a frame decided, if one did.
        case handled(messages: Int, bytes: Int, decided: SessionFailure?)
        /// The socket said it ended, so, after the end a frame decided, if one did.
        case ended(WebSocketTransportEnd, decided: SessionFailure?)
    }

    private func handle(
        _ batch: [Inbound], decided: SessionFailure?, socket: WebSocketTransport,
        report: @escaping @Sendable (ConnectionEvent) async -> Void
    ) async -> BatchOutcome {
        var handled = (messages: 0, bytes: 0)
        var decided = decided
        for item in batch {
            // After this side ended the socket (a frame's end, a deadline's), nothing more is read.
            let isEnding = decided != nil || socket.isAborted
            switch item {
            case .opened:
                if !isEnding { await report(.opened) }
            case .message(let message):
                handled.messages += 1
                handled.bytes += message.bytes.readableBytes
                guard !isEnding, let end = await handle(message, socket: socket, report: report) else { continue }
                decided = end
                socket.abort(because: end)
            case .ended(let end):
                return .ended(end, decided: decided)
            }
        }
        return .handled(messages: handled.messages, bytes: handled.bytes, decided: decided)
    }

    /// What a socket's end means for the session. An end this connection decided
    /// (``WebSocketTransport/abort(because:)``'s reason) is that reason. A close with 1007 (inconsistent data) is the server refusing a frame the client
    /// sent: Stoat's new events server refuses a `Subscribe` so, and the replay plan acts on `frameRefused`.
    /// A certificate the socket's handshake refused is named (untrusted, expired, another name).
    static func connectionEnd(
        for end: WebSocketTransportEnd, tlsURL: URL?, tls: TLSConfiguration
    ) async -> SessionFailure {
        if end.code == .aborted, let decided = end.cause as? SessionFailure { return decided }
        if end.code == .connectFailed, let error = end.cause,
            let cause = await TLSDiagnosis.socketCause(of: error, socketURL: tlsURL, tls: tls)
        {
            return .temporary(cause)
        }
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

    /// Asks for the events URL, unless the connection is closed or its socket ends first (a deadline); `nil`
    /// then.
    private func eventsURLUnlessEnded() async -> Result<String, any Error>? {
        await withTaskGroup(of: Result<String, any Error>?.self) { group in
            group.addTask {
                do { return .success(try await self.factory.eventsURL()) } catch { return .failure(error) }
            }
            group.addTask {
                while !Task.isCancelled, !self.state.withLock({ $0.closed || !$0.inbox.isEmpty }) {
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
    /// closed, or the waiting task is cancelled.
    private func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state in
                    if Task.isCancelled || state.closed || !state.inbox.isEmpty { return true }
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

    // MARK: - The heartbeat

    /// Runs the heartbeat's decision for a socket event, with the current time, and does what it asks.
    private func heartbeat(on socket: WebSocketTransport, _ decide: (inout Heartbeat, Duration) -> Heartbeat.Action) {
        let now = factory.clock.elapsed()
        let effect = state.withLock { state in apply(decide(&state.heartbeat, now)) }
        perform(effect, on: socket)
    }

    /// Keeps the timer to the heartbeat's decision, under the lock; what the socket is to do is returned.
    private func apply(_ action: Heartbeat.Action) -> Effect {
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
            // The timer popped the connection when it woke it, and `run` forgets it once the socket ended.
            return .end(.temporary(cause))
        }
    }

    private func perform(_ effect: Effect, on socket: WebSocketTransport) {
        switch effect {
        case .none:
            break
        case .ping(let data):
            send(.ping(data), on: socket).whenFailure { error in
                let cause = TemporaryFailureCause(
                    code: .socketDropped, message: "the heartbeat could not be written", cause: error)
                socket.abort(because: SessionFailure.temporary(cause))
            }
        case .end(let end):
            socket.abort(because: end)
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
                return (isFirst, apply(action))
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
            if let data, data > State.checkDataBase { finishSocketCheck(data, with: .success(())) }
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
