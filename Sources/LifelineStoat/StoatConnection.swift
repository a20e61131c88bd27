import Dispatch
public import Lifeline
public import LifelineCore
public import Logging
public import NIOSSL
import Synchronization
import WSClient

/// Opens Stoat events sockets for a ``Session``: the WebSocket connection with the specification's
/// heartbeat and connect timeout, on the session's injected clock.
///
/// Each connection opens the events URL (`GET /`'s `ws`, with `version=1&format=json`), sends
/// `Authenticate` (the token never goes into the URL), and reports SOCKET_CONNECTED only once `Ready` has
/// been decoded. Then it pings every ``Configuration/heartbeatInterval``; no matching `Pong` within
/// ``Configuration/pongTimeout``, no message at all within ``Configuration/connectTimeout`` of starting,
/// or no `Ready` within ``Configuration/readyTimeout`` of `Authenticated` aborts the socket at once —
/// by cancelling it, with no close handshake that could hang — and reports a TEMPORARY_FAILURE.
///
/// Errors map as DESIGN decisions 4, 7 and 10 say: `Logout` is an external LOGOUT; an `Error` that
/// says the session cannot authenticate (`InvalidSession`…) is a PERMANENT_FAILURE; every other error,
/// a close and a transport error are TEMPORARY_FAILUREs. Unknown event types and undecodable frames are
/// ignored and counted (``Statistics``), never fatal.
public struct StoatConnectionFactory: ConnectionFactory {
    /// The socket's timing and limits. The defaults are the specification's.
    public struct Configuration: Sendable {
        /// How often to send `Ping` after the socket opens. Default 30 s.
        public var heartbeatInterval: Duration
        /// How long to wait for the matching `Pong`. Default 10 s.
        public var pongTimeout: Duration
        /// How long to wait for the first message after starting the connection. Default 10 s.
        public var connectTimeout: Duration
        /// How long to wait for `Ready` after `Authenticated` (extension, DESIGN decision 6). Default 30 s.
        public var readyTimeout: Duration
        /// The largest frame accepted; a larger one drops the connection. Default 64 MiB.
        public var maximumFrameSize: Int
        /// TLS for `wss://` URLs (certificates verified; set trust roots to test with your own CA).
        public var tls: TLSConfiguration
        /// The `ready` query filter: only these `Ready` fields are sent (empty: all).
        public var readyFields: [String]

        /// Creates a configuration.
        public init(
            heartbeatInterval: Duration = .seconds(30), pongTimeout: Duration = .seconds(10),
            connectTimeout: Duration = .seconds(10), readyTimeout: Duration = .seconds(30),
            maximumFrameSize: Int = 64 << 20, tls: TLSConfiguration = .makeClientConfiguration(),
            readyFields: [String] = []
        ) {
            self.heartbeatInterval = heartbeatInterval
            self.pongTimeout = pongTimeout
            self.connectTimeout = connectTimeout
            self.readyTimeout = readyTimeout
            self.maximumFrameSize = maximumFrameSize
            self.tls = tls
            self.readyFields = readyFields
        }
    }

    /// Counts of frames the connections tolerated rather than failed on.
    public final class Statistics: Sendable {
        private let counts = Mutex((unknown: 0, undecodable: 0, binary: 0))
        /// Frames of an event type Lifeline does not model.
        public var unknownEvents: Int { counts.withLock { $0.unknown } }
        /// Frames that were not a well-formed event.
        public var undecodableFrames: Int { counts.withLock { $0.undecodable } }
        /// Binary frames (Lifeline asks for JSON text).
        public var binaryFrames: Int { counts.withLock { $0.binary } }

        init() {}
        func unknown() { counts.withLock { $0.unknown += 1 } }
        func undecodable() { counts.withLock { $0.undecodable += 1 } }
        func binary() { counts.withLock { $0.binary += 1 } }
    }

    let eventsURL: @Sendable () async throws -> String
    let configuration: Configuration
    let clock: SessionClock
    let logger: Logger
    let onEvent: @Sendable (BonfireEvent) async -> Void
    /// What the connections tolerated, for all connections of this factory.
    public let statistics = Statistics()

    /// Creates a factory.
    ///
    /// - Parameters:
    ///   - eventsURL: Gives the events socket's URL (`GET /`'s `ws`); asked before each connection.
    ///   - configuration: Timing and limits.
    ///   - clock: The clock for the heartbeat and the timeouts: the session's, so tests control both.
    ///   - logger: Where connections log (never a token).
    ///   - onEvent: Receives every event after `Ready` — messages, typing, updates — and `Ready` itself.
    public init(
        eventsURL: @escaping @Sendable () async throws -> String,
        configuration: Configuration = Configuration(),
        clock: some Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "lifeline.stoat", factory: { _ in SwiftLogNoOpLogHandler() }),
        onEvent: @escaping @Sendable (BonfireEvent) async -> Void = { _ in }
    ) {
        self.eventsURL = eventsURL
        self.configuration = configuration
        self.clock = SessionClock(clock)
        self.logger = logger
        self.onEvent = onEvent
    }

    /// Makes the connection for one attempt.
    public func makeConnection(for credentials: SessionCredentials, generation: UInt64) -> any SessionConnection {
        StoatConnection(credentials: credentials, generation: generation, factory: self)
    }
}

/// Why a Stoat connection could not do what it was asked.
public struct StoatConnectionError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// The message.
    public var description: String { message }
}

/// One events socket.
final class StoatConnection: SessionConnection {
    let credentials: SessionCredentials
    let generation: UInt64
    let factory: StoatConnectionFactory
    let watchdog: Watchdog

    init(credentials: SessionCredentials, generation: UInt64, factory: StoatConnectionFactory) {
        self.credentials = credentials
        self.generation = generation
        self.factory = factory
        watchdog = Watchdog(clock: factory.clock, configuration: factory.configuration)
    }

    func run(reporting report: @escaping @Sendable (ConnectionEvent) async -> Void) async {
        let end: ConnectionEnd = await withTaskGroup(of: ConnectionEnd.self) { group in
            group.addTask { await self.runSocket(report) }
            group.addTask { await self.watchdog.run() }
            let first = await group.next() ?? .temporary(.socketDropped)
            // Ending the group cancels the socket's task: the socket is aborted, not closed politely.
            group.cancelAll()
            return first
        }
        watchdog.stop()
        guard !Task.isCancelled else { return }
        factory.logger.debug(
            "events socket ended", metadata: ["lifeline.generation": "\(generation)", "lifeline.end": "\(end)"])
        await report(.ended(end))
    }

    /// Plays a significant event as its Bonfire frame. Stoat answers none of them, so success is the frame
    /// written.
    func play(_ event: SignificantEvent) async throws {
        let frame: BonfireClientFrame
        switch event.kind {
        case .subscribe: frame = .subscribe(serverID: event.target)
        case .beginTyping: frame = .beginTyping(channel: event.target)
        case .endTyping: frame = .endTyping(channel: event.target)
        default: throw StoatConnectionError(message: "Stoat has no frame for \(event.kind)")
        }
        try await watchdog.write(frame.json)
    }

    /// The URL with the query Stoat expects; never the token.
    func url() async throws -> String {
        var url = try await factory.eventsURL()
        url += url.contains("?") ? "&" : "?"
        url += "version=1&format=json"
        for field in factory.configuration.readyFields { url += "&ready=\(field)" }
        return url
    }

    private func runSocket(_ report: @escaping @Sendable (ConnectionEvent) async -> Void) async -> ConnectionEnd {
        let ending = Mutex<ConnectionEnd?>(nil)
        let opened = Atomic<Bool>(false)
        do {
            // The scheme decides TLS, case-insensitively; a scheme that is not a WebSocket's is refused.
            let endpoint = try StoatEventsEndpoint(socketURL: try await url())
            var configuration = WebSocketClientConfiguration()
            configuration.maxFrameSize = factory.configuration.maximumFrameSize
            // A cancelled socket is aborted, not closed politely: WSClient closes its input and waits at most
            // this long for the close handshake, so a silent peer cannot hold a dead connection open.
            configuration.closeTimeout = .milliseconds(10)
            let close = try await WebSocketClient.connect(
                url: endpoint.url.absoluteString, configuration: configuration,
                tlsConfiguration: endpoint.usesTLS ? factory.configuration.tls : nil,
                logger: factory.logger
            ) { inbound, outbound, _ in
                opened.store(true, ordering: .relaxed)
                self.watchdog.opened(outbound)
                await report(.opened)
                try await outbound.write(.text(BonfireClientFrame.authenticate(token: self.credentials.token).json))
                for try await message in inbound.messages(maxSize: self.factory.configuration.maximumFrameSize) {
                    self.watchdog.messageReceived()
                    guard case .text(let text) = message else {
                        self.factory.statistics.binary()
                        continue
                    }
                    let outcome = BonfireDecoder(maximumFrameSize: self.factory.configuration.maximumFrameSize).decode(
                        text)
                    if let end = await self.handle(outcome, outbound: outbound, report: report) {
                        ending.withLock { $0 = end }
                        return
                    }
                }
            }
            if let end = ending.withLock({ $0 }) { return end }
            let detail = close.map { "closed with \($0.closeCode)" } ?? "closed"
            return .temporary(TemporaryFailureCause(.socketDropped, detail: detail))
        } catch {
            if let end = ending.withLock({ $0 }) { return end }
            let code: TemporaryFailureCause.Code = opened.load(ordering: .relaxed) ? .socketDropped : .connectFailed
            return .temporary(TemporaryFailureCause(code, detail: "\(type(of: error))"))
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
            return .temporary(TemporaryFailureCause(.protocolViolation, detail: "a \(bytes)-byte frame"))
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
            watchdog.authenticated()
            await report(.authenticated)
        case .ready:
            guard watchdog.ready() else { return nil }  // a second Ready changes nothing
            await factory.onEvent(event)
            await report(.ready)
        case .pong(let data):
            watchdog.pong(data)
        case .ping(let data):
            if let data { try? await outbound.write(.text(BonfireClientFrame.pong(data).json)) }
        case .logout:
            return .loggedOut
        case .error(let error):
            if error.isAuthenticationError {
                let code: PermanentFailureReason.Code =
                    error.kind == "InvalidSession" ? .invalidSession : .authenticationFailed
                return .permanent(PermanentFailureReason(code, detail: error.kind))
            }
            return .temporary(TemporaryFailureCause(.serverError, detail: error.kind))
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
