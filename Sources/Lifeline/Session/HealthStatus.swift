public import LifelineCore

/// What a ``HealthService`` says.
public struct HealthStatus: Sendable, Hashable {
    /// The outage alert to show, or `nil` when there is none.
    public var alert: OutageAlert?
    /// How often the service asks to be polled, if it says (Stoat's `poll_rate`); the session bounds it.
    public var pollInterval: Duration?

    /// Creates a status.
    public init(alert: OutageAlert? = nil, pollInterval: Duration? = nil) {
        self.alert = alert
        self.pollInterval = pollInterval
    }
}
