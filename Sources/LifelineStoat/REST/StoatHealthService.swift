public import Lifeline

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The `HealthService` of a Stoat client: polls a health endpoint that reports outages
/// (`GET <health base>/api/health`), which the session asks for once failures reach three.
public struct StoatHealthService: HealthService {
    /// The REST client the requests go through.
    public let api: StoatAPI
    /// The health endpoint's full URL.
    public let url: URL

    /// Creates a health service.
    ///
    /// - Parameters:
    ///   - api: The REST client to send the requests with.
    ///   - url: The health endpoint's full URL, for example `https://health.stoat.chat/api/health`.
    public init(api: StoatAPI, url: URL) {
        self.api = api
        self.url = url
    }

    /// The endpoint's alert and poll rate.
    ///
    /// - Throws: ``StoatAPIError`` when the endpoint cannot be reached or read.
    public func status() async throws -> HealthStatus {
        try await api.health(url: url)
    }
}
