public import AsyncHTTPClient
public import Foundation
public import Lifeline
public import LifelineCore
public import Logging
import Synchronization

/// A Stoat client kept alive by Lifeline: the REST API, the events socket and a ``Session``, wired
/// together from one API URL.
///
/// ```swift
/// let client = StoatClient(apiURL: URL(string: "https://api.stoat.chat")!, network: LinuxNetworkMonitor())
/// Task { await client.run() }
/// switch await client.logIn(email: email, password: password) {
/// case .connecting(let session): save(session)            // LOGIN_UNCACHED
/// case .needsMFA(let challenge): askForCode(challenge)    // then continueLogIn(challenge, with: .totp(code))
/// case .refused(let error): show(error.loginFailure)      // also shown in READY's notice
/// }
/// for await snapshot in client.session.states { render(snapshot.presentation) }
/// ```
///
/// Credentials are exchanged at the login interface, in READY (DESIGN decision 3): a successful login
/// fires LOGIN_UNCACHED with the new session; a cached session is resumed with ``resume(_:)``
/// (LOGIN_CACHED). The events URL is `GET /`'s `ws`, asked once and remembered.
public final class StoatClient: Sendable {
    /// Everything tunable about the client.
    public struct Configuration: Sendable {
        /// The events socket's timing and limits.
        public var connection: StoatConnectionFactory.Configuration
        /// The lifecycle's tunables. By default subscriptions are renewed every 10 minutes, because Stoat
        /// forgets them after 15.
        public var session: Session.Configuration
        /// The health service to poll at high failure counts (PROTOCOL.md's health endpoint), if any.
        public var healthURL: URL?
        /// The name sessions are given on the server (`friendly_name`).
        public var friendlyName: String?

        /// Creates a configuration.
        public init(
            connection: StoatConnectionFactory.Configuration = .init(),
            session: Session.Configuration = .init(subscriptionRenewal: .seconds(600)),
            healthURL: URL? = nil,
            friendlyName: String? = "Lifeline"
        ) {
            self.connection = connection
            self.session = session
            self.healthURL = healthURL
            self.friendlyName = friendlyName
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
    /// The session: observe ``Session/states``, and call its API for the rest (logout, onboarding…).
    public let session: Session
    /// The socket's data events (messages, typing, updates), and `Ready`. Keeps the newest 10 000 events
    /// for a slow reader; a client that does not read it loses nothing else.
    public let events: AsyncStream<BonfireEvent>
    /// What the sockets tolerated (unknown events, undecodable frames).
    public let statistics: StoatConnectionFactory.Statistics
    private let friendlyName: String?

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - apiURL: The API's base URL (for Stoat, `https://api.stoat.chat`).
    ///   - configuration: Timing, health, renewal.
    ///   - network: The device's network.
    ///   - clock: The clock every timer runs on.
    ///   - random: The retry jitter's random source.
    ///   - httpClient: The HTTP client for REST calls.
    ///   - logger: Where the client logs (never a token or password).
    public init(
        apiURL: URL,
        configuration: Configuration = Configuration(),
        network: any NetworkMonitor = ManualNetworkMonitor(.online),
        clock: some Clock<Duration> = ContinuousClock(),
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        httpClient: HTTPClient = .shared,
        logger: Logger = Logger(label: "lifeline.stoat", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        let api = StoatAPI(baseURL: apiURL, httpClient: httpClient, logger: logger)
        self.api = api
        friendlyName = configuration.friendlyName
        let (events, continuation) = AsyncStream.makeStream(of: BonfireEvent.self, bufferingPolicy: .bufferingNewest(10_000))
        self.events = events
        let eventsURL = Mutex<String?>(nil)
        let connections = StoatConnectionFactory(
            eventsURL: {
                if let known = eventsURL.withLock({ $0 }) { return known }
                let url = try await api.configuration().eventsURL.absoluteString
                eventsURL.withLock { $0 = url }
                return url
            },
            configuration: configuration.connection, clock: clock, logger: logger,
            onEvent: { continuation.yield($0) })
        statistics = connections.statistics
        session = Session(
            connections: connections, authenticator: StoatAuthenticator(api: api),
            health: configuration.healthURL.map { StoatHealthService(api: api, url: $0) }, network: network,
            clock: clock, random: random, configuration: configuration.session, logger: logger)
    }

    /// Runs the session until the calling task is cancelled (see ``Session/run()``).
    public func run() async {
        await session.run()
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
    @discardableResult
    public func resume(_ credentials: SessionCredentials) async -> Bool {
        await session.logIn(credentials, cached: true)
    }

    private func outcome(_ login: () async throws(StoatAPIError) -> LoginResult) async -> LoginOutcome {
        do {
            switch try await login() {
            case .success(let credentials):
                await session.logIn(credentials, cached: false)
                return .connecting(credentials)
            case .mfa(let challenge):
                return .needsMFA(challenge)
            case .disabled(let userID):
                let error = StoatAPIError.disabled(userID: userID)
                await session.reportLoginFailure(error.loginFailure, userID: userID)
                return .refused(error)
            }
        } catch {
            await session.reportLoginFailure(error.loginFailure)
            return .refused(error)
        }
    }
}
