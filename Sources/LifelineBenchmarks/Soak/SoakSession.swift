import Foundation
import Lifeline
import LifelineCore
import LifelineStoat
import Logging
import Synchronization

/// The soak's timings: the specification's, scaled down so that a run of seconds holds many cycles of
/// heartbeat, retry and confirmation (each beside the value it stands for; `lifeline soak --help` says so).
enum SoakTimings {
    /// The retry unit (spec: 1 s) and ceiling (Lifeline's default: 300 s).
    static let retry = try! RetryPolicy(unit: .milliseconds(200), ceiling: .seconds(5))
    /// `Ping` every (spec: 30 s).
    static let heartbeat: Duration = .seconds(2)
    /// The `Pong` deadline (spec: 10 s).
    static let pongTimeout: Duration = .seconds(1)
    /// The first message's deadline (spec: 10 s).
    static let connectTimeout: Duration = .seconds(2)
    /// `Ready`'s deadline after `Authenticated` (Lifeline's default: 30 s).
    static let readyTimeout: Duration = .seconds(2)
    /// Three checks of an `InvalidSession`, 0.5 s then 1.5 s apart ±20 % (default: 2 s then 6 s).
    static let sessionCheck = try! SessionCheckPolicy(
        checks: 3, backoff: try! RetryPolicy(unit: .milliseconds(500), ceiling: .seconds(5)))
    /// A play's timeout (default 10 s) and first retry delay (default 1 s).
    static let replayTimeout: Duration = .seconds(2)
    static let replayRetryDelay: Duration = .milliseconds(200)
    /// The largest frame accepted (default 16 MiB): small, so that an oversized frame is cheap to send.
    static let maximumFrameSize = 64 << 10
    /// Messages kept per channel (default 100): small, so that the histories are full before the warm-up ends
    /// and memory can be flat after it; the newest are checked.
    static let historyLimit = 20

    /// The delivery deadline (default 15 s ± 20 %): a deafened socket is noticed by the session's own message.
    static let deliveryWatch = try! DeliveryWatchPolicy(deadline: .milliseconds(1_500))
    /// The idle delivery check (default every 15 s, the shortest an app may ask for): a deafened socket is noticed
    /// by a message another user posts, its check allowed this often by the soak's compressed time.
    static let deliveryCheck: Duration = .seconds(3)

    /// The longest a fault can still act after the faults stop: a connection accepted silent or with a late
    /// `Ready` fails by its connect and Ready deadlines, an unanswered `Ping` by its `Pong` deadline, a
    /// confirmation by its last check, a deafened socket by the delivery check and deadline.
    static let residual: Duration = max(
        connectTimeout + readyTimeout + pongTimeout, deliveryCheck * 2 + deliveryWatch.deadline * 1.2)
    /// The longest a clean connection attempt may take before it counts as failed.
    static let attempt: Duration = connectTimeout + readyTimeout

    /// The client configuration every soak session uses. Subscriptions are not renewed, so that every
    /// `Subscribe` the server records is a replay (or the first play).
    static var client: StoatClient.Configuration {
        var configuration = StoatClient.Configuration(
            connection: .init(
                heartbeatInterval: heartbeat, pongTimeout: pongTimeout, connectTimeout: connectTimeout,
                readyTimeout: readyTimeout, maximumFrameSize: maximumFrameSize),
            session: .init(
                retryPolicy: retry, sessionCheck: sessionCheck, replayTimeout: replayTimeout,
                replayRetryDelay: replayRetryDelay, subscriptionRenewal: nil, deliveryWatch: deliveryWatch),
            friendlyName: "lifeline soak", historyLimit: historyLimit, deliveryCheck: deliveryCheck, catchUp: catchUp)
        configuration.shortestDeliveryCheck = deliveryCheck
        return configuration
    }

    /// The catch-up (default: 5 pages of 100): pages of 25, at most 2 per chat, so that a long outage meets the
    /// budget and leaves a gap, while an open channel's whole history (20) is still re-verified in one page.
    static let catchUp = CatchUpPolicy(pagesPerChat: 2, pageSize: 25)

    /// How long after the faults stop a session that had `failures` failures may take to be CONNECTED again:
    /// a fault still acting (``residual``), then the longest retry delay the formula draws after one more
    /// failure, then one clean attempt (``attempt``).
    static func bound(failures: Int) -> Duration {
        residual + retry.nominalDelay(failures: failures + 1) * (1 + retry.jitter) + attempt
    }
}

/// One session of the soak: a `StoatClient` with its own device network, user, token, group and audited log.
final class SoakSession: Sendable {
    let index: Int
    let userID: String
    let token: String
    let serverID: String
    /// The channel the session keeps open.
    let channelID: String
    /// The group's other channels, which the session does not open.
    let otherChannelIDs: [String]
    /// Where the session sends through its outbox.
    let outboxChannelID: String
    let client: StoatClient
    let network: ManualNetworkMonitor
    let journal: SessionJournal
    let violations: ViolationLog
    /// The message ids ``StoatClient/messages`` delivered (a bit each, numbered by the group: see ``DeliveredIDs``).
    private let delivered: Mutex<DeliveredIDs>
    /// Whether the session's events socket is the gateway's (``isOnGateway(_:)``), which refuses `Subscribe`.
    let onGateway: Bool
    /// The last catch-up report's pass and when it came (from the soak's start).
    private let lastCatchUp = Mutex<(pass: Int, at: Duration)?>(nil)
    private let origin: ContinuousClock.Instant

    /// Whether session `index` runs against the server's gateway port (every tenth): the gateway's own faults —
    /// its session process restarting under an open socket — reach those sessions.
    static func isOnGateway(_ index: Int) -> Bool { index % 10 == 9 }

    init(
        index: Int, userID: String, token: String, serverID: String, channelID: String,
        otherChannelIDs: [String] = [], outboxChannelID: String,
        api: URL, onGateway: Bool = false, seed: UInt64, violations: ViolationLog, origin: ContinuousClock.Instant,
        numbering: MessageNumbering = MessageNumbering()
    ) {
        self.index = index
        self.userID = userID
        self.token = token
        self.serverID = serverID
        self.channelID = channelID
        self.otherChannelIDs = otherChannelIDs
        self.outboxChannelID = outboxChannelID
        self.violations = violations
        self.onGateway = onGateway
        self.origin = origin
        delivered = Mutex(DeliveredIDs(numbering: numbering))
        network = ManualNetworkMonitor(.online)
        let journal = SessionJournal(
            index: index,
            audit: TransitionAudit(
                retryPolicy: SoakTimings.retry, confirmsInvalidSession: true, stabilityWindow: SoakTimings.heartbeat),
            violations: violations, origin: origin)
        self.journal = journal
        var logger = Logger(label: "lifeline.soak", factory: { _ in JournalLogHandler(journal: journal) })
        logger.logLevel = .debug
        // Each session's jitter from its own seeded generator: the whole run's randomness follows the seed.
        var seeds = BenchmarkRandomNumberGenerator(seed: seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
        client = StoatClient(
            apiURL: api, configuration: SoakTimings.client, network: network,
            random: BenchmarkRandomNumberGenerator(seed: seeds.next()), logger: logger)
    }

    /// Every channel of the session's group, the open one first.
    var channelIDs: [String] { [channelID] + otherChannelIDs }

    /// Follows ``StoatClient/messages`` until the client stops: a message id received twice — live and caught up,
    /// or caught up twice — is a violation.
    func followMessages() async {
        do {
            for try await event in client.messages {
                guard case .received(let message, let origin) = event else { continue }
                let first = delivered.withLock { $0.insert(message.id) }
                if !first {
                    violations.record(
                        "delivery", session: index,
                        "message \(message.id) reached the message stream twice (the second time \(origin))")
                }
            }
        } catch {
            violations.record("delivery", session: index, "the message stream ended: \(error.message)")
        }
    }

    /// Follows ``StoatClient/catchUps`` until the client stops, keeping the last report's pass and time.
    func followCatchUps() async {
        for await report in client.catchUps {
            let at = origin.duration(to: .now)
            lastCatchUp.withLock { $0 = (report.pass, at) }
        }
    }

    /// Whether the catch-up's last pass — the one after stoatchat's lagging `last_message_id` has settled —
    /// came after `since` (the session's last CONNECTED).
    func settledCatchUp(since: Duration) -> Bool {
        lastCatchUp.withLock { last in last.map { $0.pass >= 2 && $0.at >= since } ?? false }
    }

    /// How many `Subscribe` frames a connection of this session carries: one for its server on bonfire, none
    /// on the gateway (which refuses the frame).
    var expectedSubscribes: Int { onGateway ? 0 : 1 }

    /// Whether the message stream delivered `id`.
    func delivered(_ id: String) -> Bool { delivered.withLock { $0.contains(id) } }

    /// How many message ids the stream delivered.
    var deliveredCount: Int { delivered.withLock { $0.count } }

    /// Opens the group's channel, subscribes to its server (on bonfire: the gateway hears a member's servers
    /// without it) and resumes the session (LOGIN_CACHED).
    func start() async {
        client.open(channelID)
        if !onGateway { await client.session.subscribe(server: serverID) }
        await client.resume(SessionCredentials(token: token, userID: userID))
    }
}
