#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The events socket to open: its URL, with the scheme in lower case (`ws` or `wss`), and whether the
/// socket uses TLS.
///
/// Made by ``RootConfiguration/eventsEndpoint(forAPI:)`` from `GET /`'s `ws`, or by
/// ``init(socketURL:)`` from a URL given directly. The rule (see <doc:LifelineStoat#The-events-URL>):
/// schemes compare case-insensitively; `wss` and `https` mean TLS, `ws` and `http` plaintext, anything
/// else is refused; an API reached over HTTPS accepts only a TLS socket, so the token's first frame never
/// travels in the clear.
public struct StoatEventsEndpoint: Sendable, Hashable {
    /// The socket's URL, its scheme `ws` or `wss`.
    public var url: URL
    /// Whether the socket uses TLS (the URL's scheme is `wss`); open it with the configured TLS settings.
    public var usesTLS: Bool

    /// Reads a socket URL as it is given, without an API to compare it with: only the scheme is checked.
    ///
    /// - Parameter socketURL: The events socket's URL.
    /// - Throws: ``StoatAPIErrorCode/insecureEventsURL`` when the scheme is not `ws`, `wss`, `http` or
    ///   `https` (in any case), or the URL has no host.
    public init(socketURL: String) throws(StoatAPIError) {
        guard let url = URL(string: socketURL) else {
            throw StoatAPIError(code: .insecureEventsURL, message: "The events URL is not a URL")
        }
        try self.init(url: url, api: nil)
    }

    /// Reads a socket URL and, when the API's URL is given, holds it to the API's security.
    init(url: URL, api: URL?) throws(StoatAPIError) {
        let scheme = url.scheme?.lowercased() ?? ""
        let tls: Bool
        switch scheme {
        case "wss", "https": tls = true
        case "ws", "http": tls = false
        default:
            throw StoatAPIError(
                code: .insecureEventsURL,
                message: "The events URL's scheme \(scheme.isEmpty ? "(none)" : scheme) is not a WebSocket's")
        }
        guard let host = url.host, !host.isEmpty else {
            throw StoatAPIError(code: .insecureEventsURL, message: "The events URL has no host")
        }
        if let api, api.scheme?.lowercased() == "https", !tls {
            throw StoatAPIError(
                code: .insecureEventsURL,
                message: "The API is reached over HTTPS but names a plaintext events socket (\(scheme)://\(host))")
        }
        // The scheme is replaced in the text: `URLComponents` would load ICU's tables (about 1 MB resident) to
        // rebuild a host it does not change.
        let wanted = tls ? "wss" : "ws"
        if url.scheme == wanted {
            self.url = url
        } else {
            let text = url.absoluteString
            guard let colon = text.firstIndex(of: ":"), let rebuilt = URL(string: wanted + text[colon...]) else {
                throw StoatAPIError(code: .insecureEventsURL, message: "The events URL cannot be rebuilt")
            }
            self.url = rebuilt
        }
        self.usesTLS = tls
    }
}

extension RootConfiguration {
    /// The events socket to open for an API at `apiURL`: ``eventsURL`` held to the API's security.
    ///
    /// Schemes compare case-insensitively. `wss` and `https` socket URLs use TLS (with the connection's
    /// configured TLS settings); `ws` and `http` are accepted only when the API itself is plaintext, such
    /// as a local server. The returned URL's scheme is `ws` or `wss`.
    ///
    /// - Parameter apiURL: The API's base URL, the one `GET /` was asked at.
    /// - Throws: ``StoatAPIErrorCode/insecureEventsURL`` for a scheme that is not a WebSocket's, or a
    ///   plaintext socket named by an HTTPS API.
    public func eventsEndpoint(forAPI apiURL: URL) throws(StoatAPIError) -> StoatEventsEndpoint {
        try StoatEventsEndpoint(url: eventsURL, api: apiURL)
    }
}
