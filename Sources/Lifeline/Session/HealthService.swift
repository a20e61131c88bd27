/// A service that reports outages, polled once the connection failures reach the health threshold.
public protocol HealthService: Sendable {
    /// The service's current status.
    ///
    /// - Throws: When the service cannot be reached; the session keeps polling.
    func status() async throws -> HealthStatus
}
