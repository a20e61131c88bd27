import Lifeline
import LifelineCore
import LifelineStoat
import Logging
import StoatReferenceServer
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite("REST answers the reference server never gives, and secrets")
struct RESTTransportTests {
    @Test("a refused connection is a network error")
    func refusedConnection() async throws {
        try await withClosedPort { port in
            try await withNonRetryingClient { client in
                let api = StoatAPI(baseURL: URL(string: "http://127.0.0.1:\(port)")!, httpClient: client)
                let error = try await apiError { () async throws(StoatAPIError) in try await api.configuration() }
                #expect(error.code == .network)
                #expect(error.status == nil)
                #expect(error.isTransportFailure)
                #expect(error.cause != nil)
                #expect(error.loginFailure.code == .api(.network))
            }
        }
    }

    @Test(
        "idle connections are closed before stoatchat's keep-alive closes them (Rocket: 5 s)")
    func idleConnectionsClosedEarly() {
        // Kept a minute (AsyncHTTPClient's default), an idle connection that was opened and never used also held
        // a gracefully stopping reference server for that minute.
        #expect(StoatAPI.httpClientConfiguration().connectionPool.idleTimeout == .seconds(4))
    }

    @Test("a success whose body is not JSON is a malformed response")
    func nonJSONBody() async throws {
        try await withCannedServer(status: 200, contentType: "text/html", body: "<html>Welcome</html>") { api in
            let error = try await apiError { () async throws(StoatAPIError) in try await api.configuration() }
            #expect(error.code == .malformedResponse)
            #expect(error.status == 200)
        }
    }

    @Test("an error status with an HTML page is an unexpected status")
    func htmlErrorPage() async throws {
        try await withCannedServer(status: 502, contentType: "text/html", body: "<html>Bad gateway</html>") { api in
            let error = try await apiError { () async throws(StoatAPIError) in try await api.configuration() }
            #expect(error.code == .unexpectedStatus)
            #expect(error.status == 502)
            #expect(error.kind == nil)
        }
    }

    @Test("an error kind keeps its name and location")
    func unknownErrorKind() async throws {
        let body = #"{"type":"LabelMe","location":"somewhere"}"#
        try await withCannedServer(status: 418, body: body) { api in
            let error = try await apiError { () async throws(StoatAPIError) in
                try await api.login(email: "a@b.c", password: "p")
            }
            #expect(error.code == .labelMe)
            #expect(error.kind == "LabelMe")
            #expect(error.location == "somewhere")
            #expect(error.loginFailure.code == .api(.labelMe))
        }
    }

    @Test(
        "a login answer with an unknown result or missing fields is a malformed response",
        arguments: [
            #"{"result":"Maybe"}"#, #"{"result":"Success","user_id":"U"}"#, #"{"result":"MFA"}"#,
            #"{"result":"Disabled"}"#, #"[1,2,3]"#, "",
        ])
    func malformedLogin(body: String) async throws {
        try await withCannedServer(status: 200, body: body) { api in
            let error = try await apiError { () async throws(StoatAPIError) in
                try await api.login(email: "a@b.c", password: "p")
            }
            #expect(error.code == .malformedResponse)
        }
    }

    @Test("an operation whose expires_at is not a date is a malformed response")
    func malformedExpiry() async throws {
        try await withCannedServer(status: 200, body: #"[{"id":"1","kind":"K","expires_at":"tomorrow"}]"#) { api in
            let error = try await apiError { () async throws(StoatAPIError) in
                try await api.operations(SessionCredentials(token: "t"))
            }
            #expect(error.code == .malformedResponse)
        }
    }

    @Test("operations without a Date header still list, with no server date")
    func operationsWithoutDate() async throws {
        let body = #"[{"id":"1","kind":"K","expires_at":"2025-06-15T15:06:40Z"}]"#
        try await withCannedServer(status: 200, body: body) { api in
            let page = try await api.operations(SessionCredentials(token: "t"))
            #expect(
                page.operations == [.init(id: "1", kind: "K", expiresAt: Date(timeIntervalSince1970: 1_750_000_000))])
            #expect(page.serverDate == nil)
        }
    }

    @Test("a body larger than the limit is a malformed response")
    func oversizedBody() async throws {
        let body = #"{"ws":"ws://x/events","padding":""# + String(repeating: "x", count: 10_000) + #""}"#
        let server = try await CannedHTTPServer.start(status: 200, body: body)
        try await withNonRetryingClient { client in
            let api = StoatAPI(baseURL: server.url, httpClient: client, maximumResponseSize: 1_000)
            let error = try await apiError { () async throws(StoatAPIError) in try await api.configuration() }
            #expect(error.code == .malformedResponse)
            let roomy = StoatAPI(baseURL: server.url, httpClient: client, maximumResponseSize: 20_000)
            #expect(try await roomy.configuration().eventsURL == URL(string: "ws://x/events")!)
        }
        try await server.stop()
    }

    @Test("no error description and no log line contains a token, a password, a ticket or an MFA code")
    func secretsStayOut() async throws {
        let lines = CapturingLogHandler.Lines()
        let logger = Logger(label: "secrets") { _ in CapturingLogHandler(lines: lines) }
        try await withReferenceServer(logger: logger) { server, api in
            let account = try await server.addAccount(
                email: "secret@lifeline.test", password: "Pa55word-SECRET", username: "secret",
                totpSecret: Array("TOTP-SECRET".utf8), recoveryCodes: ["RECOVERY-SECRET"])
            var secrets = [account.password, account.token, "RECOVERY-SECRET", "WRONG-PASSWORD-SECRET"]
            var descriptions: [String] = []

            func record(_ operation: () async throws(StoatAPIError) -> Void) async {
                do throws(StoatAPIError) {
                    try await operation()
                } catch {
                    descriptions.append("\(error)")
                    descriptions.append(String(describing: error.loginFailure))
                }
            }

            await record { () async throws(StoatAPIError) in
                _ = try await api.login(email: account.email, password: "WRONG-PASSWORD-SECRET")
            }
            guard case .mfa(let challenge) = try await api.login(email: account.email, password: account.password)
            else {
                Issue.record("expected MFA")
                return
            }
            secrets.append(challenge.ticket)
            descriptions.append("\(challenge)")
            descriptions.append(String(reflecting: challenge))
            descriptions.append("\(LoginResult.mfa(challenge))")
            descriptions.append("\(MFAResponse.recoveryCode("RECOVERY-SECRET"))")
            await record { () async throws(StoatAPIError) in
                _ = try await api.continueLogin(ticket: challenge.ticket, response: .totp("000000"))
            }
            let result = try await api.continueLogin(
                ticket: challenge.ticket, response: .recoveryCode("RECOVERY-SECRET"))
            guard case .success(let credentials) = result else {
                Issue.record("expected Success")
                return
            }
            secrets.append(credentials.token)
            descriptions.append("\(result)")
            descriptions.append(String(reflecting: result))
            let seeded = SessionCredentials(token: account.token)
            _ = try await api.currentUser(seeded)
            try await api.logout(seeded)
            await record { () async throws(StoatAPIError) in _ = try await api.currentUser(seeded) }
            await record { () async throws(StoatAPIError) in _ = try await api.onboardingHello(seeded) }
            await record { () async throws(StoatAPIError) in _ = try await api.operations(seeded) }
            do {
                _ = try await StoatAuthenticator(api: api).needsOnboarding(seeded)
            } catch {
                descriptions.append("\(error)")
            }

            #expect(descriptions.count >= 10)
            #expect(lines.all.count >= 8)
            #expect(lines.all.contains { $0.contains("/auth/session/login") && $0.contains("401") })
            for text in descriptions + lines.all {
                for secret in secrets {
                    #expect(!text.contains(secret), "\(text) contains a secret")
                }
            }
        }
    }
}
