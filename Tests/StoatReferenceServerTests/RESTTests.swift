import Foundation
import Testing

@testable import StoatReferenceServer

@Suite("REST API")
struct RESTTests {
    @Test("GET / states the events socket URL")
    func rootConfiguration() async throws {
        try await withServer { server throws in
            let answer = try await server.http(.GET, "/")
            #expect(answer.status == 200)
            #expect(answer.json?["ws"] as? String == server.eventsURL.absoluteString)
            #expect(answer.json?["features"] is [String: Any])
            #expect(answer.json?["build"] is [String: Any])
        }
    }

    @Test("A login with the right password succeeds and its token reads /users/@me, flags omitted when 0")
    func loginSuccess() async throws {
        try await withServer { server throws in
            let account = server.defaultAccount
            let login = try await server.http(
                .POST, "/auth/session/login",
                json: #"{"email":"\#(account.email)","password":"\#(account.password)","friendly_name":"test"}"#)
            #expect(login.status == 200)
            #expect(login.json?["result"] as? String == "Success")
            #expect(login.json?["user_id"] as? String == account.userID)
            #expect(login.json?["name"] as? String == "test")
            let token = try #require(login.json?["token"] as? String)
            let me = try await server.http(.GET, "/users/@me", token: token)
            #expect(me.status == 200)
            #expect(me.json?["_id"] as? String == account.userID)
            #expect(me.json?["relationship"] as? String == "User")
            #expect(me.json?.keys.contains("flags") == false)
            await server.setUserFlags(1, userID: account.userID)
            #expect(try await server.http(.GET, "/users/@me", token: token).json?["flags"] as? Int == 1)
        }
    }

    @Test("Wrong credentials answer 401 InvalidCredentials, an unknown token 401 InvalidSession")
    func wrongCredentials() async throws {
        try await withServer { server throws in
            let wrong = try await server.http(
                .POST, "/auth/session/login", json: #"{"email":"demo@lifeline.test","password":"nope"}"#)
            #expect(wrong.status == 401)
            #expect(wrong.errorType == "InvalidCredentials")
            #expect(wrong.json?["location"] is String)
            let unknown = try await server.http(
                .POST, "/auth/session/login", json: #"{"email":"who@lifeline.test","password":"nope"}"#)
            #expect(unknown.errorType == "InvalidCredentials")
            let me = try await server.http(.GET, "/users/@me", token: "not-a-token")
            #expect(me.status == 401)
            #expect(me.errorType == "InvalidSession")
        }
    }

    @Test("Three wrong passwords lock the account out for 60 s of the server's clock, then 300 s")
    func lockout() async throws {
        let clock = ManualClock()
        try await withServer(clock: clock) { server throws in
            let good = #"{"email":"demo@lifeline.test","password":"lifeline-demo"}"#
            let bad = #"{"email":"demo@lifeline.test","password":"wrong"}"#
            for _ in 0..<3 { _ = try await server.http(.POST, "/auth/session/login", json: bad) }
            let locked = try await server.http(.POST, "/auth/session/login", json: good)
            #expect(locked.status == 403)
            #expect(locked.errorType == "LockedOut")
            clock.advance(by: 59)
            #expect(try await server.http(.POST, "/auth/session/login", json: good).errorType == "LockedOut")
            clock.advance(by: 1)
            #expect(try await server.http(.POST, "/auth/session/login", json: good).status == 200)
            // The success reset the history: three more lock for 60 s again, not 300 s.
            for _ in 0..<3 { _ = try await server.http(.POST, "/auth/session/login", json: bad) }
            clock.advance(by: 60)
            #expect(try await server.http(.POST, "/auth/session/login", json: good).status == 200)
            for _ in 0..<3 { _ = try await server.http(.POST, "/auth/session/login", json: bad) }
            clock.advance(by: 60)
            for _ in 0..<3 { _ = try await server.http(.POST, "/auth/session/login", json: bad) }
            clock.advance(by: 299)
            #expect(try await server.http(.POST, "/auth/session/login", json: good).errorType == "LockedOut")
            clock.advance(by: 1)
            #expect(try await server.http(.POST, "/auth/session/login", json: good).status == 200)
        }
    }

    @Test("An MFA account answers a ticket that a TOTP code of the server's clock completes")
    func mfaTOTP() async throws {
        let clock = ManualClock()
        try await withServer(clock: clock) { server throws in
            let secret = Array("a shared totp secret".utf8)
            _ = try await server.addAccount(
                email: "mfa@lifeline.test", password: "pw", username: "mfa", totpSecret: secret)
            let first = try await server.http(
                .POST, "/auth/session/login", json: #"{"email":"mfa@lifeline.test","password":"pw"}"#)
            #expect(first.json?["result"] as? String == "MFA")
            #expect(first.json?["allowed_methods"] as? [String] == ["Totp"])
            let ticket = try #require(first.json?["ticket"] as? String)
            let wrong = try await server.http(
                .POST, "/auth/session/login",
                json: #"{"mfa_ticket":"\#(ticket)","mfa_response":{"totp_code":"000000x"}}"#)
            #expect(wrong.status == 401)
            #expect(wrong.errorType == "InvalidToken")
            let code = TOTP.code(secret: secret, at: clock.now)
            let second = try await server.http(
                .POST, "/auth/session/login",
                json: #"{"mfa_ticket":"\#(ticket)","mfa_response":{"totp_code":"\#(code)"}}"#)
            #expect(second.json?["result"] as? String == "Success")
            let reused = try await server.http(
                .POST, "/auth/session/login",
                json: #"{"mfa_ticket":"\#(ticket)","mfa_response":{"totp_code":"\#(code)"}}"#)
            #expect(reused.errorType == "InvalidToken")
        }
    }

    @Test("A recovery code completes an MFA ticket once")
    func mfaRecovery() async throws {
        try await withServer { server throws in
            _ = try await server.addAccount(
                email: "rc@lifeline.test", password: "pw", username: "rc", recoveryCodes: ["abcd-efgh", "ijkl-mnop"])
            func ticket() async throws -> String {
                let answer = try await server.http(
                    .POST, "/auth/session/login", json: #"{"email":"rc@lifeline.test","password":"pw"}"#)
                #expect(answer.json?["allowed_methods"] as? [String] == ["Recovery"])
                return try #require(answer.json?["ticket"] as? String)
            }
            let body = { (ticket: String) in
                #"{"mfa_ticket":"\#(ticket)","mfa_response":{"recovery_code":"abcd-efgh"}}"#
            }
            let used = try await server.http(.POST, "/auth/session/login", json: body(try await ticket()))
            #expect(used.json?["result"] as? String == "Success")
            let again = try await server.http(.POST, "/auth/session/login", json: body(try await ticket()))
            #expect(again.errorType == "InvalidToken")
        }
    }

    @Test("A disabled account answers Disabled and an unverified one 403 UnverifiedAccount")
    func disabledAndUnverified() async throws {
        try await withServer { server throws in
            let account = server.defaultAccount
            let socket = try await server.connectReady(token: account.token)
            #expect(await server.disableAccount(userID: account.userID))
            #expect(try await socket.nextType() == "Logout")
            let login = try await server.http(
                .POST, "/auth/session/login",
                json: #"{"email":"\#(account.email)","password":"\#(account.password)"}"#)
            #expect(login.json?["result"] as? String == "Disabled")
            #expect(login.json?["user_id"] as? String == account.userID)
            #expect(try await server.http(.GET, "/users/\(account.userID)/flags").json?["flags"] as? Int == 0)
            _ = try await server.addAccount(email: "new@lifeline.test", password: "pw", username: "n", verified: false)
            let unverified = try await server.http(
                .POST, "/auth/session/login", json: #"{"email":"new@lifeline.test","password":"pw"}"#)
            #expect(unverified.status == 403)
            #expect(unverified.errorType == "UnverifiedAccount")
        }
    }

    @Test("Logout answers 204 and ends the session")
    func logout() async throws {
        try await withServer { server throws in
            let token = server.defaultAccount.token
            let logout = try await server.http(.POST, "/auth/session/logout", token: token)
            #expect(logout.status == 204)
            let me = try await server.http(.GET, "/users/@me", token: token)
            #expect(me.errorType == "InvalidSession")
            let anonymous = try await server.http(.POST, "/auth/session/logout")
            #expect(anonymous.errorType == "NotAuthenticated")
        }
    }

    @Test("Onboarding: hello, invalid and taken usernames, completion, then AlreadyOnboarded")
    func onboarding() async throws {
        try await withServer { server throws in
            let pending = server.pendingAccount
            let hello = try await server.http(.GET, "/onboard/hello", token: pending.token)
            #expect(hello.json?["onboarding"] as? Bool == true)
            #expect(
                try await server.http(.GET, "/onboard/hello", token: server.defaultAccount.token)
                    .json?["onboarding"] as? Bool == false)
            #expect(try await server.http(.GET, "/users/@me", token: pending.token).errorType == "InvalidSession")
            for invalid in ["x", "has space", String(repeating: "y", count: 33)] {
                let answer = try await server.http(
                    .POST, "/onboard/complete", token: pending.token, json: #"{"username":"\#(invalid)"}"#)
                #expect(answer.status == 400)
                #expect(answer.errorType == "FailedValidation")
            }
            let taken = try await server.http(
                .POST, "/onboard/complete", token: pending.token, json: #"{"username":"DEMO"}"#)
            #expect(taken.status == 409)
            #expect(taken.errorType == "UsernameTaken")
            let done = try await server.http(
                .POST, "/onboard/complete", token: pending.token, json: #"{"username":"new.comer"}"#)
            #expect(done.status == 200)
            #expect(done.json?["username"] as? String == "new.comer")
            #expect(done.json?["_id"] as? String == pending.userID)
            let again = try await server.http(
                .POST, "/onboard/complete", token: pending.token, json: #"{"username":"other"}"#)
            #expect(again.status == 403)
            #expect(again.errorType == "AlreadyOnboarded")
            #expect(
                try await server.http(.GET, "/onboard/hello", token: pending.token).json?["onboarding"] as? Bool
                    == false)
        }
    }

    @Test("User flags are readable without a session, after the session was revoked")
    func flagsWithoutSession() async throws {
        try await withServer { server throws in
            let account = server.defaultAccount
            await server.setUserFlags(4, userID: account.userID)
            await server.revokeSession(token: account.token)
            let answer = try await server.http(.GET, "/users/\(account.userID)/flags")
            #expect(answer.status == 200)
            #expect(answer.json?["flags"] as? Int == 4)
            #expect(try await server.http(.GET, "/users/NOBODY/flags").status == 404)
        }
    }

    @Test("The health endpoint states the supported versions, then the alert and poll rate set")
    func health() async throws {
        try await withServer { server throws in
            let plain = try await server.http(.GET, "/api/health")
            #expect(plain.json?["version"] is String)
            #expect(plain.json?["alert"] == nil)
            await server.setHealthAlert(
                HealthAlert(
                    text: "Outage", dismissable: false,
                    actions: [.init(text: "Status", type: "external", href: "https://status.example")]),
                pollRate: 5000)
            let alerted = try await server.http(.GET, "/api/health")
            let alert = try #require(alerted.json?["alert"] as? [String: Any])
            #expect(alert["text"] as? String == "Outage")
            #expect(alert["dismissable"] as? Bool == false)
            #expect((alert["actions"] as? [[String: Any]])?.first?["href"] as? String == "https://status.example")
            #expect(alerted.json?["poll_rate"] as? Int == 5000)
            await server.setHealthAlert(nil)
            #expect(try await server.http(.GET, "/api/health").json?["alert"] == nil)
        }
    }

    @Test("Operations list their ISO 8601 expiry and the Date header, both in the skewed server clock")
    func operationsAndClock() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_750_000_000))
        try await withServer(clock: clock) { server throws in
            let account = server.defaultAccount
            await server.setClockSkew(.seconds(3600))
            let operation = await server.addOperation(
                kind: "login_approval", userID: account.userID, expiresIn: .seconds(90))
            let answer = try await server.http(.GET, "/operations", token: account.token)
            #expect(answer.status == 200)
            let entry = try #require(answer.jsonArray?.first)
            #expect(entry["id"] as? String == operation.id)
            #expect(entry["kind"] as? String == "login_approval")
            #expect(entry["expires_at"] as? String == "2025-06-15T16:08:10.000Z")
            #expect(answer.headers["date"] == "Sun, 15 Jun 2025 16:06:40 GMT")
            #expect(try await server.http(.GET, "/operations").errorType == "NotAuthenticated")
        }
    }

    @Test("The admin API answers loopback callers")
    func adminFromLoopback() async throws {
        try await withServer { server throws in
            let account = server.defaultAccount
            let set = try await server.http(
                .POST, "/user-flags", json: #"{"user_id":"\#(account.userID)","flags":8}"#, base: server.adminURL)
            #expect(set.status == 204)
            #expect(try await server.http(.GET, "/users/\(account.userID)/flags").json?["flags"] as? Int == 8)
            let state = try await server.http(.GET, "/state", base: server.adminURL)
            #expect(state.json?["live_sockets"] as? Int == 0)
            let bad = try await server.http(.POST, "/refuse-upgrades", json: #"{"count":"x"}"#, base: server.adminURL)
            #expect(bad.errorType == "FailedValidation")
        }
    }
}
