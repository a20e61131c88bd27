public import AsyncHTTPClient
public import Lifeline
public import LifelineCore
public import Logging
import NIOCore
public import NIOSSL

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A client for Stoat's REST API: discovery, login with MFA, logout, onboarding, the current user, an
/// account's flags, a health endpoint, the pending operations, and the account's data (channels, servers,
/// users, messages, members, sessions, settings, unreads).
///
/// ```swift
/// let api = StoatAPI(baseURL: URL(string: "https://api.stoat.chat")!, logger: logger)
/// switch try await api.login(email: email, password: password, friendlyName: "Lifeline") {
/// case .success(let credentials): session.loginUncached(credentials)
/// case .mfa(let challenge): …   // ask for a code, then api.continueLogin(ticket:response:)
/// case .disabled: …
/// }
/// ```
///
/// Every method throws ``StoatAPIError``: the server's refusal with its kind, ``StoatAPIErrorCode/network``
/// or ``StoatAPIErrorCode/timeout`` when the server could not be reached, and
/// ``StoatAPIErrorCode/malformedResponse`` for an answer it cannot read (see <doc:LifelineStoat#Errors>).
/// Authenticated calls send the session's token in `X-Session-Token`, or a bot's in `X-Bot-Token`
/// (``StoatAuthorization``).
///
/// Every call honours stoatchat's rate limits, waiting on the injected clock within ``requestTimeout``
/// (<doc:LifelineStoat#Rate-limits>), and follows redirects only within the API's origin, so a token or a
/// password never leaves for another (<doc:LifelineStoat#Redirects>).
///
/// The logger receives the method, the path and the status of each request at `debug`, never a header,
/// a body, a token or a password.
public struct StoatAPI: Sendable {
    /// The API base, for example `https://api.stoat.chat`; paths are appended to it.
    public let baseURL: URL
    /// The server ``baseURL`` names, normalised; `nil` when it is not an `http` or `https` URL with a host,
    /// and then every call fails with ``StoatAPIErrorCode/invalidRequest`` before anything is sent.
    ///
    /// The sessions a login returns carry it as their `SessionCredentials/issuer`, and a session issued by
    /// another server is refused (``StoatAPIErrorCode/foreignCredentials``) before its token is sent.
    public let server: ServerIdentity?
    /// How long a call may take, from sending it to receiving the whole answer, rate-limit waits included.
    public let requestTimeout: Duration
    /// The largest response body accepted; a larger one is ``StoatAPIErrorCode/malformedResponse``.
    public let maximumResponseSize: Int
    /// The TLS configuration of every request (trust roots for a self-hosted instance's own authority); `nil`
    /// uses the HTTP client's. A certificate it refuses fails the call with
    /// ``StoatAPIErrorCode/certificateUntrusted``, ``StoatAPIErrorCode/certificateNameMismatch`` or
    /// ``StoatAPIErrorCode/certificateExpired``.
    public let tlsConfiguration: TLSConfiguration?

    let httpClient: HTTPClient
    let logger: Logger
    /// The injected clock, as offsets since this API value was made: rate-limit waits and round trips.
    let timer: SessionClock
    /// The rate-limit buckets, shared by every copy of this value.
    let rateLimiter = StoatRateLimiter()

    /// Lifeline's own HTTP client, made with ``httpClientConfiguration()``: it follows no redirect itself.
    ///
    /// It lives as long as the process, like `HTTPClient.shared`, and is never shut down; ``StoatAPI``
    /// uses it when it is given no client.
    public static let sharedHTTPClient = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: httpClientConfiguration())

    /// The configuration of an HTTP client fit for ``StoatAPI``: redirects are not followed by the client, so
    /// that ``StoatAPI`` decides (same origin only; see <doc:LifelineStoat#Redirects>), a connection that
    /// is refused or times out (10 s) fails the call instead of being retried until its deadline, and an idle
    /// connection is closed after 4 s, before the server's keep-alive (Rocket's, 5 s) closes it under a request.
    ///
    /// Make your own client from it when you need one (another event loop group, a proxy), and shut it down
    /// when you are done with it.
    public static func httpClientConfiguration() -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        // A server that refuses or cannot be reached fails the call at once rather than being retried until
        // the call's deadline: the lifecycle and the cache decide when to try again, and an offline client
        // shows its store without waiting 30 seconds for each request.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(10)
        // stoatchat's API (Rocket) closes a connection idle for 5 s: a client that keeps it longer may send a
        // request on a connection the server is closing. AsyncHTTPClient keeps one for a minute by default, and
        // a server stopping gracefully (the reference server) waited that long for one opened and never used.
        configuration.connectionPool.idleTimeout = .seconds(4)
        return configuration
    }

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - baseURL: The API base, for example `https://api.stoat.chat`.
    ///   - httpClient: The HTTP client to send requests with. `nil` (the default) is ``sharedHTTPClient``,
    ///     which needs no shutdown. A client you pass stays yours: shut it down when you are done, and make
    ///     it with ``httpClientConfiguration()`` — a client that follows redirects itself would send the
    ///     token or the password to wherever the server redirects (its answer is then refused with
    ///     ``StoatAPIErrorCode/redirectRefused``, but too late).
    ///   - logger: Where to log requests (method, path, status); no-op by default.
    ///   - requestTimeout: How long a call may take in all, waits for rate limits included; 30 seconds by
    ///     default.
    ///   - maximumResponseSize: The largest response body accepted; 4 MiB by default.
    ///   - clock: The clock rate-limit waits sleep on, ``requestTimeout`` runs on and ``operations(_:)`` measures
    ///     its round trip on; continuous by default. Another clock (a test's) does not measure the network's
    ///     wall time, so an exchange then also has a wall-clock bound of its own (300 s).
    ///   - tlsConfiguration: The TLS configuration of every request, for instance your own authority among the
    ///     trust roots; `nil` (the default) uses the HTTP client's, which verifies certificates against the
    ///     system's roots.
    public init(
        baseURL: URL,
        httpClient: HTTPClient? = nil,
        logger: Logger = Logger(label: "LifelineStoat.REST", factory: { _ in SwiftLogNoOpLogHandler() }),
        requestTimeout: Duration = .seconds(30),
        maximumResponseSize: Int = 4 << 20,
        clock: any Clock<Duration> = ContinuousClock(),
        tlsConfiguration: TLSConfiguration? = nil
    ) {
        self.baseURL = baseURL
        self.server = ServerIdentity(baseURL.absoluteString)
        self.httpClient = httpClient ?? Self.sharedHTTPClient
        self.logger = logger
        self.requestTimeout = requestTimeout
        self.maximumResponseSize = maximumResponseSize
        self.timer = SessionClock(clock)
        self.tlsConfiguration = tlsConfiguration
    }

    /// A copy of `api` with a rate limiter of its own (all else shared: the HTTP client, the clock).
    private init(copying api: StoatAPI) {
        baseURL = api.baseURL
        server = api.server
        httpClient = api.httpClient
        logger = api.logger
        requestTimeout = api.requestTimeout
        maximumResponseSize = api.maximumResponseSize
        timer = api.timer
        tlsConfiguration = api.tlsConfiguration
    }

    /// This API with a rate limiter of its own, for a service that must share no state with the API's calls
    /// (``StoatHealthService``).
    func withOwnRateLimiter() -> StoatAPI {
        StoatAPI(copying: self)
    }

    // MARK: - Discovery

    /// The server's configuration (`GET /`): the events socket's URL, the features, the build.
    ///
    /// The events URL is not trusted as given: it is checked against ``baseURL`` with
    /// ``RootConfiguration/eventsEndpoint(forAPI:)`` and comes back with its scheme in lower case
    /// (`ws` or `wss`), so a socket opened on it uses TLS exactly when the URL says so.
    ///
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/insecureEventsURL`` when an HTTPS API names a
    ///   plaintext socket or a scheme that is not a WebSocket's.
    public func configuration() async throws(StoatAPIError) -> RootConfiguration {
        let response = try await send(.GET, path: "/")
        var configuration = try response.decode(RootConfiguration.self, expecting: 200)
        configuration.eventsURL = try configuration.eventsEndpoint(forAPI: baseURL).url
        return configuration
    }

    // MARK: - Login

    /// Logs in with an email and a password (`POST /auth/session/login`).
    ///
    /// - Parameters:
    ///   - email: The account's email.
    ///   - password: The account's password. Never logged, never part of an error.
    ///   - friendlyName: The name the session is listed under in the user's settings.
    /// - Returns: The session (its `SessionCredentials/issuer` is ``server``), an MFA challenge to continue
    ///   with ``continueLogin(ticket:response:friendlyName:)``, or a disabled account.
    /// - Throws: ``StoatAPIError`` with ``StoatAPIErrorCode/invalidCredentials``,
    ///   ``StoatAPIErrorCode/lockedOut``, ``StoatAPIErrorCode/unverifiedAccount``,
    ///   ``StoatAPIErrorCode/blockedByShield`` (see `StoatAPIError.supportURL`),
    ///   ``StoatAPIErrorCode/compromisedPassword``, ``StoatAPIErrorCode/captchaFailed``, or a failure of the
    ///   network.
    public func login(
        email: String, password: String, friendlyName: String? = nil
    ) async throws(StoatAPIError)
        -> LoginResult
    {
        let body = Wire.LoginRequest(email: email, password: password, friendlyName: friendlyName)
        let response = try await send(.POST, path: "/auth/session/login", body: body)
        return try response.decode(Wire.LoginResponse.self, expecting: 200).loginResult(issuer: server)
    }

    /// Continues a login that answered ``LoginResult/mfa(_:)`` with the second factor.
    ///
    /// - Parameters:
    ///   - ticket: The challenge's ``MFAChallenge/ticket``.
    ///   - response: The code, recovery code or password.
    ///   - friendlyName: The name the session is listed under in the user's settings.
    /// - Returns: The session (or, in principle, another challenge or a disabled account).
    /// - Throws: ``StoatAPIError`` with ``StoatAPIErrorCode/invalidToken`` for a wrong code or an expired
    ///   ticket, or another failure as ``login(email:password:friendlyName:)`` describes.
    public func continueLogin(
        ticket: String, response: MFAResponse, friendlyName: String? = nil
    )
        async throws(StoatAPIError) -> LoginResult
    {
        let body = Wire.LoginRequest(ticket: ticket, response: response, friendlyName: friendlyName)
        let answer = try await send(.POST, path: "/auth/session/login", body: body)
        return try answer.decode(Wire.LoginResponse.self, expecting: 200).loginResult(issuer: server)
    }

    /// Ends the session on the server (`POST /auth/session/logout`); its token stops working and its
    /// sockets receive `Logout`.
    ///
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/invalidSession`` when the session had already ended.
    public func logout(_ credentials: SessionCredentials) async throws(StoatAPIError) {
        let response = try await send(.POST, path: "/auth/session/logout", auth: credentials.authorization)
        try response.expect(200, 204)
    }

    // MARK: - Onboarding

    /// Whether the session's account still has to pick a username (`GET /onboard/hello`).
    ///
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/invalidSession`` for a session that ended.
    public func onboardingHello(_ credentials: SessionCredentials) async throws(StoatAPIError) -> Bool {
        let response = try await send(.GET, path: "/onboard/hello", auth: credentials.authorization)
        return try response.decode(Wire.Onboarding.self, expecting: 200).onboarding
    }

    /// Picks the account's username (`POST /onboard/complete`).
    ///
    /// - Parameters:
    ///   - credentials: The session.
    ///   - username: 2–32 letters, digits, `_`, `.` or `-`.
    /// - Returns: The new user.
    /// - Throws: ``StoatAPIError`` with ``StoatAPIErrorCode/usernameTaken``,
    ///   ``StoatAPIErrorCode/failedValidation``, ``StoatAPIErrorCode/alreadyOnboarded``, or another failure.
    public func completeOnboarding(
        _ credentials: SessionCredentials, username: String
    ) async throws(StoatAPIError)
        -> User
    {
        let response = try await send(
            .POST, path: "/onboard/complete", auth: credentials.authorization, body: Wire.Username(username: username))
        return try response.decode(User.self, expecting: 200)
    }

    // MARK: - Users

    /// The session's user (`GET /users/@me`).
    ///
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/invalidSession`` for a session that ended (or whose
    ///   user has not onboarded).
    public func currentUser(_ credentials: some StoatAuthorizing) async throws(StoatAPIError) -> User {
        let response = try await send(.GET, path: "/users/@me", auth: credentials.authorization)
        return try response.decode(User.self, expecting: 200)
    }

    /// A user's account flags (`GET /users/{id}/flags`): 1 suspended, 2 deleted, 4 banned, 8 removed as spam.
    ///
    /// Needs no session, so it works after the session was revoked.
    ///
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/notFound`` for an unknown user.
    public func flags(userID: String) async throws(StoatAPIError) -> Int {
        let response = try await send(.GET, path: "/users/\(Self.percentEncoded(userID))/flags")
        return try response.decode(Wire.Flags.self, expecting: 200).flags
    }

    /// The refusal of a login answered `Disabled` (``LoginResult/disabled(userID:)``), named by the account's
    /// flags: only flags 0 means the owner disabled the account; a suspended, banned, deleted or spam account
    /// is told so (``StoatAPIErrorDetails/standing``). A failed lookup leaves the standing unknown (`nil`).
    ///
    /// - Parameter userID: The user id the login answered.
    /// - Returns: ``StoatAPIErrorCode/accountDisabled``, kind `Disabled`, with the standing.
    public func disabledLogin(userID: String) async -> StoatAPIError {
        let standing: AccountStanding?
        do {
            let found = StoatAuthenticator.standing(forFlags: try await flags(userID: userID))
            standing = found == .loggedOut ? .disabled : found
        } catch {
            standing = nil
        }
        return StoatAPIError.disabled(userID: userID, standing: standing)
    }

    // MARK: - Health

    /// The status of a health endpoint (Revolt's `GET <health base>/api/health`): the outage alert and how
    /// often to poll.
    ///
    /// - Parameter url: The endpoint's full URL, for example `https://health.stoat.chat/api/health`.
    /// - Throws: ``StoatAPIError``.
    public func health(url: URL) async throws(StoatAPIError) -> HealthStatus {
        let response = try await send(.GET, url: url.absoluteString, path: url.path.isEmpty ? "/" : url.path)
        return try response.decode(Wire.Health.self, expecting: 200).status
    }

    // MARK: - Operations

    /// The session's pending operations (`GET /operations`), with the server's clock and the round trip.
    ///
    /// Lifeline's own extension, served by `lifeline serve`'s reference server: stoatchat has none, and
    /// `api.stoat.chat` answers its framework's `404` without a kind (``StoatAPIErrorCode/unexpectedStatus``,
    /// status 404).
    ///
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/malformedResponse`` when an `expires_at` is not an
    ///   ISO 8601 date.
    public func operations(_ credentials: SessionCredentials) async throws(StoatAPIError) -> OperationsPage {
        let response = try await send(.GET, path: "/operations", auth: credentials.authorization)
        let roundTrip = response.roundTrip
        let entries = try response.decode([Wire.Operation].self, expecting: 200)
        var operations: [OperationsPage.Operation] = []
        operations.reserveCapacity(entries.count)
        for entry in entries {
            guard let expiresAt = StoatDates.iso8601(entry.expiresAt) else {
                throw StoatAPIError(
                    code: .malformedResponse, message: "GET /operations: an expires_at is not an ISO 8601 date",
                    status: response.status)
            }
            operations.append(.init(id: entry.id, kind: entry.kind, expiresAt: expiresAt))
        }
        let serverDate = response.headers.first(name: "date").flatMap(StoatDates.httpDate)
        return OperationsPage(operations: operations, serverDate: serverDate, roundTrip: roundTrip)
    }
}
