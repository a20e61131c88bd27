import Lifeline
import LifelineCore
import LifelineStoat
import StoatReferenceServer
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

@Suite("REST onboarding, users and flags against the reference server")
struct RESTAccountTests {
    @Test("onboarding hello says true for an account without a username and false once it has one")
    func onboardingHello() async throws {
        try await withReferenceServer { (server, api) async throws in
            let pending = SessionCredentials(token: server.pendingAccount.token, userID: server.pendingAccount.userID)
            let ready = SessionCredentials(token: server.defaultAccount.token, userID: server.defaultAccount.userID)
            #expect(try await api.onboardingHello(pending))
            #expect(try await api.onboardingHello(ready) == false)
        }
    }

    @Test("completing onboarding returns the new user; a second completion is AlreadyOnboarded")
    func completeOnboarding() async throws {
        try await withReferenceServer { server, api in
            let pending = SessionCredentials(token: server.pendingAccount.token, userID: server.pendingAccount.userID)
            let user = try await api.completeOnboarding(pending, username: "new.comer_1")
            #expect(user.id == server.pendingAccount.userID)
            #expect(user.username == "new.comer_1")
            #expect(try await api.onboardingHello(pending) == false)
            #expect(try await api.currentUser(pending) == user)
            let again = try await apiError { () async throws(StoatAPIError) in
                try await api.completeOnboarding(pending, username: "another")
            }
            #expect(again.code == .alreadyOnboarded)
            #expect(again.status == 403)
        }
    }

    @Test(
        "a username that breaks the rules is FailedValidation (400)",
        arguments: ["x", String(repeating: "a", count: 33), "has space", "emoji🙂"])
    func usernameValidation(username: String) async throws {
        try await withReferenceServer { server, api in
            let pending = SessionCredentials(token: server.pendingAccount.token)
            let error = try await apiError { () async throws(StoatAPIError) in
                try await api.completeOnboarding(pending, username: username)
            }
            #expect(error.code == .failedValidation)
            #expect(error.status == 400)
            #expect(try await api.onboardingHello(pending))
        }
    }

    @Test("a username in use is UsernameTaken (409), also through the authenticator")
    func usernameTaken() async throws {
        try await withReferenceServer { server, api in
            // Stoat answers UsernameTaken only once every discriminator of the name is in use.
            for (index, discriminator) in UsernameRule.discriminators.enumerated() {
                await server.addUser(StoatUser(id: "DEMO\(index)", username: "demo", discriminator: discriminator))
            }
            let pending = SessionCredentials(token: server.pendingAccount.token)
            let error = try await apiError { () async throws(StoatAPIError) in
                try await api.completeOnboarding(pending, username: "DEMO")
            }
            #expect(error.code == .usernameTaken)
            #expect(error.status == 409)
            let authenticator = StoatAuthenticator(api: api)
            await #expect(throws: StoatAPIError.self) {
                try await authenticator.completeOnboarding(pending, username: "demo")
            }
            try await authenticator.completeOnboarding(pending, username: "demo2")
            #expect(try await api.currentUser(pending).username == "demo2")
        }
    }

    @Test("users/@me answers the session's user, flags 0 when the server omits them")
    func currentUser() async throws {
        try await withReferenceServer { server, api in
            let credentials = SessionCredentials(token: server.defaultAccount.token)
            let user = try await api.currentUser(credentials)
            #expect(user.id == server.defaultAccount.userID)
            #expect(user.username == "demo")
            #expect(user.discriminator == "0001")
            #expect(user.flags == 0)
            await server.setUserFlags(1, userID: user.id)
            #expect(try await api.currentUser(credentials).flags == 1)
        }
    }

    @Test("a call without a valid session is InvalidSession, from the framework's 401 that names no kind")
    func unknownToken() async throws {
        try await withReferenceServer { _, api in
            let error = try await apiError { () async throws(StoatAPIError) in
                try await api.currentUser(SessionCredentials(token: "not-a-token"))
            }
            #expect(error.code == .invalidSession)
            #expect(error.status == 401)
            #expect(error.kind == nil)
        }
    }

    @Test(
        "flags report each bit, with no session, and the authenticator maps them to the standing",
        arguments: [
            (0, AccountStanding.loggedOut), (1, .suspended), (2, .deleted), (4, .banned), (8, .removedAsSpam),
        ])
    func flagsAndStanding(flags: Int, standing: AccountStanding) async throws {
        try await withReferenceServer { (server, api) async throws in
            let userID = server.defaultAccount.userID
            await server.setUserFlags(UInt32(flags), userID: userID)
            // Revoked sessions do not matter: the lookup needs none.
            await server.revokeSession(token: server.defaultAccount.token)
            #expect(try await api.flags(userID: userID) == flags)
            #expect(try await StoatAuthenticator(api: api).accountStanding(userID: userID) == standing)
        }
    }

    @Test("flags of an unknown user are 0, as Stoat answers them")
    func flagsOfUnknownUser() async throws {
        try await withReferenceServer { (_, api) async throws in
            #expect(try await api.flags(userID: "nobody/..") == 0)
        }
    }

    @Test(
        "the most severe flag names the standing: banned > removed as spam > deleted > suspended; other bits are ignored",
        arguments: [
            (0, AccountStanding.loggedOut), (1, .suspended), (2, .deleted), (3, .deleted), (4, .banned),
            (8, .removedAsSpam), (15, .banned), (14, .banned), (11, .removedAsSpam), (10, .removedAsSpam),
            (12, .banned), (16, .loggedOut), (17, .suspended), (6, .banned), (5, .banned), (9, .removedAsSpam),
        ])
    func standingPrecedence(flags: Int, standing: AccountStanding) {
        #expect(StoatAuthenticator.standing(forFlags: flags) == standing)
    }

    @Test("the authenticator's onboarding check: a revoked session is a permanent InvalidSession")
    func needsOnboardingOnRevokedSession() async throws {
        try await withReferenceServer { server, api in
            let authenticator = StoatAuthenticator(api: api)
            let pending = SessionCredentials(token: server.pendingAccount.token)
            #expect(try await authenticator.needsOnboarding(pending))
            #expect(
                try await authenticator.needsOnboarding(SessionCredentials(token: server.defaultAccount.token)) == false
            )
            await server.revokeSession(token: server.pendingAccount.token)
            do {
                _ = try await authenticator.needsOnboarding(pending)
                Issue.record("expected a SessionFailure")
            } catch let end as SessionFailure {
                guard case .permanent(let reason) = end else {
                    Issue.record("expected a permanent end, got \(end)")
                    return
                }
                #expect(reason.code == .invalidSession)
            }
        }
    }

    @Test("the authenticator's onboarding check: an unreachable server is a temporary request failure")
    func needsOnboardingOnNetworkFailure() async throws {
        try await withClosedPort { port in
            try await withNonRetryingClient { client in
                let api = StoatAPI(baseURL: URL(string: "http://127.0.0.1:\(port)")!, httpClient: client)
                do {
                    _ = try await StoatAuthenticator(api: api).needsOnboarding(SessionCredentials(token: "token"))
                    Issue.record("expected a SessionFailure")
                } catch let end as SessionFailure {
                    guard case .temporary(let cause) = end else {
                        Issue.record("expected a temporary end, got \(end)")
                        return
                    }
                    #expect(cause.code == .requestFailed)
                    #expect(cause.message.contains("network"))
                }
            }
        }
    }

    @Test("ending the session logs it out on the server, and ending an ended session is not an error")
    func endSession() async throws {
        try await withReferenceServer { server, api in
            let authenticator = StoatAuthenticator(api: api)
            let credentials = SessionCredentials(token: server.defaultAccount.token)
            try await authenticator.endSession(credentials)
            let error = try await apiError { () async throws(StoatAPIError) in try await api.currentUser(credentials) }
            #expect(error.code == .invalidSession)
            try await authenticator.endSession(credentials)
        }
    }
}
