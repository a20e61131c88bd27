import Foundation
import Testing

@testable import StoatReferenceServer

@Suite("Admin API: hardening and the world routes")
struct AdminTests {
    @Test("The admin API answers loopback callers with JSON bodies")
    func loopback() async throws {
        try await withServer { server throws in
            let account = server.defaultAccount
            let set = try await server.admin(.POST, "/user-flags", json: #"{"user_id":"\#(account.userID)","flags":8}"#)
            #expect(set.status == 204)
            #expect(try await server.http(.GET, "/users/\(account.userID)/flags").json?["flags"] as? Int == 8)
            let state = try await server.admin(.GET, "/state")
            #expect(state.json?["live_sockets"] as? Int == 0)
            let bad = try await server.admin(.POST, "/refuse-upgrades", json: #"{"count":"x"}"#)
            #expect(bad.status == 400)
            #expect(bad.errorType == "FailedValidation")
        }
    }

    @Test("An admin POST without Content-Type: application/json is refused with 415 and does nothing")
    func contentType() async throws {
        try await withServer { server throws in
            let plain = try await server.http(
                .POST, "/refuse-upgrades", json: #"{"count":3}"#, base: server.adminURL,
                headers: [("Content-Type", "text/plain")])
            #expect(plain.status == 415)
            let form = try await server.http(
                .POST, "/refuse-upgrades", json: "count=3", base: server.adminURL,
                headers: [("Content-Type", "application/x-www-form-urlencoded")])
            #expect(form.status == 415)
            #expect(await server.socketCounters().upgradesRefused == 0)
            let socket = try await server.connectReady(token: server.defaultAccount.token)
            await socket.close()
            let charset = try await server.http(
                .POST, "/refuse-upgrades", json: #"{"count":0}"#, base: server.adminURL,
                headers: [("Content-Type", "application/json; charset=utf-8")])
            #expect(charset.status == 204)
        }
    }

    @Test("A foreign Host header (DNS rebinding) is refused with 403")
    func foreignHost() async throws {
        try await withServer { server throws in
            let rebound = try await server.http(
                .POST, "/drop-sockets", json: "{}", base: server.adminURL,
                headers: [("Host", "evil.example:\(server.port)")])
            #expect(rebound.status == 403)
            #expect(
                try await server.http(.GET, "/state", base: server.adminURL, headers: [("Host", "attacker.test")])
                    .status == 403)
            let local = try await server.http(
                .GET, "/state", base: server.adminURL, headers: [("Host", "localhost:\(server.port)")])
            #expect(local.status == 200)
        }
    }

    @Test("A foreign Origin (a cross-site request) is refused with 403; a loopback one is allowed")
    func foreignOrigin() async throws {
        try await withServer { server throws in
            let crossSite = try await server.http(
                .POST, "/user-flags", json: #"{"user_id":"\#(server.defaultAccount.userID)","flags":4}"#,
                base: server.adminURL, headers: [("Origin", "https://evil.example")])
            #expect(crossSite.status == 403)
            #expect(
                try await server.http(.GET, "/users/\(server.defaultAccount.userID)/flags").json?["flags"] as? Int == 0)
            let local = try await server.http(
                .GET, "/state", base: server.adminURL, headers: [("Origin", "http://127.0.0.1:3000")])
            #expect(local.status == 200)
        }
    }

    @Test("The world routes add users and bots, join, post, edit, delete, time out and befriend")
    func worldRoutes() async throws {
        try await withServer { server throws in
            let user = try await server.admin(.POST, "/users", json: #"{"username":"carol"}"#)
            #expect(user.status == 200)
            let userID = try #require(user.json?["user_id"] as? String)
            let token = try #require(user.json?["token"] as? String)
            #expect(try await server.http(.GET, "/users/@me", token: token).json?["username"] as? String == "carol")
            let bot = try await server.admin(.POST, "/bots", json: #"{"username":"helper","owner_id":"\#(userID)"}"#)
            let botToken = try #require(bot.json?["bot_token"] as? String)
            #expect(try await server.http(.GET, "/users/@me", headers: [("X-Bot-Token", botToken)]).status == 200)
            let join = try await server.admin(
                .POST, "/members", json: #"{"user_id":"\#(userID)","server_id":"\#(server.lobbyServerID)"}"#)
            #expect(join.status == 200)
            let twice = try await server.admin(
                .POST, "/members", json: #"{"user_id":"\#(userID)","server_id":"\#(server.lobbyServerID)"}"#)
            #expect(twice.errorType == "AlreadyInServer")
            let message = try await server.admin(
                .POST, "/messages",
                json: #"{"user_id":"\#(userID)","channel_id":"\#(server.lobbyChannelID)","content":"hi"}"#)
            let messageID = try #require(message.json?["_id"] as? String)
            let edit = try await server.admin(.POST, "/messages/\(messageID)/edit", json: #"{"content":"hey"}"#)
            #expect(edit.json?["content"] as? String == "hey")
            #expect(try await server.admin(.POST, "/messages/\(messageID)/delete").status == 204)
            #expect(try await server.admin(.POST, "/messages/\(messageID)/delete").status == 404)
            let until = StoatTimestamp.string(Date().addingTimeInterval(600))
            let timeout = try await server.admin(
                .POST, "/timeout",
                json: #"{"user_id":"\#(userID)","server_id":"\#(server.lobbyServerID)","until":"\#(until)"}"#)
            #expect(timeout.status == 204)
            let refused = try await server.admin(
                .POST, "/messages",
                json: #"{"user_id":"\#(userID)","channel_id":"\#(server.lobbyChannelID)","content":"hi"}"#)
            #expect(refused.errorType == "MissingPermission")
            let friends = try await server.admin(
                .POST, "/friends", json: #"{"user_id":"\#(userID)","other_id":"\#(server.defaultAccount.userID)"}"#)
            #expect(friends.status == 204)
            let dm = try await server.admin(
                .POST, "/direct-messages",
                json: #"{"user_id":"\#(userID)","other_id":"\#(server.defaultAccount.userID)"}"#)
            #expect(dm.json?["channel_type"] as? String == "DirectMessage")
            let channel = try await server.admin(
                .POST, "/channels", json: #"{"server_id":"\#(server.lobbyServerID)","name":"slow","slowmode":10}"#)
            #expect(channel.json?["slowmode"] as? Int == 10)
            let leave = try await server.admin(
                .POST, "/members/remove", json: #"{"user_id":"\#(userID)","server_id":"\#(server.lobbyServerID)"}"#)
            #expect(leave.status == 204)
        }
    }
}

@Suite("Rate limits as stoatchat's")
struct RateLimitTests {
    @Test("Every answer carries the four rate-limit headers, counting down in the bucket")
    func headers() async throws {
        // The window is 10 s on the server's clock: a manual one, so a slow machine cannot end it between calls.
        let clock = ManualClock()
        try await withServer(clock: clock) { server throws in
            let first = try await server.http(.GET, "/users/@me", token: server.defaultAccount.token)
            #expect(first.headers["x-ratelimit-limit"] == "20")
            #expect(first.headers["x-ratelimit-remaining"] == "19")
            #expect(UInt64(first.headers["x-ratelimit-bucket"] ?? "") != nil)
            let reset = try #require(Int(first.headers["x-ratelimit-reset-after"] ?? ""))
            #expect((0...10_000).contains(reset))
            let second = try await server.http(.GET, "/users/@me", token: server.defaultAccount.token)
            #expect(second.headers["x-ratelimit-remaining"] == "18")
            let login = try await server.http(.POST, "/auth/session/login", json: RESTTests.demoLogin)
            #expect(login.headers["x-ratelimit-limit"] == "15")
            let missing = try await server.http(.GET, "/nowhere")
            #expect(missing.headers["x-ratelimit-limit"] == "20")
        }
    }

    @Test("The auth bucket allows 15 requests per 10 s, then 429 {retry_after} until the window ends")
    func authBucket() async throws {
        let clock = ManualClock()
        try await withServer(clock: clock) { server throws in
            for _ in 0..<15 {
                #expect(try await server.http(.POST, "/auth/session/login", json: RESTTests.demoLogin).status == 200)
            }
            clock.advance(by: 4)
            let limited = try await server.http(.POST, "/auth/session/login", json: RESTTests.demoLogin)
            #expect(limited.status == 429)
            #expect(limited.json?["retry_after"] as? Int == 6000)
            #expect(limited.headers["x-ratelimit-remaining"] == "0")
            #expect(await server.socketCounters().rateLimited == 1)
            // Another bucket is not affected.
            #expect(try await server.http(.GET, "/onboard/hello", token: server.defaultAccount.token).status == 200)
            clock.advance(by: 6.001)
            #expect(try await server.http(.POST, "/auth/session/login", json: RESTTests.demoLogin).status == 200)
        }
    }

    @Test("A tiny bucket from the configuration limits per session, per resource")
    func tinyBucket() async throws {
        var policy = RateLimitPolicy.stoat
        policy.limits["channels"] = 1
        // On a manual clock: the bucket's window (10 s) must not pass between the two requests on a loaded machine.
        try await withServer(clock: ManualClock(), configure: { $0.rateLimits = policy }) { server throws in
            let owner = server.defaultAccount
            let path = "/channels/\(server.lobbyChannelID)"
            #expect(try await server.http(.GET, path, token: owner.token).status == 200)
            #expect(try await server.http(.GET, path, token: owner.token).status == 429)
            let other = await server.createSession(userID: owner.userID)
            #expect(try await server.http(.GET, path, token: other).status == 200)
            let randomChannel = try #require(await server.channel(id: server.lobbyChannelID)?.serverID)
            #expect(try await server.http(.GET, "/servers/\(randomChannel)", token: owner.token).status == 200)
            await server.resetRateLimits()
            #expect(try await server.http(.GET, path, token: owner.token).status == 200)
        }
    }

    @Test("Turned off, nothing is limited and no headers are written")
    func disabled() async throws {
        try await withServer(configure: { $0.rateLimits = .disabled }) { server throws in
            for _ in 0..<25 {
                let answer = try await server.http(.POST, "/auth/session/login", json: RESTTests.demoLogin)
                #expect(answer.status == 200)
                #expect(answer.headers["x-ratelimit-limit"] == nil)
            }
        }
    }

    @Test("A request with an Origin gets rocket_cors's answer for any origin")
    func cors() async throws {
        try await withServer { server throws in
            let answer = try await server.http(.GET, "/", headers: [("Origin", "https://app.example")])
            #expect(answer.headers["access-control-allow-origin"] == "https://app.example")
            #expect(answer.headers["access-control-expose-headers"]?.contains("X-Ratelimit-Remaining") == true)
            let preflight = try await server.http(
                .OPTIONS, "/users/@me",
                headers: [("Origin", "https://app.example"), ("Access-Control-Request-Headers", "x-session-token")])
            #expect(preflight.status == 200)
            #expect(preflight.headers["access-control-allow-headers"] == "x-session-token")
        }
    }
}
