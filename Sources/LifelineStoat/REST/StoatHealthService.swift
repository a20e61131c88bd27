public import Lifeline

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The `HealthService` of a Stoat client: polls a health endpoint that reports outages
/// (`GET <health base>/api/health`), which the session asks for once failures reach three.
///
/// It shares no state with the API it is made from: its requests go through a copy of that ``StoatAPI``
/// with a rate limiter of its own, so a health host's answers (a `429`, absurd rate-limit headers) never
/// hold back the API's calls, nor the API's the health checks. Its `poll_rate` is bounded where it is read
/// (`HealthStatus.pollInterval` at most `ServerHorizon.longestWait`), and the session bounds it again
/// (`Session.Configuration.healthPollBounds`, 10 s … 15 min by default).
public struct StoatHealthService: HealthService {
    /// The REST client the requests go through: the API's settings and HTTP client, with its own rate limiter.
    public let api: StoatAPI
    /// The health endpoint's full URL.
    public let url: URL

    /// Creates a health service.
    ///
    /// - Parameters:
    ///   - api: The REST client to send the requests with.
    ///   - url: The health endpoint's full URL, for example `https://health.stoat.chat/api/health`.
    public init(api: StoatAPI, url: URL) {
        self.api = api.withOwnRateLimiter()
        self.url = url
    }

    /// The endpoint's alert and poll rate.
    ///
    /// - Throws: ``StoatAPIError`` when the endpoint cannot be reached or read.
    public func status() async throws -> HealthStatus {
        try await api.health(url: url)
    }
}
