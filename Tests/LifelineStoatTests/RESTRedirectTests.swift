import AsyncHTTPClient
import LifelineCore
import NIOPosix
import Testing

@testable import LifelineStoat

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Credentials never leave for another origin: a redirect to another port, scheme or host is refused
/// before anything is sent there.
@Suite("REST redirects")
struct RESTRedirectTests {
    /// Runs `body` with an API whose server redirects every request to `status` at a second server, which
    /// records what reaches it.
    func withRedirectingPair(
        status: Int, _ body: (StoatAPI, ScriptedHTTPServer) async throws -> Void
    ) async throws {
        try await withScriptedServer({ _ in .json(200, #"{"result":"Success","_id":"S","user_id":"U","token":"T"}"#) })
        {
            elsewhere in
            try await withScriptedServer({ request in
                .redirect(status, to: "http://127.0.0.1:\(elsewhere.port)\(request.target)")
            }) { api in
                try await body(StoatAPI(baseURL: api.url, requestTimeout: .failureBound), elsewhere)
            }
        }
    }

    @Test("a login redirected to another port with 307 or 308 sends nothing there", arguments: [307, 308])
    func loginRedirectRefused(status: Int) async throws {
        try await withRedirectingPair(status: status) { api, elsewhere in
            let error = try await apiError { () async throws(StoatAPIError) in
                try await api.login(email: "a@b.c", password: "PASSWORD-SECRET")
            }
            #expect(error.code == .redirectRefused)
            #expect(elsewhere.requests.isEmpty)
            #expect("\(error)".contains("127.0.0.1:\(elsewhere.port)/auth/session/login"))
            #expect(!"\(error)".contains("PASSWORD-SECRET"))
        }
    }

    @Test("an authenticated GET redirected to another port sends no token there", arguments: [301, 302, 303, 307, 308])
    func authenticatedRedirectRefused(status: Int) async throws {
        try await withRedirectingPair(status: status) { api, elsewhere in
            let error = try await apiError { () async throws(StoatAPIError) in
                try await api.currentUser(SessionCredentials(token: "TOKEN-SECRET"))
            }
            #expect(error.code == .redirectRefused)
            #expect(elsewhere.requests.isEmpty)
            #expect(!"\(error)".contains("TOKEN-SECRET"))
        }
    }

    @Test("a redirect on the same origin is followed, keeping a 308's method, body and token")
    func sameOriginFollowed() async throws {
        try await withScriptedServer({ request in
            switch request.path {
            case "/auth/session/login":
                return .redirect(308, to: "/auth/session/login-v2")
            case "/auth/session/login-v2" where request.body.contains("PASSWORD"):
                return .json(200, #"{"result":"Success","_id":"S","user_id":"U","token":"T"}"#)
            default:
                return .json(400, #"{"type":"FailedValidation","error":"no body"}"#)
            }
        }) { server in
            let api = StoatAPI(baseURL: server.url, requestTimeout: .failureBound)
            let result = try await api.login(email: "a@b.c", password: "PASSWORD")
            #expect(
                result == .success(SessionCredentials(token: "T", userID: "U", sessionID: "S", issuer: api.server)))
            #expect(server.requests.map(\.method) == ["POST", "POST"])
        }
    }

    @Test("a 303 on the same origin continues as a GET without the body")
    func seeOtherBecomesGet() async throws {
        try await withScriptedServer({ request in
            request.path == "/auth/session/logout"
                ? .redirect(303, to: "/done") : .json(request.method == "GET" && request.body.isEmpty ? 204 : 400, "")
        }) { server in
            let api = StoatAPI(baseURL: server.url, requestTimeout: .failureBound)
            try await api.logout(SessionCredentials(token: "T"))
            #expect(server.requests.map(\.method) == ["POST", "GET"])
            #expect(server.requests.last?.header("X-Session-Token") == "T")
        }
    }

    @Test("endless redirects on the same origin stop after five")
    func redirectLoop() async throws {
        try await withScriptedServer({ request in .redirect(302, to: request.target) }) { server in
            let api = StoatAPI(baseURL: server.url, requestTimeout: .failureBound)
            let error = try await apiError { () async throws(StoatAPIError) in try await api.configuration() }
            #expect(error.code == .redirectRefused)
            #expect(server.requests.count == StoatAPI.maximumRedirects + 1)
        }
    }

    @Test(
        "a redirect target is accepted only on the request's own scheme, host and port",
        arguments: [
            ("https://api.example/users/@me", "https://api.example/other", true),
            ("https://api.example/users/@me", "/relative", true),
            ("https://api.example/users/@me", "HTTPS://API.EXAMPLE:443/other", true),
            ("https://api.example/users/@me", "http://api.example/other", false),
            ("https://api.example/users/@me", "https://api.example:8443/other", false),
            ("https://api.example/users/@me", "https://evil.example/other", false),
            ("http://127.0.0.1:80/x", "http://127.0.0.1/y", true),
            ("http://127.0.0.1:1/x", "http://127.0.0.1:2/x", false),
            ("https://api.example/x", "ftp://api.example/x", false),
        ])
    func originRule(from: String, location: String, accepted: Bool) {
        let outcome = Result { () throws(StoatAPIError) in
            try StoatAPI.redirectTarget(location, from: from, request: "GET /x")
        }
        switch outcome {
        case .success: #expect(accepted)
        case .failure(let error):
            #expect(!accepted)
            #expect(error.code == .redirectRefused)
        }
    }

    @Test("an app's client that follows redirects itself has its answer refused")
    func followingClientRefused() async throws {
        try await withRedirectingPair(status: 302) { api, elsewhere in
            let follower = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
            let leaky = StoatAPI(baseURL: api.baseURL, httpClient: follower, requestTimeout: .failureBound)
            let error = try await apiError { () async throws(StoatAPIError) in
                try await leaky.currentUser(SessionCredentials(token: "T"))
            }
            try await follower.shutdown()
            #expect(error.code == .redirectRefused)
            // The damage the documentation warns of: such a client did send the request elsewhere.
            #expect(elsewhere.requests.count == 1)
        }
    }
}
