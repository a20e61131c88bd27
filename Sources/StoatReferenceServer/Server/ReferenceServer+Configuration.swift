public import Logging

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension ReferenceServer {
    /// How to run a ``ReferenceServer``.
    public struct Configuration: Sendable {
        /// The address to bind; loopback by default.
        public var host: String
        /// The port to bind; 0 (the default) picks a free one, see ``ReferenceServer/port``.
        public var port: Int
        /// A SQLite file to keep the data in across restarts; nil keeps everything in memory.
        public var dataFile: String?
        /// The largest client frame or message accepted, in bytes; a larger one closes that connection with
        /// close code 1009 (message too big).
        public var maxInboundFrameSize: Int
        /// The size of the fragments a large outbound message (a big Ready) is split into.
        public var outboundFragmentSize: Int
        /// How long a closing socket waits for the client's close frame (or, after a drop, its end) before the
        /// server closes the TCP connection.
        ///
        /// Generous (10 s) because closing earlier than a slow client reads turns its late frames into a reset,
        /// and a reset makes the client's kernel discard the close frame it has not read yet: at 1 s a client on
        /// a loaded machine saw a refused `Subscribe` as a dropped socket.
        public var closeTimeout: Duration
        /// The wall clock the server's clock is based on (before ``ReferenceServer/setClockSkew(_:)``). Every
        /// rule that tells time reads the server's clock: lockouts, MFA tickets, member timeouts, slowmodes,
        /// subscription expiry, rate-limit windows, the session-lookup outage, operations and the `Date` header.
        /// Tests inject their own to move time without waiting.
        public var now: @Sendable () -> Date
        /// How often operations are checked for expiry, on the wall clock. Tests call
        /// ``ReferenceServer/processExpiredOperations()`` instead of waiting.
        public var expiryCheckInterval: Duration
        /// Lockout after wrong passwords.
        public var lockoutPolicy: LoginLockoutPolicy
        /// The upper bound of the random delay added to each login (Stoat adds up to 1 s); zero by default so
        /// that tests are fast.
        public var maximumLoginDelay: Duration
        /// How long a socket's `Subscribe` to a server lasts unrenewed (Stoat: 900 s), in the server's clock.
        public var subscriptionLifetime: Duration
        /// How many servers a socket's active subscriptions hold (Stoat: 5); a further one evicts the least
        /// recently renewed.
        public var maximumSubscriptions: Int
        /// The REST rate limits (Stoat's by default; ``RateLimitPolicy/disabled`` turns them off).
        public var rateLimits: RateLimitPolicy
        /// The email and password of the ready-to-use account seeded at start.
        public var defaultCredentials: (email: String, password: String)
        /// The email and password of the second, not-yet-onboarded account seeded at start.
        public var pendingCredentials: (email: String, password: String)
        /// The semver range of supported clients that `GET /api/health` states.
        public var supportedClientVersions: String
        /// The logger; it never receives a token or a password.
        public var logger: Logger
        /// Which of Stoat's events servers the socket behaves as: ``EventsServer/bonfire`` (the default) or
        /// ``EventsServer/gateway``.
        public var events: EventsServer
        /// How long a gateway socket may stay silent before it is closed with 1002 (Bandit's WebSocket
        /// `timeout`, 35 s in the gateway's router); nil for never. Bonfire sockets have none.
        public var gatewayIdleTimeout: Duration?
        /// How much of what the server observes (frames, closed connections, arrivals) it keeps.
        public var observationLimits = ObservationLimits.standard
        /// The certificate to serve with over TLS (`https`, `wss`; the admin API too); nil (the default) serves
        /// plain HTTP. ``ReferenceCertificateAuthority`` makes one. Bound to loopback, the server's URLs then
        /// name it `localhost` (no TLS client may send an IP address as the server name): issue the certificate
        /// for `localhost`.
        public var tlsIdentity: ReferenceServerIdentity?
        /// A second port to listen on (0 picks a free one) whose events socket behaves as the gateway, for the
        /// same world — one database behind both of Stoat's events servers, as stoatchat runs them side by side;
        /// nil (the default) listens once. REST is served on both, and `GET /` on each states that port's events
        /// URL, so a client pointed at ``ReferenceServer/gatewayAPIURL`` meets the gateway while others meet
        /// ``events``. `lifeline serve --gateway-port`; the soak runs some of its sessions through it.
        public var gatewayPort: Int?
        /// The file server's upload limits per tag (stoatchat's by default: attachments 20 MB…), as `GET /`
        /// states them under `features.limits`; ``ReferenceServer/setUploadLimit(tag:bytes:)`` changes them.
        public var uploadLimits = UploadLimits.stoat
        /// The largest upload body the file server reads (`features.limits.global.body_limit_size`, 20 MB); a
        /// larger one is refused `413` by the framework before any limit of a tag is checked.
        public var uploadBodyLimit = 20_000_000

        /// A configuration for tests: loopback, a free port, in memory, no login delay, Stoat's rules.
        public init(
            host: String = "127.0.0.1",
            port: Int = 0,
            dataFile: String? = nil,
            maxInboundFrameSize: Int = 64 * 1024,
            outboundFragmentSize: Int = 16 * 1024,
            closeTimeout: Duration = .seconds(10),
            now: @escaping @Sendable () -> Date = { Date() },
            expiryCheckInterval: Duration = .milliseconds(250),
            lockoutPolicy: LoginLockoutPolicy = .stoat,
            maximumLoginDelay: Duration = .zero,
            subscriptionLifetime: Duration = .seconds(900),
            maximumSubscriptions: Int = 5,
            rateLimits: RateLimitPolicy = .stoat,
            defaultCredentials: (email: String, password: String) = ("demo@lifeline.test", "lifeline-demo"),
            pendingCredentials: (email: String, password: String) = ("newcomer@lifeline.test", "lifeline-newcomer"),
            supportedClientVersions: String = ">=0.1.0",
            logger: Logger = Logger(label: "StoatReferenceServer", factory: { _ in SwiftLogNoOpLogHandler() }),
            events: EventsServer = .bonfire,
            gatewayIdleTimeout: Duration? = .seconds(35)
        ) {
            self.host = host
            self.port = port
            self.dataFile = dataFile
            self.maxInboundFrameSize = maxInboundFrameSize
            self.outboundFragmentSize = outboundFragmentSize
            self.closeTimeout = closeTimeout
            self.now = now
            self.expiryCheckInterval = expiryCheckInterval
            self.lockoutPolicy = lockoutPolicy
            self.maximumLoginDelay = maximumLoginDelay
            self.subscriptionLifetime = subscriptionLifetime
            self.maximumSubscriptions = max(1, maximumSubscriptions)
            self.rateLimits = rateLimits
            self.defaultCredentials = defaultCredentials
            self.pendingCredentials = pendingCredentials
            self.supportedClientVersions = supportedClientVersions
            self.logger = logger
            self.events = events
            self.gatewayIdleTimeout = gatewayIdleTimeout
            self.gatewayPort = nil
        }
    }
}
