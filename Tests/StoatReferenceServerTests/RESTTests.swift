import Foundation
import Testing

@testable import StoatReferenceServer

@Suite("REST API: sessions, onboarding and accounts")
struct RESTTests {
    static let demoLogin = #"{"email":"demo@lifeline.test","password":"lifeline-demo"}"#

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
                json: #"{"email":"DE.MO+work@Lifeline.test","password":"\#(account.password)","friendly_name":"test"}"#)
            #expect(login.status == 200)
            #expect(login.json?["result"] as? String == "Success")
            #expect(login.json?["user_id"] as? String == account.userID)
            #expect(login.json?["name"] as? String == "test")
            let token = try #require(login.json?["token"] as? String)
            let me = try await server.http(.GET, "/users/@me", token: token)
            #expect(me.status == 200)
            #expect(me.json?["_id"] as? String == account.userID)
            #expect(me.json?["relationship"] as? String == "User")
            #expect(me.json?["online"] as? Bool == false)
            #expect(me.json?.keys.contains("flags") == false)
            await server.setUserFlags(1, userID: account.userID)
            #expect(try await server.http(.GET, "/users/@me", token: token).json?["flags"] as? Int == 1)
        }
    }

    @Test("Wrong credentials answer 401 InvalidCredentials; a bad or missing token the framework's 401 without a type")
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
            for token in ["not-a-token", nil] as [String?] {
                let me = try await server.http(.GET, "/users/@me", token: token)
                #expect(me.status == 401)
                #expect(me.errorType == nil)
                #expect(me.catcherCode == 401)
                #expect((me.json?["error"] as? [String: Any])?["reason"] as? String == "Unauthorized")
            }
            let html = try await server.http(.GET, "/users/@me", token: "nope", headers: [("Accept", "text/html")])
            #expect(html.status == 401)
            #expect(html.headers["content-type"]?.hasPrefix("text/html") == true)
            #expect(html.text.contains("401: Unauthorized"))
        }
    }

    @Test("Unreadable login bodies answer the framework's 400, bodies of the wrong shape its 422")
    func loginBodies() async throws {
        try await withServer { server throws in
            let syntax = try await server.http(.POST, "/auth/session/login", json: #"{"email":"#)
            #expect(syntax.status == 400)
            #expect(syntax.catcherCode == 400)
            let shape = try await server.http(.POST, "/auth/session/login", json: #"{"email":"a@b.c"}"#)
            #expect(shape.status == 422)
            #expect(shape.catcherCode == 422)
        }
    }

    @Test(
        "Login checks in stoatchat's order: an unverified account answers UnverifiedAccount even with a wrong password")
    func unverifiedBeforePassword() async throws {
        try await withServer { server throws in
            _ = try await server.addAccount(email: "new@lifeline.test", password: "pw", username: "n", verified: false)
            let wrong = try await server.http(
                .POST, "/auth/session/login", json: #"{"email":"new@lifeline.test","password":"not it"}"#)
            #expect(wrong.status == 403)
            #expect(wrong.errorType == "UnverifiedAccount")
        }
    }

    @Test("The 3rd wrong password locks for 60 s of the server's clock, the 4th for 300 s, the 5th for 3600 s")
    func lockout() async throws {
        let clock = ManualClock()
        try await withServer(clock: clock) { server throws in
            let good = Self.demoLogin
            let bad = #"{"email":"demo@lifeline.test","password":"wrong"}"#
            func login(_ body: String) async throws -> HTTPAnswer {
                try await server.http(.POST, "/auth/session/login", json: body)
            }
            for _ in 0..<2 { #expect(try await login(bad).errorType == "InvalidCredentials") }
            #expect(try await login(bad).errorType == "InvalidCredentials")
            let locked = try await login(good)
            #expect(locked.status == 403)
            #expect(locked.errorType == "LockedOut")
            clock.advance(by: 59)
            #expect(try await login(good).errorType == "LockedOut")
            clock.advance(by: 2)
            // The 4th wrong password locks at once, for 300 s.
            #expect(try await login(bad).errorType == "InvalidCredentials")
            clock.advance(by: 299)
            #expect(try await login(good).errorType == "LockedOut")
            clock.advance(by: 2)
            #expect(try await login(bad).errorType == "InvalidCredentials")
            clock.advance(by: 3599)
            #expect(try await login(good).errorType == "LockedOut")
            clock.advance(by: 2)
            #expect(try await login(good).status == 200)
            // The success cleared the count: two wrong passwords lock nothing.
            for _ in 0..<2 { _ = try await login(bad) }
            #expect(try await login(good).status == 200)
        }
    }

    @Test("An MFA ticket is completed by the TOTP code, valid 5 minutes, and not consumed by the login")
    func mfaTOTP() async throws {
        let clock = ManualClock()
        try await withServer(clock: clock) { server throws in
            let secret = Array("a shared totp secret".utf8)
            _ = try await server.addAccount(
                email: "mfa@lifeline.test", password: "pw", username: "mfa", totpSecret: secret)
            func ticket() async throws -> String {
                let first = try await server.http(
                    .POST, "/auth/session/login", json: #"{"email":"mfa@lifeline.test","password":"pw"}"#)
                #expect(first.json?["result"] as? String == "MFA")
                #expect(first.json?["allowed_methods"] as? [String] == ["Totp"])
                return try #require(first.json?["ticket"] as? String)
            }
            let first = try await ticket()
            let wrong = try await server.http(
                .POST, "/auth/session/login",
                json: #"{"mfa_ticket":"\#(first)","mfa_response":{"totp_code":"000000x"}}"#)
            #expect(wrong.status == 401)
            #expect(wrong.errorType == "InvalidToken")
            let code = TOTP.code(secret: secret, at: clock.now)
            let body = #"{"mfa_ticket":"\#(first)","mfa_response":{"totp_code":"\#(code)"}}"#
            #expect(
                try await server.http(.POST, "/auth/session/login", json: body).json?["result"] as? String == "Success")
            #expect(
                try await server.http(.POST, "/auth/session/login", json: body).json?["result"] as? String == "Success")
            let noResponse = try await server.http(.POST, "/auth/session/login", json: #"{"mfa_ticket":"\#(first)"}"#)
            #expect(noResponse.errorType == "InvalidToken")
            let password = try await server.http(
                .POST, "/auth/session/login", json: #"{"mfa_ticket":"\#(first)","mfa_response":{"password":"pw"}}"#)
            #expect(password.status == 400)
            #expect(password.errorType == "DisallowedMFAMethod")
            let recovery = try await server.http(
                .POST, "/auth/session/login",
                json: #"{"mfa_ticket":"\#(first)","mfa_response":{"recovery_code":"abcd"}}"#)
            #expect(recovery.errorType == "DisallowedMFAMethod")
            // Five minutes later the ticket is gone, even with the code the ticket was made with.
            clock.advance(by: 301)
            #expect(try await server.http(.POST, "/auth/session/login", json: body).errorType == "InvalidToken")
            let second = try await ticket()
            let fresh = TOTP.code(secret: secret, at: clock.now)
            let late = try await server.http(
                .POST, "/auth/session/login",
                json: #"{"mfa_ticket":"\#(second)","mfa_response":{"totp_code":"\#(fresh)"}}"#)
            #expect(late.json?["result"] as? String == "Success")
        }
    }

    @Test("Recovery codes complete an MFA ticket once each; without TOTP they enable no MFA")
    func mfaRecovery() async throws {
        try await withServer { server throws in
            _ = try await server.addAccount(
                email: "rc@lifeline.test", password: "pw", username: "rc", totpSecret: Array("s".utf8),
                recoveryCodes: ["abcd-efgh", "ijkl-mnop"])
            func ticket() async throws -> String {
                let answer = try await server.http(
                    .POST, "/auth/session/login", json: #"{"email":"rc@lifeline.test","password":"pw"}"#)
                #expect(answer.json?["allowed_methods"] as? [String] == ["Totp", "Recovery"])
                return try #require(answer.json?["ticket"] as? String)
            }
            let body = { (ticket: String) in
                #"{"mfa_ticket":"\#(ticket)","mfa_response":{"recovery_code":"abcd-efgh"}}"#
            }
            let used = try await server.http(.POST, "/auth/session/login", json: body(try await ticket()))
            #expect(used.json?["result"] as? String == "Success")
            let again = try await server.http(.POST, "/auth/session/login", json: body(try await ticket()))
            #expect(again.errorType == "InvalidToken")
            _ = try await server.addAccount(
                email: "plain@lifeline.test", password: "pw", username: "plain", recoveryCodes: ["zzzz-zzzz"])
            let plain = try await server.http(
                .POST, "/auth/session/login", json: #"{"email":"plain@lifeline.test","password":"pw"}"#)
            #expect(plain.json?["result"] as? String == "Success")
        }
    }

    @Test(
        "Disabling deletes the sessions (Logout, then a drop without close frame); login answers Disabled; flags stay 0"
    )
    func disabled() async throws {
        try await withServer { server throws in
            let account = server.defaultAccount
            let socket = try await server.connectReady(token: account.token)
            #expect(await server.disableAccount(userID: account.userID))
            #expect(try await socket.nextType() == "Logout")
            #expect(try await socket.next() == nil)
            if case .success(let frame) = await socket.outcome() { #expect(frame == nil) }
            let login = try await server.http(.POST, "/auth/session/login", json: Self.demoLogin)
            #expect(login.json?["result"] as? String == "Disabled")
            #expect(login.json?["user_id"] as? String == account.userID)
            #expect(try await server.http(.GET, "/users/\(account.userID)/flags").json?["flags"] as? Int == 0)
            #expect(try await server.http(.GET, "/users/@me", token: account.token).status == 401)
        }
    }

    @Test("Suspending sets flags 1, deletes the sessions (Logout, then a drop) and makes login answer Disabled")
    func suspended() async throws {
        try await withServer { server throws in
            let account = server.defaultAccount
            let socket = try await server.connectReady(token: account.token)
            #expect(await server.suspendAccount(userID: account.userID))
            #expect(try await socket.nextType() == "Logout")
            #expect(try await socket.next() == nil)
            let login = try await server.http(.POST, "/auth/session/login", json: Self.demoLogin)
            #expect(login.json?["result"] as? String == "Disabled")
            #expect(try await server.http(.GET, "/users/\(account.userID)/flags").json?["flags"] as? Int == 1)
            let admin = try await server.admin(.POST, "/suspend-account", json: #"{"user_id":"NOBODY"}"#)
            #expect(admin.status == 404)
        }
    }

    @Test("Logout answers 204 and ends the session; without a session it is the framework's 401")
    func logout() async throws {
        try await withServer { server throws in
            let token = server.defaultAccount.token
            let logout = try await server.http(.POST, "/auth/session/logout", token: token)
            #expect(logout.status == 204)
            #expect(try await server.http(.GET, "/users/@me", token: token).catcherCode == 401)
            let anonymous = try await server.http(.POST, "/auth/session/logout")
            #expect(anonymous.status == 401)
            #expect(anonymous.catcherCode == 401)
        }
    }

    @Test("GET /auth/session/all lists the user's sessions as {_id, name}")
    func sessionList() async throws {
        try await withServer { server throws in
            let account = server.defaultAccount
            _ = await server.createSession(userID: account.userID, name: "second device")
            let answer = try await server.http(.GET, "/auth/session/all", token: account.token)
            #expect(answer.status == 200)
            let list = try #require(answer.jsonArray)
            #expect(list.count == 2)
            #expect(list.allSatisfy { Set($0.keys) == ["_id", "name"] })
            #expect(list.contains { $0["name"] as? String == "second device" })
            #expect(
                try await server.http(.GET, "/auth/session/all", token: server.pendingAccount.token).jsonArray?.count
                    == 1)
            #expect(try await server.http(.GET, "/auth/session/all").catcherCode == 401)
        }
    }

    @Test("Onboarding: hello, validation, blocked names, a free discriminator for a taken name, then AlreadyOnboarded")
    func onboarding() async throws {
        try await withServer { server throws in
            let pending = server.pendingAccount
            let hello = try await server.http(.GET, "/onboard/hello", token: pending.token)
            #expect(hello.json?["onboarding"] as? Bool == true)
            #expect(
                try await server.http(.GET, "/onboard/hello", token: server.defaultAccount.token)
                    .json?["onboarding"] as? Bool == false)
            #expect(try await server.http(.GET, "/onboard/hello").catcherCode == 401)
            #expect(try await server.http(.GET, "/users/@me", token: pending.token).catcherCode == 401)
            for invalid in ["x", "has space", String(repeating: "y", count: 33)] {
                let answer = try await server.http(
                    .POST, "/onboard/complete", token: pending.token, json: #"{"username":"\#(invalid)"}"#)
                #expect(answer.status == 400)
                #expect(answer.errorType == "FailedValidation")
                #expect(answer.json?["error"] is String)
            }
            for blocked in ["Admin", "join.discord.gg"] {
                let answer = try await server.http(
                    .POST, "/onboard/complete", token: pending.token, json: #"{"username":"\#(blocked)"}"#)
                #expect(answer.status == 400)
                #expect(answer.errorType == "InvalidUsername")
            }
            let shape = try await server.http(.POST, "/onboard/complete", token: pending.token, json: #"{"name":"x"}"#)
            #expect(shape.status == 422)
            let done = try await server.http(
                .POST, "/onboard/complete", token: pending.token, json: #"{"username":"DEMO"}"#)
            #expect(done.status == 200)
            #expect(done.json?["username"] as? String == "DEMO")
            #expect(done.json?["_id"] as? String == pending.userID)
            let discriminator = try #require(done.json?["discriminator"] as? String)
            #expect(discriminator != "0001")
            #expect(UsernameRule.discriminators.contains(discriminator))
            let again = try await server.http(
                .POST, "/onboard/complete", token: pending.token, json: #"{"username":"other"}"#)
            #expect(again.status == 403)
            #expect(again.errorType == "AlreadyOnboarded")
        }
    }

    @Test("A username answers UsernameTaken only when every discriminator is in use")
    func usernameTaken() async throws {
        try await withServer { server throws in
            let used = UsernameRule.discriminators.sorted().dropFirst()
            for (index, discriminator) in used.enumerated() {
                await server.addUser(StoatUser(id: "CROWD\(index)", username: "crowd", discriminator: discriminator))
            }
            let pending = server.pendingAccount
            let last = try await server.http(
                .POST, "/onboard/complete", token: pending.token, json: #"{"username":"Crowd"}"#)
            #expect(last.json?["discriminator"] as? String == UsernameRule.discriminators.min())
            let other = try await server.addAccount(email: "late@lifeline.test", password: "pw", username: nil)
            let taken = try await server.http(
                .POST, "/onboard/complete", token: other.token, json: #"{"username":"crowd"}"#)
            #expect(taken.status == 409)
            #expect(taken.errorType == "UsernameTaken")
        }
    }

    @Test("User flags need no session and answer 0 for an unknown user")
    func flagsWithoutSession() async throws {
        try await withServer { server throws in
            let account = server.defaultAccount
            await server.setUserFlags(4, userID: account.userID)
            await server.revokeSession(token: account.token)
            let answer = try await server.http(.GET, "/users/\(account.userID)/flags")
            #expect(answer.status == 200)
            #expect(answer.json?["flags"] as? Int == 4)
            let unknown = try await server.http(.GET, "/users/NOBODY/flags")
            #expect(unknown.status == 200)
            #expect(unknown.json?["flags"] as? Int == 0)
        }
    }

    @Test("An unknown route answers Rocket's 404 catcher, never an empty body")
    func unknownRoute() async throws {
        try await withServer { server throws in
            let json = try await server.http(.GET, "/no/such/route")
            #expect(json.status == 404)
            #expect(json.catcherCode == 404)
            let html = try await server.http(.DELETE, "/users/@me", headers: [("Accept", "text/html")])
            #expect(html.status == 404)
            #expect(html.text.contains("404: Not Found"))
            let admin = try await server.admin(.GET, "/no-such-thing")
            #expect(admin.status == 404)
            #expect(admin.errorType == "NotFound")
        }
    }

    @Test("Settings fetch answers {key: [timestamp, value]} for saved keys; set announces UserSettingsUpdate")
    func settings() async throws {
        let clock = ManualClock()
        try await withServer(clock: clock) { server throws in
            let token = server.defaultAccount.token
            let empty = try await server.http(.POST, "/sync/settings/fetch", token: token, json: #"{"keys":["theme"]}"#)
            #expect(empty.status == 200)
            #expect(empty.text == "{}")
            let socket = try await server.connectReady(token: token)
            let set = try await server.http(
                .POST, "/sync/settings/set?timestamp=99999999999999", token: token,
                json: #"{"theme":"{\"dark\":true}"}"#)
            #expect(set.status == 204)
            let stamp = Int(clock.now.timeIntervalSince1970 * 1000)
            let update = try #require(try await socket.nextEvent("UserSettingsUpdate"))
            #expect((update["update"] as? [String: Any])?["theme"] as? [Any] != nil)
            let fetched = try await server.http(
                .POST, "/sync/settings/fetch", token: token, json: #"{"keys":["theme","missing"]}"#)
            let entry = try #require(fetched.json?["theme"] as? [Any])
            #expect(entry.first as? Int == stamp)
            #expect(entry.last as? String == #"{"dark":true}"#)
            #expect(fetched.json?["missing"] == nil)
            let unreads = try await server.http(.GET, "/sync/unreads", token: token)
            #expect(unreads.status == 200)
            #expect(unreads.jsonArray?.isEmpty == true)
            #expect(
                try await server.http(.POST, "/sync/settings/fetch", token: token, json: #"{"keys":1}"#).status == 422)
            await socket.close()
        }
    }

    @Test("The health endpoint states the supported versions, then the alert and poll rate set")
    func health() async throws {
        try await withServer { server throws in
            let plain = try await server.http(.GET, "/api/health")
            #expect(plain.json?["version"] is String)
            #expect(plain.json?["alert"] == nil)
            #expect(plain.headers["x-ratelimit-limit"] == nil)
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
            #expect(try await server.http(.GET, "/operations").catcherCode == 401)
        }
    }
}

@Suite("The session tokens a server received")
struct ReceivedTokenTests {
    @Test("every X-Session-Token and every socket Authenticate is recorded, valid or not; nothing else")
    func recorded() async throws {
        try await withServer { server throws in
            #expect(await server.sessionTokensReceived() == ReceivedSessionTokens(tokens: [], unrecorded: 0))
            _ = try await server.http(.GET, "/")
            _ = try await server.http(.GET, "/users/@me", token: "NOT-A-SESSION")
            _ = try await server.http(.GET, "/onboard/hello", token: server.defaultAccount.token)
            let socket = await TestSocket.connect(server.eventsURL())
            await socket.send(#"{"type":"Authenticate","token":"SOCKET-ONLY"}"#)
            #expect(try await socket.nextType() == "Error")
            let received = await server.sessionTokensReceived()
            #expect(received.tokens == ["NOT-A-SESSION", server.defaultAccount.token, "SOCKET-ONLY"])
            #expect(received.contains("SOCKET-ONLY") == true)
            #expect(received.contains("NEVER-SENT") == false)
        }
    }

    @Test("the record is bounded: past 10 000 distinct tokens, the rest are only counted")
    func bounded() async throws {
        try await withServer { server throws in
            let limit = ServerState.maximumObservedTokens
            for index in 0..<(limit + 5) { await server.state.observeSessionToken("token-\(index)") }
            await server.state.observeSessionToken("token-0")
            let received = await server.sessionTokensReceived()
            #expect(received.tokens.count == limit)
            #expect(received.unrecorded == 5)
            #expect(received.contains("token-0") == true)
            #expect(received.contains("token-\(limit + 1)") == nil, "unknown once tokens went unrecorded")
        }
    }
}
