import Logging
import NIOCore
import NIOWebSocket

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a connection's writer task does next. Every frame to one socket goes through its queue, so a
/// fragmented Ready is never interleaved with another frame.
enum Outbound: Sendable {
    /// A text message (fragmented by the writer when large).
    case text(ByteBuffer)
    /// A binary message (MessagePack; fragmented by the writer when large).
    case binary(ByteBuffer)
    /// Send a close frame with this code, then end the connection.
    case close(code: WebSocketErrorCode, reason: String?)
    /// End the connection without a close frame, as bonfire does when it returns: the frames before it are
    /// flushed, then the TCP connection is shut down (FIN).
    case drop
    /// Close the TCP connection at once, without a close frame, as a network failure would.
    case abort
}

/// A message a client sent, as it arrived.
enum InboundMessage: Sendable {
    case text(String)
    case binary([UInt8])
}

/// A live socket's handles: its outbound queue and its NIO channel, and how it writes frames.
struct LiveSocket: Sendable {
    let outbound: AsyncStream<Outbound>.Continuation
    let channel: any Channel
    var dialect: SocketDialect = .bonfireJSON

    /// Sends `text` as it is, in a text frame (the raw-frame fault), whatever the socket's format.
    func send(_ text: String) {
        outbound.yield(.text(ByteBuffer(string: text)))
    }

    /// Sends a value as the socket's events server writes it, in its format.
    func send(_ wire: Wire) {
        outbound.yield(dialect.frame(wire))
    }
}

/// The faults in force.
struct Faults: Sendable {
    var refuseUpgrades = 0
    var failMessageQueries = 0
    /// Message queries let through before ``failMessageQueries`` starts failing them.
    var passMessageQueries = 0
    var silent = false
    var ignorePings = false
    /// Drop every socket right after its Ready (a server that accepts and drops at once).
    var dropAfterReady = false
    var readyDelay: Duration?
    /// Every `Ready` waits for ``ServerState/setReadyHeld(_:)`` to let it go: a Ready as late as a test wants,
    /// on no clock.
    var readyHeld = false
    var readyMinimumBytes: Int?
    var forcedLogins: [LoginAnswer] = []
    var health = HealthState()
    /// Send a close frame (1000) where bonfire drops the connection (after `Logout` or `Error`).
    var closeFramesOnServerEnds = false
    /// Session-token lookups fail until this date, or until cleared when `outageForever` is set.
    var sessionOutageUntil: Date?
    var sessionOutageForever = false
    /// No socket receives a published event (every socket answers `Pong`; new ones get `Authenticated` and
    /// `Ready`): stoatchat#649's deaf socket, an events bus that stopped delivering.
    var deaf = false
    /// The next this many sends that the server stores are never answered: the connection drops instead.
    var loseSendAnswers = 0
    /// The next this many edits, deletions, reactions and unreactions the server applies are never answered.
    var loseActionAnswers = 0
    /// The next this many acknowledgements fail after their `ChannelAck` went out, before the read state is
    /// written: stoatchat's `ack_channel` failing on Redis or AMQP (`InternalError`, 500).
    var failAckWrites = 0
    /// Absurd numbers wherever Stoat states one (`ServerState+Hostile`).
    var hostile = HostileFault()
    /// `last_message_id` is committed by stoatchat's debounced task (``LastMessageIDQueue``), about 6 s after a
    /// channel's last message and 31 s at most for a busy one; off, a send writes it at once.
    var lastMessageIDLag = true
    /// The next this many `Message` events are overtaken by the event published after each (the gateway's
    /// parallel processors).
    var reorderMessages = 0
    /// The next this many uploads the file server stores are never answered: the connection drops instead.
    var loseUploadAnswers = 0
    /// The file server reads uploads at most this fast (bytes per second); nil reads them at once.
    var uploadBytesPerSecond: Int?
}

/// What `GET /api/health` answers.
struct HealthState: Sendable {
    var alert: HealthAlert?
    var pollRate: Int?
}

/// The server's whole state: data, sessions, sockets, faults and observation. One actor, so that every REST
/// call, socket frame and fault sees one consistent picture; its facets live in `ServerState+*.swift`
/// (``ServerState`` data, authentication, REST rules, permissions, sockets, events, faults, observation).
actor ServerState {
    /// Where a connection is in bonfire's life cycle.
    enum Phase: Sendable, Equatable {
        /// Waiting for `Authenticate`; every other frame is ignored.
        case awaitingAuthentication
        /// Authenticated; Ready is being prepared. Frames wait in ``Connection/pendingFrames``, as bonfire reads
        /// none until its worker starts after Ready.
        case preparingReady
        /// Ready was sent: frames are handled and events delivered.
        case listening
        /// The server ended it (a drop or close is queued).
        case ended
    }

    /// One socket's state, bonfire's `State` included.
    struct Connection {
        var record: ConnectionRecord
        let socket: LiveSocket
        let filter: ReadyFilter
        /// The `Ready` fields a gateway socket asked for.
        var gatewayFields = GatewayReadyFields.standard
        /// How the socket writes (its events server and format).
        var dialect: SocketDialect { socket.dialect }
        let silent: Bool
        var phase: Phase = .awaitingAuthentication
        /// The session id it authenticated with; empty for a bot, as bonfire's.
        var sessionID: String?
        var pendingFrames: [String] = []
        /// bonfire's subscribed topics: `<user>!`, user ids, server ids, `<server>u`, channel ids.
        var topics: Set<String> = []
        /// bonfire's active-server cache, least recently renewed first.
        var activeServers: [(id: String, renewedAt: Date)] = []
        var inPresence = false
        /// Made deaf by ``ServerState/deafenListeningSockets()``: it answers `Pong` and receives no event.
        var deaf = false
        /// The gateway's session process behind this socket crashed and has not sent its new `Ready` yet: the
        /// events published meanwhile are lost (``ServerState/crashGatewaySessions(userID:)``).
        var sessionDown = false
    }

    let configuration: ReferenceServer.Configuration
    let store: PersistentStore?
    let logger: Logger

    // Data.
    var accounts: [String: Account] = [:]
    var accountIDByEmail: [String: String] = [:]
    var sessions: [String: SessionRecord] = [:]
    var tickets: [String: MFATicket] = [:]
    var bots: [String: BotRecord] = [:]
    var botIDByToken: [String: String] = [:]
    var users: [String: StoatUser] = [:]
    var userOrder: [String] = []
    var servers: [String: StoatServer] = [:]
    var serverOrder: [String] = []
    var channels: [String: StoatChannel] = [:]
    var channelOrder: [String] = []
    var members: [StoatMember.Key: StoatMember] = [:]
    var memberIDsByServer: [String: [String]] = [:]
    var serverIDsByUser: [String: [String]] = [:]
    var emojis: [String: StoatEmoji] = [:]
    var emojiIDsByServer: [String: [String]] = [:]
    var messages: [String: StoatMessage] = [:]
    var messageIDsByChannel: [String: [String]] = [:]
    var settings: [String: SettingsRecord] = [:]
    /// The files uploaded to the file server, by id.
    var files: [String: StoatFile] = [:]
    /// Their bytes, by id.
    var fileContents: [String: Data] = [:]
    /// The file server's upload limits (the configuration's, changed by the admin API).
    var uploadLimits: UploadLimits
    /// The file server's port, once it listens (`GET /` names it under `features.autumn`).
    var fileServerPort: Int?
    /// Read states by `channel:user`, and each user's keys in the order their records were made (MongoDB's
    /// natural order, in which `GET /sync/unreads` lists them).
    var unreads: [String: UnreadRecord] = [:]
    var unreadKeysByUser: [String: [String]] = [:]
    var operations: [String: StoatOperation] = [:]
    /// Slowmodes in force: user → channel → until when (stoatchat keeps them in Redis with a TTL).
    var slowmodes: [String: [String: Date]] = [:]
    var messageIDs = MonotonicULID()
    /// stoatchat's debounced `last_message_id` updates not yet committed; made at the first send.
    var lastMessageIDQueue: LastMessageIDQueue?
    /// `Message` events held back by the reorder fault, with their topics, released after the next event.
    var heldMessages: [(event: ServerEvent, topics: [String])] = []
    /// Nonces and idempotency keys seen lately (stoatchat's LRU of 1000), least recently used first: a key
    /// looked up again moves to the end, as `lru::LruCache::get` promotes it.
    var recentNonces: [String] = []
    var recentNonceSet: Set<String> = []

    // Sockets.
    var connections: [Int: Connection] = [:]
    /// The connections subscribed to each topic (``Connection/topics`` inverted, kept by ``retopic(_:from:)``), so
    /// that publishing costs the listeners of its topics, not every socket: a storm of ten thousand sockets
    /// publishes twenty thousand presence changes.
    var connectionsByTopic: [String: Set<Int>] = [:]
    /// The latest closed connections (``ObservationLimits/closedConnections``); ``closedRecordsDropped`` counts
    /// the older ones.
    var closedRecords: [ConnectionRecord] = []
    var closedRecordsDropped = 0
    var nextConnectionID = 1
    var upgradesAccepted = 0
    var upgradesRefused = 0
    /// Authenticated sockets per user that have passed Ready (stoatchat's presence sessions).
    var presence: [String: Set<Int>] = [:]

    // Observation.
    /// Every distinct session token a client sent (`X-Session-Token`, the socket's `Authenticate` or `token`
    /// query item), valid or not, up to ``ServerState/maximumObservedTokens``; then only counted.
    var observedSessionTokens: Set<String> = []
    /// Distinct tokens received after ``observedSessionTokens`` was full.
    var unrecordedSessionTokens = 0
    var observers: [Int: AsyncStream<Void>.Continuation] = [:]
    var nextObserverID = 0
    var arrivalMark = ContinuousClock.now
    var arrivalBins: [Int] = []
    /// Arrivals after the last bin kept (``ObservationLimits/arrivalBins``).
    var lateArrivals = 0
    var outageSessionChecks = 0
    var outageSocketRefusals = 0
    var rateLimited = 0
    var lostSendAnswers = 0
    /// Uploads the file server stored, answers lost to the fault, and bytes of upload bodies received.
    var uploadsStored = 0
    var lostUploadAnswers = 0
    var uploadBytesReceived = 0
    /// Stoat REST requests by route (`GET /channels/{id}/messages`), since the last reset.
    var requestCounts: [String: Int] = [:]
    /// What load tests check (`ServerState+Load`).
    var load = LoadObservation()

    // Faults and limits.
    var faults = Faults()
    /// The Readys held back by ``Faults/readyHeld``, waiting to be let go.
    var heldReadys: [CheckedContinuation<Void, Never>] = []
    var clockSkew: Duration = .zero
    var rateLimiter = RateLimiter()

    init(configuration: ReferenceServer.Configuration, store: PersistentStore?) {
        self.configuration = configuration
        self.store = store
        self.logger = configuration.logger
        self.uploadLimits = configuration.uploadLimits
    }

    // MARK: Clock

    /// The server's clock: the configured clock plus the skew fault.
    func now() -> Date {
        configuration.now().addingTimeInterval(clockSkew.seconds)
    }

    func setFileServerPort(_ port: Int) {
        fileServerPort = port
    }

    func setClockSkew(_ skew: Duration) {
        clockSkew = skew
        changed()
    }

    /// Tells every observer that something observable changed.
    func changed() {
        for observer in observers.values { observer.yield() }
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// The duration in whole milliseconds.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
