public import AsyncHTTPClient
public import Foundation
public import Lifeline
public import LifelineCore
public import Logging
import Synchronization

/// A Stoat client kept alive by Lifeline: the REST API, the events socket, a `Session` and the account's
/// cache, wired together from one API URL.
///
/// ```swift
/// let client = StoatClient(apiURL: URL(string: "https://api.stoat.chat")!)  // the platform's network monitor
/// Task { await client.run() }
/// _ = await client.signIn(to: store, email: email, password: password)  // first screen: client.chats
/// for await snapshot in client.session.states { render(snapshot.presentation) }
/// ```
///
/// Credentials are exchanged at the login interface, in READY (the lifecycle's decision "Credentials are
/// exchanged in READY", in `LifelineCore.docc/SessionLifecycle.md`): a successful login fires
/// LOGIN_UNCACHED with the new session; a cached session is resumed (LOGIN_CACHED). With the account's store (`signIn(to:email:password:)`, in
/// LifelineStoatStore), the store decides
/// which, shows the first screen before any network, and keeps the cache between runs; without one,
/// ``logIn(email:password:)`` and ``resume(_:)`` start the session directly. The events URL is `GET /`'s
/// `ws`, asked once and remembered. <doc:BuildingAStoatApp> shows an app's whole use.
///
/// The cache (``chats``, ``history(of:)``, ``members(of:)``, ``events``) is filled from `Ready`, the
/// socket's events and REST; its histories and member lists are invalidated when the session reconnects,
/// as the specification's RECONNECTING asks. After every CONNECTED the client catches up over REST
/// (``CatchUpPolicy``): each chat with newer messages is paged forward from where the cache stopped, an
/// ``open(_:)`` channel first, its newest messages and the first screen's re-verified for edits and deletions;
/// every message found reaches ``messages`` once, marked caught up, and ``catchUps`` reports each reconnect.
public final class StoatClient: Sendable {
    /// Everything tunable about the client.
    public struct Configuration: Sendable {
        /// The events socket's timing and limits.
        public var connection: StoatConnectionFactory.Configuration
        /// The lifecycle's tunables. By default subscriptions are renewed every 10 minutes, because Stoat
        /// forgets them after 15; a connection counts as stable after one heartbeat interval (the session's
        /// `stabilityWindow`, unless it is set).
        public var session: Session.Configuration
        /// The health service to poll at high failure counts (``StoatHealthService``'s endpoint), if any.
        public var healthURL: URL?
        /// The name sessions are given on the server (`friendly_name`).
        public var friendlyName: String?
        /// How many messages the cache keeps per channel (the newest). Default 100, the most one
        /// request of Stoat's message history returns.
        public var historyLimit: Int
        /// How many events each observer of ``StoatClient/events`` may fall behind before its iteration
        /// ends with ``StoatClientErrorCode/observerTooSlow``. Default 10 000.
        public var eventBufferLimit: Int
        /// How long to wait before asking the server again about a restriction (``StoatClient/restrictions``) when
        /// asking failed or found it still in force: 1 s, doubling up to 60 s by default.
        public var restrictionRecheck: ExpiryRecheckPolicy
        /// How often the socket's deliveries are checked while it is quiet, so that a ghost socket (stoatchat#649:
        /// `Pong`s and no events) is noticed while the user sends nothing: every 15 s by default (at most 4
        /// requests a minute: a shorter interval is taken as 15 s), `nil` for never.
        ///
        /// While CONNECTED, once the connection's catch-up completed, with nothing being sent (a send's own echo
        /// watches the socket) and no event for a whole interval, one channel's newest messages are read
        /// (`GET /channels/{id}/messages?sort=Latest&limit=10`) — each ``StoatClient/open(_:)`` channel and the two
        /// most recently active chats in turn — never `last_message_id`, which stoatchat writes seconds late. A
        /// message there that the cache does not hold and the socket did not deliver is owed on the session's
        /// delivery deadline (`Session.Configuration.deliveryWatch`, 15 s ± 20 %): a socket that does not bring it
        /// is left as deaf (TEMPORARY_FAILURE `deliveryStalled`) and reconnected, and the catch-up brings what it
        /// swallowed. A webhook's message, which the new events server delivers to no socket, is never owed: it
        /// joins the history.
        public var deliveryCheck: Duration?
        /// The shortest ``deliveryCheck`` interval taken: 15 s (4 requests a minute). `lifeline soak` lowers it to
        /// compress time.
        package var shortestDeliveryCheck: Duration = .seconds(15)
        /// How the client catches up after each CONNECTED (``CatchUpPolicy/standard``: 5 pages of 100 per chat, 4
        /// requests in flight).
        public var catchUp: CatchUpPolicy
        /// How many users fetched to name an author (``StoatClient/fetchUser(_:)``) are kept beside the cache,
        /// the least recently named forgotten first. Default 1 000.
        public var fetchedUserLimit: Int
        /// How long one REST call may take in all, waits for rate limits included (``StoatAPI/requestTimeout``):
        /// 30 seconds by default. Raise it for a slow network or a slow machine; a call past it fails with
        /// ``StoatAPIErrorCode/timeout``.
        public var requestTimeout: Duration = .seconds(30)

        /// Creates a configuration.
        public init(
            connection: StoatConnectionFactory.Configuration = .init(),
            session: Session.Configuration = .init(subscriptionRenewal: .seconds(600)),
            healthURL: URL? = nil,
            friendlyName: String? = "Lifeline",
            historyLimit: Int = 100,
            eventBufferLimit: Int = 10_000,
            restrictionRecheck: ExpiryRecheckPolicy = .standard,
            deliveryCheck: Duration? = .seconds(15),
            catchUp: CatchUpPolicy = .standard,
            fetchedUserLimit: Int = 1_000
        ) {
            self.connection = connection
            self.session = session
            self.healthURL = healthURL
            self.friendlyName = friendlyName
            self.historyLimit = historyLimit
            self.eventBufferLimit = eventBufferLimit
            self.restrictionRecheck = restrictionRecheck
            self.deliveryCheck = deliveryCheck
            self.catchUp = catchUp
            self.fetchedUserLimit = fetchedUserLimit
        }
    }

    /// What a login at the login interface led to.
    public enum LoginOutcome: Sendable {
        /// The credentials were accepted: the session is logging in with this new session.
        case connecting(SessionCredentials)
        /// The account has MFA: answer the challenge with ``continueLogIn(_:with:)``.
        case needsMFA(MFAChallenge)
        /// The server refused (wrong password, locked out, blocked, disabled…) or could not be reached;
        /// READY shows the failure as its notice.
        case refused(StoatAPIError)
    }

    /// The REST API.
    public let api: StoatAPI
    /// The session: observe `Session.states`, and call its API for the rest (logout, onboarding…).
    public let session: Session
    /// What the sockets tolerated (unknown events, undecodable frames).
    public let statistics: StoatConnectionFactory.Statistics
    let cache: CacheEngine
    package let friendlyName: String?
    let logger: Logger
    /// The channels the interface shows, refetched after every reconnect.
    let openChannels = ChannelSet()
    /// Sleeps on the client's clock: the waits between refetches of an open channel.
    let sleep: @Sendable (Duration) async throws -> Void
    /// History fetches in flight, one per channel.
    let historyFetches = SharedFetches<Result<Void, StoatClientError>>()
    /// Member list fetches in flight, one per server.
    let memberFetches = SharedFetches<Result<Void, StoatClientError>>()
    /// The session the client logged in with, for its REST calls; `nil` in READY.
    let credentials: ClientCaches.Credentials
    /// The account's store, once a sign-in opened it; closed when another replaces it or ``run()`` ends.
    let signedInAccount = Mutex<(any AccountStorage)?>(nil)
    /// The restrictions the server set for the user (``restrictions``).
    let restrictionEngine: RestrictionEngine
    /// The messages the user sent that the server has not confirmed (``outbox``).
    let outboxEngine: OutboxEngine
    /// The acknowledgements on their way to the server (``ack(channel:message:)``).
    let ackEngine: AckEngine
    /// The catch-up after each CONNECTED (``catchUps``).
    let catchUpEngine: CatchUpEngine
    /// The session's moments the client's internal work follows (``ClientLifecycle``), told by the session's
    /// hooks, in order and none dropped.
    let lifecycle = Broadcaster<ClientLifecycle>()
    /// Whether the client catches up after each CONNECTED.
    let catchUpPolicy: CatchUpPolicy
    /// Closed while a sign-in reads the stored chats into the cache: the catch-up waits for them.
    let storedChatsLoaded = LoadGate()
    /// The composer's drafts (``drafts``).
    let draftEngine: DraftEngine
    /// The device's Web Push subscription (``subscribePush(_:)``).
    let pushEngine: PushEngine
    /// The users fetched to name authors the cache does not know (``fetchUser(_:)``).
    let userDirectory: Mutex<UserDirectory>
    /// User fetches in flight, one per id.
    let userFetches = SharedFetches<Result<User, StoatClientError>>()

    /// The session the client uses for REST calls, if it has one.
    package var currentCredentials: SessionCredentials? { credentials.value }

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - apiURL: The API's base URL (for Stoat, `https://api.stoat.chat`).
    ///   - configuration: Timing, health, renewal.
    ///   - network: The device's network; `nil` (the default) is the platform's own
    ///     (`SystemNetworkMonitor.make(logger:)`: rtnetlink on Linux, `NWPathMonitor` on Apple's systems, and
    ///     online, logged, where neither can be opened). Pass a `ManualNetworkMonitor` for a network you drive.
    ///   - clock: The clock every timer runs on: the session's, the socket's, the deadlines' and the REST
    ///     calls' rate-limit waits.
    ///   - random: The retry jitter's random source.
    ///   - httpClient: The HTTP client for REST calls; `nil` (the default) is `StoatAPI.sharedHTTPClient`. A
    ///     client you pass stays yours to shut down; make it with `StoatAPI.httpClientConfiguration()`.
    ///   - logger: Where the client logs (never a token or password).
    public init(
        apiURL: URL,
        configuration: Configuration = Configuration(),
        network: (any NetworkMonitor)? = nil,
        clock: some Clock<Duration> = ContinuousClock(),
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        httpClient: HTTPClient? = nil,
        logger: Logger = Logger(label: "lifeline.stoat", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        let api = StoatAPI(
            baseURL: apiURL, httpClient: httpClient, logger: logger, requestTimeout: configuration.requestTimeout,
            clock: clock, tlsConfiguration: configuration.tls)
        self.api = api
        // Through `SessionClock`: a cancelled wait (a slowmode's, up to a day) is kept by the runtime until its
        // deadline, and its steps bound that (see `SessionClock`).
        let steppedClock = SessionClock(clock)
        sleep = { try await steppedClock.sleep(for: $0) }
        self.logger = logger
        friendlyName = configuration.friendlyName
        userDirectory = Mutex(UserDirectory(capacity: configuration.fetchedUserLimit))
        let cache = CacheEngine(
            historyLimit: configuration.historyLimit, eventBufferLimit: configuration.eventBufferLimit,
            readyFields: ReadyFields(asked: configuration.connection.readyFields),
            tracksCatchUp: configuration.catchUp.isEnabled, logger: logger)
        self.cache = cache
        let credentials = ClientCaches.Credentials()
        self.credentials = credentials
        restrictionEngine = RestrictionEngine(
            api: api, cache: cache, credentials: credentials, clock: clock,
            recheck: configuration.restrictionRecheck, logger: logger)
        let outbox = OutboxEngine(
            api: api, cache: cache, credentials: credentials, restrictions: restrictionEngine, clock: clock,
            deliveryCheck: configuration.deliveryCheck.map { max($0, configuration.shortestDeliveryCheck) },
            logger: logger)
        outboxEngine = outbox
        let acks = AckEngine(api: api, cache: cache, credentials: credentials, clock: clock, logger: logger)
        ackEngine = acks
        let drafts = DraftEngine(signals: cache.signals, logger: logger)
        draftEngine = drafts
        pushEngine = PushEngine(api: api, credentials: credentials, signals: cache.signals, logger: logger)
        catchUpPolicy = configuration.catchUp
        let openChannels = openChannels
        let loader = StoredHistoryLoader(cache: cache, logger: logger)
        catchUpEngine = CatchUpEngine(
            api: api, cache: cache, credentials: credentials, policy: configuration.catchUp,
            openChannels: { openChannels.withLock { $0 } }, loadStoredHistory: { await loader.load($0) },
            storedChatsLoaded: storedChatsLoaded, sleep: { try await steppedClock.sleep(for: $0) }, logger: logger)
        let eventsURL = Mutex<String?>(nil)
        let knownEventsURL: @Sendable () async throws -> String = {
            if let known = eventsURL.withLock({ $0 }) { return known }
            let url = try await api.configuration().eventsURL.absoluteString
            eventsURL.withLock { $0 = url }
            return url
        }
        let onEvent: @Sendable (BonfireEvent) async -> Void = { event in
            cache.receive(event)
            // The outbox matches its echoes here, on the socket's path: the seam the delivery watch needs.
            outbox.socketDelivered(event)
        }
        let connections = StoatConnectionFactory(
            eventsURL: knownEventsURL, server: api.server, configuration: configuration.connection, clock: clock,
            logger: logger, onEvent: onEvent)
        statistics = connections.statistics
        var sessionConfiguration = configuration.session
        // A connection that ends before its first heartbeat has not shown it lasts: it keeps the failure count.
        if sessionConfiguration.stabilityWindow == nil {
            sessionConfiguration.stabilityWindow = configuration.connection.heartbeatInterval
        }
        session = Session(
            connections: connections, authenticator: StoatAuthenticator(api: api),
            health: configuration.healthURL.map { StoatHealthService(api: api, url: $0) },
            hooks: ClientCaches(
                cache: cache, credentials: credentials, outbox: outbox, acks: acks, drafts: drafts,
                restrictions: restrictionEngine, lifecycle: lifecycle),
            network: network ?? SystemNetworkMonitor.make(logger: logger),
            clock: clock, random: random, configuration: sessionConfiguration, logger: logger)
    }

    /// Runs the client until the calling task is cancelled: the session (see `Session.run()`), the
    /// writer that stores the cache's changes, the follower that refetches the open channels'
    /// histories after every reconnect, the watch of the server's restrictions (``restrictions``) and the
    /// outbox (``send(_:to:)-(OutgoingMessage,_)``). When it
    /// returns, every observation has ended and every change
    /// the cache held has been written to the account's store, if one is attached.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.session.run() }
            group.addTask { await self.cache.runWriter() }
            // Subscribed before anything runs, so no moment falls between.
            let followed = lifecycle.subscribe()
            let caughtUp = lifecycle.subscribe()
            let pushed = lifecycle.subscribe()
            let posting = lifecycle.subscribe()
            group.addTask { await self.followSession(followed) }
            group.addTask { await self.restrictionEngine.run() }
            let catchUps = catchUpPolicy.isEnabled ? catchUpEngine.subscribe() : nil
            group.addTask {
                await self.outboxEngine.run(
                    session: self.session, lifecycle: posting, checkCandidates: { self.deliveryCheckCandidates() },
                    catchUps: catchUps)
            }
            group.addTask { await self.catchUpEngine.run(lifecycle: caughtUp) }
            group.addTask { await self.ackEngine.run() }
            group.addTask { await self.draftEngine.run() }
            group.addTask { await self.pushEngine.run(lifecycle: pushed) }
        }
        // The writes left over are made outside the cancelled task: GRDB refuses to start work in a
        // cancelled one, and these changes must not be lost. Decision: each is a task awaited at once, so
        // nothing outlives `run()`; Swift 6.3 has no cancellation shield (SE-0504's
        // `withTaskCancellationShield`), which is what these two would be written with.
        let cache = cache
        await Task { await cache.flush() }.value
        let drafts = draftEngine
        await Task { await drafts.flush() }.value
        // The label written at CONNECTED may have been cancelled with the run: the login screen lists the
        // account by it (and `lifeline connect --account LABEL` picks it), so write it before the store closes.
        await Task { await self.labelStoredAccount() }.value
        cache.finish()
        let account = signedInAccount.withLock { account in
            defer { account = nil }
            return account
        }
        try? account?.close()
    }

    /// Logs in with an email and a password at the login interface.
    public func logIn(email: String, password: String) async -> LoginOutcome {
        await outcome { () async throws(StoatAPIError) in
            try await api.login(email: email, password: password, friendlyName: friendlyName)
        }
    }

    /// Answers an MFA challenge with a TOTP code, a recovery code or the password.
    public func continueLogIn(_ challenge: MFAChallenge, with response: MFAResponse) async -> LoginOutcome {
        await outcome { () async throws(StoatAPIError) in
            try await api.continueLogin(ticket: challenge.ticket, response: response, friendlyName: friendlyName)
        }
    }

    /// Resumes a cached session: LOGIN_CACHED, straight to CONNECTING.
    ///
    /// A session another server issued (its `SessionCredentials/issuer` is not ``StoatAPI/server``) is
    /// refused: its token is sent nowhere, and READY shows the refusal
    /// (``StoatAPIErrorCode/foreignCredentials``) as its notice.
    ///
    /// - Returns: Whether the session started.
    @discardableResult
    public func resume(_ credentials: SessionCredentials) async -> Bool {
        if let issuer = credentials.issuer, issuer != api.server {
            let error = StoatAPIError(
                code: .foreignCredentials,
                message: "The session was issued by \(issuer), not by \(api.server.map(\.description) ?? "this API")")
            logger.warning("a session of another server was not resumed", metadata: ["lifeline.issuer": "\(issuer)"])
            await session.reportLoginFailure(error.loginFailure)
            return false
        }
        return await logIn(credentials, cached: true)
    }

    /// Starts the session with `credentials`, which the client's REST calls use from before the session can
    /// reach CONNECTED (the catch-up starts there); a login the session refuses leaves the previous ones.
    package func logIn(_ credentials: SessionCredentials, cached: Bool) async -> Bool {
        let previous = self.credentials.exchange(credentials)
        guard await session.logIn(credentials, cached: cached) else {
            self.credentials.restore(previous, ifStill: credentials)
            return false
        }
        signedIn(credentials)
        return true
    }

    /// Remembers the session for REST calls, and tells the cache whose it is: the viewer is the session's
    /// user, never a position in `Ready`'s `users` (bonfire lists the viewer last, Stoat's new events server
    /// first). A session without a user id leaves the cache to find the viewer in `Ready`.
    func signedIn(_ credentials: SessionCredentials) {
        self.credentials.value = credentials
        if let userID = credentials.userID {
            cache.update { cache in
                cache.signedIn(as: userID)
                return AccountCache.Changes()
            }
        }
    }

    private func outcome(_ login: () async throws(StoatAPIError) -> LoginResult) async -> LoginOutcome {
        do {
            switch try await login() {
            case .success(let credentials):
                _ = await logIn(credentials, cached: false)
                return .connecting(credentials)
            case .mfa(let challenge):
                return .needsMFA(challenge)
            case .disabled(let userID):
                // The flags say why before the refusal shows, so the login screen names a suspension (or a ban)
                // as such. When they cannot be read, the session looks them up itself and tailors the notice.
                let error = await api.disabledLogin(userID: userID)
                await session.reportLoginFailure(error.loginFailure, userID: error.standing == nil ? userID : nil)
                return .refused(error)
            }
        } catch {
            await session.reportLoginFailure(error.loginFailure)
            return .refused(error)
        }
    }
}

/// A moment of the session the client's internal work follows (catch-up, the follower of the session).
enum ClientLifecycle: Sendable, Hashable {
    /// CONNECTED, on the session's connection `generation`.
    case connected(generation: UInt64)
    /// CONNECTED left.
    case leftConnected
    /// A state entered: every transition's target, in order.
    case entered(SessionState)
    /// The session ended for good (a logout, or ERROR on a permanent failure).
    case ended
}

/// The session's hooks in a client: what the session invalidates and discards — the account cache, and on
/// DISPOSE the session the client used for REST calls (DISPOSE ends before READY, so a later login's session
/// is never cleared by it), the outbox, the acknowledgements and the deadlines in memory — and the moments the
/// client's work follows (``ClientLifecycle``).
struct ClientCaches: SessionHooks {
    /// The session the client's REST calls use.
    final class Credentials: Sendable {
        private let stored = Mutex<SessionCredentials?>(nil)

        var value: SessionCredentials? {
            get { stored.withLock { $0 } }
            set { stored.withLock { $0 = newValue } }
        }

        /// Sets `new`, answering what was there.
        func exchange(_ new: SessionCredentials) -> SessionCredentials? {
            stored.withLock { stored in
                defer { stored = new }
                return stored
            }
        }

        /// Puts `previous` back, unless something replaced `current` since.
        func restore(_ previous: SessionCredentials?, ifStill current: SessionCredentials) {
            stored.withLock { stored in
                if stored == current { stored = previous }
            }
        }
    }

    let cache: CacheEngine
    let credentials: Credentials
    /// The outbox, forgotten in memory on DISPOSE (its store keeps its entries for the next sign-in).
    var outbox: OutboxEngine?
    /// The acknowledgements on their way, dropped on DISPOSE.
    var acks: AckEngine?
    /// The drafts, written out and forgotten in memory on DISPOSE (the store keeps them too).
    var drafts: DraftEngine?
    /// The deadlines watched, no one's after DISPOSE.
    var restrictions: RestrictionEngine?
    /// Where the moments go.
    var lifecycle: Broadcaster<ClientLifecycle>?

    func invalidateCaches() async {
        await cache.invalidateCaches()
    }

    func discardCaches() async {
        credentials.value = nil
        await cache.discardCaches()
        outbox?.disposed()
        acks?.disposed()
        await drafts?.disposed()
        restrictions?.disposed()
    }

    func connected(generation: UInt64) { lifecycle?.publish(.connected(generation: generation)) }

    func leftConnected() { lifecycle?.publish(.leftConnected) }

    func entered(_ state: SessionState) { lifecycle?.publish(.entered(state)) }

    func sessionEnded() { lifecycle?.publish(.ended) }
}

/// A set of channel ids behind a lock, shared by reference (the client's open channels).
final class ChannelSet: Sendable {
    private let set = Mutex<Set<String>>([])

    func withLock<T>(_ body: (inout Set<String>) -> T) -> T {
        set.withLock { body(&$0) }
    }
}

/// Fills an empty history from the account's store, if one is attached (stale until refetched, unless the
/// catch-up found it whole).
struct StoredHistoryLoader: Sendable {
    let cache: CacheEngine
    let logger: Logger

    func load(_ channel: String) async {
        guard cache.read({ $0.history(channel).messages.isEmpty }), let store = cache.store else { return }
        do {
            let messages = try await store.messages(in: channel, limit: cache.read { $0.historyLimit })
            cache.update { $0.loadStored(messages: messages, channel: channel) }
        } catch {
            logger.info("a stored history could not be read", metadata: ["lifeline.error": "\(error)"])
        }
    }
}
