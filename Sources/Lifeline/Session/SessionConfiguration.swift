public import LifelineCore

extension Session {
    /// Tunables of the lifecycle that are not dependencies.
    public struct Configuration: Sendable {
        /// The retry delay policy for DISCONNECTED.
        public var retryPolicy: RetryPolicy
        /// The failure count at which the health service is polled.
        public var healthThreshold: Int
        /// How an `InvalidSession` is confirmed before the session is given up.
        public var sessionCheck: SessionCheckPolicy
        /// How often to poll the health service when it does not say.
        public var healthPollInterval: Duration
        /// The bounds any poll interval is kept within, whatever the service asks for.
        public var healthPollBounds: ClosedRange<Duration>
        /// Whether significant events replay one at a time (the default) or all at once.
        public var replayMode: ReplayPlan.Mode
        /// How many attempts a significant event gets before its failure is shown.
        public var replayRetryLimit: Int
        /// How long one play of a significant event may take before it counts as failed.
        public var replayTimeout: Duration
        /// The wait before a failed play's second attempt; doubled for each later one.
        public var replayRetryDelay: Duration
        /// How often recorded subscriptions are played again while connected, or `nil` for never.
        /// Stoat's subscriptions expire after 15 minutes; `StoatClient` renews them every 10.
        public var subscriptionRenewal: Duration?
        /// How long a connection must last after CONNECTED for its end to start the failure count again
        /// (`SessionMachine.stabilityWindow`); `nil` is the machine's default, 30 s. `StoatClient` uses its
        /// heartbeat interval.
        public var stabilityWindow: Duration?
        /// How long CONNECTED waits for the socket to deliver what the server stored
        /// (``deliveryExpected(_:generation:)``) before it calls the socket deaf: 15 s ± 20 % by default.
        public var deliveryWatch: DeliveryWatchPolicy
        /// Where the session hears that the device woke from a suspend (DEVICE_WOKE): CONNECTED then checks its
        /// socket at once. `nil` (the default) hears nothing, and the heartbeat alone finds a socket that died
        /// in a suspend; pass `SystemWakeMonitor.make()` for the platform's, or a ``ManualWakeMonitor``.
        /// ``Session/deviceWoke()`` reports a wake without a monitor.
        public var wakeMonitor: (any WakeMonitor)?
        /// How long CONNECTED waits for its socket to answer the check made when the device woke before it
        /// leaves it as dead (`SessionMachine.wakeCheckTimeout`): 3 s by default; positive.
        public var wakeCheckTimeout: Duration

        /// Creates a configuration; the defaults are the specification's.
        public init(
            retryPolicy: RetryPolicy = .spec,
            healthThreshold: Int = 3,
            sessionCheck: SessionCheckPolicy = .standard,
            healthPollInterval: Duration = .seconds(60),
            healthPollBounds: ClosedRange<Duration> = .seconds(10)...(.seconds(900)),
            replayMode: ReplayPlan.Mode = .sequential,
            replayRetryLimit: Int = 3,
            replayTimeout: Duration = .seconds(10),
            replayRetryDelay: Duration = .seconds(1),
            subscriptionRenewal: Duration? = nil,
            stabilityWindow: Duration? = nil,
            deliveryWatch: DeliveryWatchPolicy = .standard,
            wakeMonitor: (any WakeMonitor)? = nil,
            wakeCheckTimeout: Duration = .seconds(3)
        ) {
            self.retryPolicy = retryPolicy
            self.healthThreshold = healthThreshold
            self.sessionCheck = sessionCheck
            self.replayRetryDelay = replayRetryDelay
            self.healthPollInterval = healthPollInterval
            self.healthPollBounds = healthPollBounds
            self.replayMode = replayMode
            self.replayRetryLimit = replayRetryLimit
            self.replayTimeout = replayTimeout
            self.subscriptionRenewal = subscriptionRenewal
            self.stabilityWindow = stabilityWindow
            self.deliveryWatch = deliveryWatch
            self.wakeMonitor = wakeMonitor
            self.wakeCheckTimeout = wakeCheckTimeout
        }
    }
}

extension SessionMachine {
    /// A machine in READY with the configuration's tunables; `pollsHealth` when the session has a health service.
    init(_ configuration: Session.Configuration, pollsHealth: Bool) {
        self.init(
            retryPolicy: configuration.retryPolicy, healthThreshold: configuration.healthThreshold,
            sessionCheckPolicy: configuration.sessionCheck,
            stabilityWindow: configuration.stabilityWindow ?? .seconds(30),
            deliveryWatchPolicy: configuration.deliveryWatch,
            replay: ReplayPlan(
                mode: configuration.replayMode, retryLimit: configuration.replayRetryLimit,
                retryDelay: configuration.replayRetryDelay),
            healthPollInterval: configuration.healthPollInterval, healthPollBounds: configuration.healthPollBounds,
            pollsHealth: pollsHealth, replayTimeout: configuration.replayTimeout,
            subscriptionRenewal: configuration.subscriptionRenewal, wakeCheckTimeout: configuration.wakeCheckTimeout)
    }
}
