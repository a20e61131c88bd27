/// Counts of the server's activity since it started, for ``ReferenceServer/waitUntil(timeout:_:)`` and the
/// admin `state`.
public struct SocketCounters: Sendable, Equatable {
    /// WebSocket upgrades accepted.
    public var upgradesAccepted: Int
    /// WebSocket upgrades refused by the ``ReferenceServer/refuseNextUpgrades(_:)`` fault.
    public var upgradesRefused: Int
    /// Sockets open now.
    public var liveSockets: Int
    /// REST session checks answered 401 because the session-lookup outage fault was in force
    /// (``ReferenceServer/failSessionLookups(for:)``), since the fault was last set.
    public var outageSessionChecks: Int
    /// Socket authentications answered `InvalidSession` because of the same fault, since it was last set.
    public var outageSocketRefusals: Int
    /// REST requests answered 429 by the rate limiter.
    public var rateLimited: Int
    /// Sends stored whose answer was lost on purpose (``ReferenceServer/loseNextSendAnswers(_:)``).
    public var lostSendAnswers: Int = 0
    /// Uploads the file server stored.
    public var uploadsStored: Int = 0
    /// Uploads stored whose answer was lost on purpose (``ReferenceServer/loseNextUploadAnswers(_:)``).
    public var lostUploadAnswers: Int = 0
    /// Bytes of upload bodies the file server has read, as they arrive (a slow upload's progress).
    public var uploadBytesReceived: Int = 0
    /// Web Push subscriptions held by live sessions (``ReferenceServer/pushSubscriptions()`` lists them).
    public var pushSubscriptions: Int = 0
}
