public import Lifeline
public import LifelineCore
public import Logging
package import NIOCore
import NIOPosix
public import NIOSSL
import Synchronization

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
/// The socket is NIO channel handlers on swift-nio's own WebSocket support (`NIOWebSocket`, NIOSSL for `wss`):
/// its frames, reassembly and close handshake run on the channel's event loop, a failed upgrade closes its
/// channel, and a connection has no task of its own. The deadlines are decided by a pure machine per socket
/// and kept by one timer for all the factory's sockets, so an idle connection costs its channel, a heap entry
/// in that timer and the one suspended task the session runs it in (see the catalog's "The events socket" and
/// "The socket's timers").
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

    /// The server whose `GET /` names the events URL, when known: the only server whose sessions the
    /// sockets authenticate with.
    public let server: ServerIdentity?
    /// What the connections tolerated, for all connections of this factory.
    public let statistics: Statistics
    /// Gives the events socket's URL; asked before each connection.
    let eventsURL: @Sendable () async throws -> String
    /// The sockets' timing, limits, TLS and format.
    let configuration: Configuration
    /// The session's clock, for the heartbeat and the timeouts.
    let clock: SessionClock
    /// The one timer of all this factory's sockets.
    let timer: SocketTimer
    /// Opens the sockets (and keeps their TLS context).
    let connector: WebSocketConnector
    let logger: Logger
    let onEvent: @Sendable (BonfireEvent) async -> Void

    /// Creates a factory.
    ///
    /// A session's token is sent only to the events socket of the server that issued it: a connection for
    /// credentials whose `SessionCredentials/issuer` is not `server` (or for any issued session, when
    /// `server` is `nil`) ends before it opens, with a permanent failure
    /// (`PermanentFailureReason.Code.authenticationFailed`, its cause ``StoatAPIErrorCode/foreignCredentials``).
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
        self.init(
            eventsURL: eventsURL, server: server, configuration: configuration, clock: clock,
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger, onEvent: onEvent)
    }

    /// Creates a factory whose sockets run on `eventLoopGroup` and count what they tolerate in `statistics`.
    ///
    /// - Parameters:
    ///   - eventsURL: Gives the events socket's URL (`GET /`'s `ws`); asked before each connection.
    ///   - server: The API server whose `GET /` gives the events URL, as for
    ///     ``init(eventsURL:server:configuration:clock:logger:onEvent:)``.
    ///   - configuration: Timing, limits, TLS and format.
    ///   - clock: The clock for the heartbeat and the timeouts: the session's, so tests control both.
    ///   - eventLoopGroup: Where the sockets and their timer run.
    ///   - logger: Where connections log (never a token).
    ///   - statistics: Where to count tolerated frames; by default the factory's own.
    ///   - onEvent: Receives every event after `Ready` — messages, typing, updates — and `Ready` itself.
    package init(
        eventsURL: @escaping @Sendable () async throws -> String,
        server: ServerIdentity? = nil,
        configuration: Configuration = Configuration(),
        clock: some Clock<Duration> = ContinuousClock(),
        eventLoopGroup: any EventLoopGroup,
        logger: Logger = Logger(label: "lifeline.stoat", factory: { _ in SwiftLogNoOpLogHandler() }),
        statistics: Statistics? = nil,
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
        self.statistics = statistics ?? Statistics()
        self.onEvent = onEvent
    }

    /// Makes the connection for one attempt.
    public func makeConnection(for credentials: SessionCredentials, generation: UInt64) -> any SessionConnection {
        NIOStoatConnection(credentials: credentials, generation: generation, factory: self)
    }
}
