import LifelineStoat
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The events URL from `GET /` is held to the API's security before a socket carries the token.
@Suite("The events URL")
struct RESTEventsEndpointTests {
    @Test(
        "schemes compare case-insensitively, TLS schemes use TLS, and an HTTPS API takes only a TLS socket",
        arguments: [
            ("https://api.stoat.chat", "wss://events.stoat.chat", "wss://events.stoat.chat", true),
            ("https://api.stoat.chat", "WSS://events.stoat.chat/", "wss://events.stoat.chat/", true),
            ("https://api.stoat.chat", "https://events.stoat.chat", "wss://events.stoat.chat", true),
            ("HTTPS://api.stoat.chat", "Wss://events.stoat.chat", "wss://events.stoat.chat", true),
            ("http://127.0.0.1:8000", "ws://127.0.0.1:8001/events", "ws://127.0.0.1:8001/events", false),
            ("http://127.0.0.1:8000", "WS://127.0.0.1:8001/events", "ws://127.0.0.1:8001/events", false),
            ("http://127.0.0.1:8000", "http://127.0.0.1:8001", "ws://127.0.0.1:8001", false),
            ("http://127.0.0.1:8000", "wss://127.0.0.1:8001", "wss://127.0.0.1:8001", true),
        ])
    func accepted(api: String, socket: String, expected: String, tls: Bool) throws {
        let configuration = RootConfiguration(eventsURL: URL(string: socket)!)
        let endpoint = try configuration.eventsEndpoint(forAPI: URL(string: api)!)
        #expect(endpoint.url.absoluteString == expected)
        #expect(endpoint.usesTLS == tls)
    }

    @Test(
        "a plaintext socket for an HTTPS API, or a scheme that is not a WebSocket's, is refused",
        arguments: [
            ("https://api.stoat.chat", "ws://events.stoat.chat"),
            ("https://api.stoat.chat", "WS://events.stoat.chat"),
            ("https://api.stoat.chat", "http://events.stoat.chat"),
            ("HTTPS://api.stoat.chat", "Http://events.stoat.chat"),
            ("https://api.stoat.chat", "ftp://events.stoat.chat"),
            ("http://127.0.0.1:8000", "file:///etc/passwd"),
            ("http://127.0.0.1:8000", "wsx://127.0.0.1"),
        ])
    func refused(api: String, socket: String) {
        let configuration = RootConfiguration(eventsURL: URL(string: socket)!)
        #expect {
            try configuration.eventsEndpoint(forAPI: URL(string: api)!)
        } throws: { error in
            (error as? StoatAPIError)?.code == .insecureEventsURL
        }
    }

    @Test(
        "a socket URL given directly is checked for its scheme alone", arguments: ["WSS://x", "wss://x", "https://x"])
    func direct(socket: String) throws {
        #expect(try StoatEventsEndpoint(socketURL: socket).usesTLS)
        #expect(try StoatEventsEndpoint(socketURL: socket).url.scheme == "wss")
    }

    @Test("GET / gives the events URL normalised, as the rule says")
    func configurationApplies() async throws {
        try await withScriptedServer({ _ in .json(200, #"{"ws":"WS://127.0.0.1:9/events","revolt":"0.8.8"}"#) }) {
            server in
            let api = StoatAPI(baseURL: server.url, requestTimeout: .failureBound)
            let url = try await api.configuration().eventsURL
            #expect(url == URL(string: "ws://127.0.0.1:9/events")!)
        }
        try await withScriptedServer({ _ in .json(200, #"{"ws":"ftp://127.0.0.1:9/events"}"#) }) { server in
            let api = StoatAPI(baseURL: server.url, requestTimeout: .failureBound)
            let error = try await apiError { () async throws(StoatAPIError) in try await api.configuration() }
            #expect(error.code == .insecureEventsURL)
        }
    }
}
