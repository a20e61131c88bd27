import Foundation
import Lifeline
import LifelineCore
import LifelineStore
import LifelineTesting
import StoatReferenceServer
import Testing

@testable import LifelineStoat
@testable import LifelineStoatStore

/// Two Stoat instances with the same email and password, one store directory: a session token reaches only
/// the server that issued it, whatever the app does.
@Suite("A token goes only to its issuer: two reference servers, one store", .hangBound)
struct ServerBindingEndToEndTests {
    @Test("the second server's sign-in makes its own account and never receives the first server's token")
    func twoServersOneStore() async throws {
        let serverA = try await ReferenceServer.start()
        let serverB = try await ReferenceServer.start()
        let account = serverA.defaultAccount
        #expect(serverB.defaultAccount.email == account.email && serverB.defaultAccount.password == account.password)
        let stores = TemporaryStore()

        let clientA = CacheHarness(server: serverA)
        let first = await clientA.client.signIn(to: stores.store, email: account.email, password: account.password)
        #expect(first.code == .created)
        let tokenA = try #require(first.session?.token)
        #expect(first.session?.issuer == clientA.client.api.server)
        await clientA.recorder.next(.connected)
        await clientA.stop()
        #expect(await serverA.sessionTokensReceived().contains(tokenA) == true, "the observation sees tokens")

        let clientB = CacheHarness(server: serverB)
        let second = await clientB.client.signIn(to: stores.store, email: account.email, password: account.password)
        #expect(second.code == .created, "B's account is a new file, not A's opened with A's session")
        let tokenB = try #require(second.session?.token)
        await clientB.recorder.next(.connected)
        await clientB.stop()
        #expect(await serverB.sessionTokensReceived().contains(tokenB) == true)
        #expect(await serverB.sessionTokensReceived().contains(tokenA) == false)

        let listed = try stores.store.accounts()
        #expect(Set(listed.compactMap(\.server)) == [clientA.client.api.server, clientB.client.api.server])

        // A's account picked by its id on B's client: refused before the password is used.
        let idA = stores.store.accountID(email: account.email, server: try #require(clientA.client.api.server))
        let third = CacheHarness(server: serverB)
        let otherServer = await third.client.signIn(to: stores.store, account: idA, password: account.password)
        #expect(otherServer.code == .otherServer)
        guard case .loginFailed(let failure)? = third.client.session.snapshot.presentation.notice else {
            Issue.record("no notice for another server's account: \(third.client.session.snapshot.presentation)")
            return
        }
        #expect(failure.code == .otherServer)

        // An app that hands A's session to B's client by hand: resume refuses it, and the REST API too.
        let credentialsA = try #require(first.session)
        #expect(await third.client.resume(credentialsA) == false)
        #expect(third.client.session.snapshot.state == .ready)
        await #expect(throws: StoatAPIError.self) { try await third.client.api.currentUser(credentialsA) }
        do {
            _ = try await third.client.api.currentUser(credentialsA)
        } catch {
            #expect(error.code == .foreignCredentials)
        }
        await third.stop()
        #expect(await serverB.sessionTokensReceived().contains(tokenA) == false)
        await serverA.stop()
        await serverB.stop()
    }

    @Test("the events socket refuses a session of another server before it opens, and with no known server")
    func socketRefusesForeignSessions() async throws {
        let serverA = try await ReferenceServer.start()
        let serverB = try await ReferenceServer.start()
        let apiA = StoatAPI(baseURL: serverA.apiURL)
        guard
            case .success(let credentialsA) = try await apiA.login(
                email: serverA.defaultAccount.email, password: serverA.defaultAccount.password)
        else {
            Issue.record("the login at A did not succeed")
            return
        }
        let eventsB = serverB.eventsURL.absoluteString
        for server in [StoatAPI(baseURL: serverB.apiURL).server, nil] {
            let clock = TestClock()
            let factory = StoatConnectionFactory(eventsURL: { eventsB }, server: server, clock: clock)
            let session = Session(
                connections: factory, authenticator: ScriptedAuthenticator(), network: ManualNetworkMonitor(.online),
                clock: clock,
                random: SeededRandomNumberGenerator(seed: 7))
            let recorder = SnapshotRecorder(session.states)
            let runner = Task { await session.run() }
            await session.logIn(credentialsA, cached: true)
            let error = try #require(await recorder.next(.error))
            guard case .permanentError(let shown) = error.presentation.screen else {
                Issue.record("no permanent error: \(error.presentation)")
                return
            }
            #expect(shown.reason == "authenticationFailed")
            runner.cancel()
            await runner.value
        }
        #expect(await serverB.sessionTokensReceived().contains(credentialsA.token) == false)
        #expect(await serverB.connections().isEmpty, "no socket was even opened")

        // The same factory with A's server sends A's session to A's socket.
        let clock = TestClock()
        let eventsA = serverA.eventsURL.absoluteString
        let factory = StoatConnectionFactory(eventsURL: { eventsA }, server: apiA.server, clock: clock)
        let session = Session(
            connections: factory, authenticator: ScriptedAuthenticator(), network: ManualNetworkMonitor(.online),
            clock: clock,
            random: SeededRandomNumberGenerator(seed: 7))
        let recorder = SnapshotRecorder(session.states)
        let runner = Task { await session.run() }
        await session.logIn(credentialsA, cached: true)
        #expect(await recorder.next(.connected) != nil)
        runner.cancel()
        await runner.value
        await serverA.stop()
        await serverB.stop()
    }
}

/// A `Disabled` login names why: the account's flags are read, and only flags 0 reads as disabled by the owner.
@Suite("A Disabled login is tailored", .hangBound)
struct DisabledLoginTests {
    @Test(
        "logIn: disabled by the owner, suspended, banned, each named in the error and the login screen's notice",
        arguments: [
            (AccountStanding.disabled, "Your account has been disabled."),
            (.suspended, "Your account has been suspended."),
            (.banned, "Your account has been banned."),
            (.removedAsSpam, "Your account was removed as spam."),
        ])
    func logIn(standing: AccountStanding, message: String) async throws {
        let harness = try await ClientHarness()
        let account = harness.server.defaultAccount
        try await Self.refuse(account.userID, as: standing, on: harness.server)
        guard case .refused(let error) = await harness.client.logIn(email: account.email, password: account.password)
        else {
            Issue.record("the login was accepted")
            return
        }
        #expect(error.code == .accountDisabled)
        #expect(error.standing == standing)
        guard case .loginFailed(let failure)? = harness.snapshot.presentation.notice else {
            Issue.record("no login notice: \(harness.snapshot.presentation)")
            return
        }
        #expect(failure.code == .api(.accountDisabled))
        #expect(failure.standing == standing)
        #expect(failure.message == message)
        await harness.stop()
    }

    @Test("the store's sign-in and an MFA continuation are tailored the same way")
    func storeAndSecondFactor() async throws {
        let pinned = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 30).rounded(.down) * 30 + 15)
        let server = try await ReferenceServer.start(.init(now: { pinned }))
        let stores = TemporaryStore()
        let account = server.defaultAccount
        #expect(await server.suspendAccount(userID: account.userID))
        let harness = CacheHarness(server: server)
        let outcome = await harness.client.signIn(to: stores.store, email: account.email, password: account.password)
        guard case .verificationFailed(let failure) = outcome else {
            Issue.record("expected verificationFailed, got \(outcome.code)")
            return
        }
        #expect(failure.code == .accountDisabled)
        #expect(failure.standing == .suspended)
        guard case .loginFailed(let notice)? = harness.client.session.snapshot.presentation.notice else {
            Issue.record("no login notice")
            return
        }
        #expect(notice.code == .api(.accountDisabled))
        #expect(notice.standing == .suspended)
        #expect(notice.message == "Your account has been suspended.")

        // An account with a second factor is told after the code: stoatchat checks `disabled` last.
        let secret = Array("lifeline-totp-secret".utf8)
        let mfa = try await server.addAccount(
            email: "mfa@example.com", password: "correct horse", username: "mfa_user", totpSecret: secret)
        #expect(await server.setUserFlags(4, userID: mfa.userID))
        #expect(await server.disableAccount(userID: mfa.userID))
        let code = TOTP.code(secret: secret, at: await server.now())
        let step = await harness.client.signIn(to: stores.store, email: mfa.email, password: mfa.password)
        guard case .secondFactorRequired(let challenge) = step else {
            Issue.record("expected a second factor, got \(step.code)")
            return
        }
        let refused = await harness.client.continueSignIn(
            challenge, with: SecondFactorResponse(method: .totp, code: code))
        guard case .verificationFailed(let banned) = refused else {
            Issue.record("expected verificationFailed, got \(refused.code)")
            return
        }
        #expect(banned.standing == .banned)

        let login = await harness.client.logIn(email: mfa.email, password: mfa.password)
        guard case .needsMFA(let mfaChallenge) = login else {
            Issue.record("expected MFA")
            return
        }
        guard case .refused(let error) = await harness.client.continueLogIn(mfaChallenge, with: .totp(code)) else {
            Issue.record("the MFA login was accepted")
            return
        }
        #expect(error.standing == .banned)
        await harness.stop()
        await server.stop()
    }

    /// Makes the account's login answer `Disabled` with flags that say why.
    static func refuse(_ userID: String, as standing: AccountStanding, on server: ReferenceServer) async throws {
        switch standing {
        case .suspended:
            #expect(await server.suspendAccount(userID: userID))
        case .banned:
            #expect(await server.setUserFlags(4, userID: userID))
            #expect(await server.disableAccount(userID: userID))
        case .removedAsSpam:
            #expect(await server.setUserFlags(8, userID: userID))
            #expect(await server.disableAccount(userID: userID))
        default:
            #expect(await server.disableAccount(userID: userID))
        }
    }
}

@Suite("REST sends a session's token only to its issuer")
struct RESTIssuerTests {
    @Test("a session of another server is refused before any request; the issuer's own and a bare token are sent")
    func refusedBeforeSending() async throws {
        try await withScriptedServer({ request in
            switch request.path {
            case "/auth/session/login":
                return .json(200, #"{"result":"Success","_id":"S","user_id":"U","token":"T"}"#)
            default:
                return .json(200, #"{"onboarding":false}"#)
            }
        }) { server in
            let api = StoatAPI(baseURL: server.url, requestTimeout: .failureBound)
            let elsewhere = ServerIdentity("https://api.stoat.chat")!
            let foreign = SessionCredentials(token: "FOREIGN-TOKEN", userID: "U", issuer: elsewhere)
            do throws(StoatAPIError) {
                _ = try await api.onboardingHello(foreign)
                Issue.record("a session of another server was sent")
            } catch {
                #expect(error.code == .foreignCredentials)
                #expect(!"\(error)".contains("FOREIGN-TOKEN"))
            }
            do throws(StoatAPIError) {
                try await api.logout(foreign)
                Issue.record("a session of another server was logged out")
            } catch {
                #expect(error.code == .foreignCredentials)
            }
            #expect(server.requests.isEmpty, "nothing reached the server")

            guard case .success(let issued) = try await api.login(email: "a@b.c", password: "pw") else {
                Issue.record("the login did not succeed")
                return
            }
            #expect(issued.issuer == api.server)
            #expect(try await api.onboardingHello(issued) == false)
            #expect(try await api.onboardingHello(SessionCredentials(token: "BARE")) == false)
            #expect(server.requests.map(\.path) == ["/auth/session/login", "/onboard/hello", "/onboard/hello"])

            // A full URL on another origin never carries a token, whoever issued it.
            do throws(StoatAPIError) {
                _ = try await api.send(
                    .GET, url: "http://127.0.0.1:1/api/health", path: "/api/health", auth: issued.authorization)
                Issue.record("a token was sent to another origin")
            } catch {
                #expect(error.code == .foreignCredentials)
            }
            #expect(server.requests.count == 3)
        }
    }

    @Test("an API URL that names no server sends nothing")
    func unidentifiedAPI() async throws {
        let api = StoatAPI(baseURL: URL(string: "localhost:8080")!)
        #expect(api.server == nil)
        do throws(StoatAPIError) {
            _ = try await api.login(email: "a@b.c", password: "pw")
            Issue.record("a login was sent to no server")
        } catch {
            #expect(error.code == .invalidRequest)
        }
        #expect(StoatPasswordVerifier(api: api, friendlyName: nil).server == ServerIdentity("https://invalid"))
    }
}
