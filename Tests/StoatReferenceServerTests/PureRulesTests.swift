import Foundation
import NIOCore
import Testing

@testable import StoatReferenceServer

@Suite("Pure server rules")
struct PureRulesTests {
    @Test(
        "Usernames are 2–32 letters, digits, underscores, dots or hyphens",
        arguments: [
            ("ab", true), ("a", false), (String(repeating: "x", count: 32), true),
            (String(repeating: "x", count: 33), false), ("under_score.dot-dash", true), ("Zoë", true),
            ("日本語", true), ("with space", false), ("emoji😀", false), ("at@sign", false), ("", false),
            ("zero\u{200B}width", false), ("٣٤", true),
        ])
    func usernames(username: String, valid: Bool) {
        #expect(UsernameRule.isValid(username) == valid)
    }

    @Test("The third wrong password locks for 60 s, the fourth for 300 s, later ones for 3600 s; success clears")
    func lockoutStory() {
        let policy = LoginLockoutPolicy.stoat
        var lockout = LoginLockout()
        let start = Date(timeIntervalSince1970: 1_000_000)
        #expect(lockout.recordFailure(at: start, policy: policy) == nil)
        #expect(lockout.recordFailure(at: start, policy: policy) == nil)
        #expect(lockout.recordFailure(at: start, policy: policy) == start + 60)
        #expect(lockout.isLocked(at: start + 59))
        #expect(!lockout.isLocked(at: start + 60))
        let second = start + 100
        #expect(lockout.recordFailure(at: second, policy: policy) == second + 300)
        let third = second + 400
        #expect(lockout.recordFailure(at: third, policy: policy) == third + 3600)
        let fourth = third + 4000
        #expect(lockout.recordFailure(at: fourth, policy: policy) == fourth + 3600)
        #expect(lockout.attempts == 6)
        lockout.recordSuccess()
        #expect(lockout == LoginLockout())
    }

    @Test(
        "Only loopback peers may call the admin API",
        arguments: [
            ("127.0.0.1", true), ("127.8.9.10", true), ("::1", true), ("::ffff:127.0.0.1", true),
            ("10.0.0.1", false), ("192.168.1.20", false), ("128.0.0.1", false), ("::2", false),
            ("2001:db8::1", false), ("::ffff:10.0.0.1", false),
        ])
    func adminPeers(address: String, allowed: Bool) throws {
        #expect(AdminAccess.isAllowed(try SocketAddress(ipAddress: address, port: 4000)) == allowed)
    }

    @Test("An unknown peer is refused and a Unix socket peer is allowed")
    func adminPeerEdges() throws {
        #expect(!AdminAccess.isAllowed(nil))
        #expect(AdminAccess.isAllowed(try SocketAddress(unixDomainSocketPath: "/tmp/lifeline-admin.sock")))
    }

    @Test(
        "Client frames parse into what the server does with them",
        arguments: [
            (#"{"type":"Authenticate","token":"abc"}"#, ClientFrame.authenticate(token: "abc")),
            (#"{"type":"Ping","data":1719400000000}"#, .ping(.number(1_719_400_000_000))),
            (#"{"type":"Ping","data":0}"#, .ping(.number(0))),
            (#"{"type":"Ping","data":[1,2,255]}"#, .ping(.bytes([1, 2, 255]))),
            (#"{"type":"Ping","data":-1}"#, .pingWithInvalidData),
            (#"{"type":"Ping","data":1.5}"#, .pingWithInvalidData),
            (#"{"type":"Ping","data":"12"}"#, .pingWithInvalidData),
            (#"{"type":"Ping","data":[256]}"#, .pingWithInvalidData),
            (#"{"type":"Ping"}"#, .pingWithInvalidData),
            (#"{"type":"Subscribe","server_id":"S1"}"#, .subscribe(serverID: "S1")),
            (#"{"type":"BeginTyping","channel":"C1"}"#, .beginTyping(channel: "C1")),
            (#"{"type":"EndTyping","channel":"C1"}"#, .endTyping(channel: "C1")),
            (#"{"type":"Dance"}"#, .unknown(type: "Dance")),
            (#"{"type":"Authenticate","token":5}"#, .malformed),
            (#"{"token":"abc"}"#, .malformed),
            (#"[1,2,3]"#, .malformed),
            (#"{"type":"Ping","data":"#, .malformed),
            ("not json at all", .malformed),
        ])
    func clientFrames(text: String, expected: ClientFrame) {
        #expect(ClientFrame(text: text) == expected)
    }

    @Test("The ready filter keeps named fields, ignores unknown ones and user_settings, and defaults as bonfire")
    func readyFilter() {
        #expect(
            ReadyFilter(queryValues: []).fields
                == ["users", "servers", "channels", "members", "emojis", "voice_states", "policy_changes"])
        #expect(ReadyFilter(queryValues: ["users", "servers", "bogus"]).fields == ["users", "servers"])
        #expect(ReadyFilter(queryValues: ["user_settings[ordering]", "user_settings"]).fields.isEmpty)
        #expect(ReadyFilter(queryValues: ["channel_unreads"]).fields == ["channel_unreads"])
        #expect(ReadyFilter(queryValues: ["bogus"]).fields.isEmpty)
    }

    @Test("TOTP codes match RFC 6238's SHA-1 test vectors")
    func totpVectors() {
        let secret = Array("12345678901234567890".utf8)
        #expect(TOTP.code(secret: secret, at: Date(timeIntervalSince1970: 59), digits: 8) == "94287082")
        #expect(TOTP.code(secret: secret, at: Date(timeIntervalSince1970: 1_111_111_109), digits: 8) == "07081804")
        #expect(TOTP.code(secret: secret, at: Date(timeIntervalSince1970: 2_000_000_000), digits: 8) == "69279037")
        #expect(TOTP.verify("287082", secret: secret, at: Date(timeIntervalSince1970: 59 + 30)))
        #expect(!TOTP.verify("287082", secret: secret, at: Date(timeIntervalSince1970: 59 + 90)))
    }

    @Test("Password hashes are salted and verify only the right password")
    func passwordHash() {
        let first = PasswordHash.make("correct horse")
        let second = PasswordHash.make("correct horse")
        #expect(first != second)
        #expect(!first.encoded.contains("correct"))
        #expect(first.verify("correct horse"))
        #expect(!first.verify("correct horsE"))
        #expect(!PasswordHash(encoded: "garbage").verify("correct horse"))
    }

    @Test("Models are written field for field in stoatchat's order, leaving out what serde skips")
    func wireShapes() throws {
        #expect(
            StoatUser(id: "U1", username: "ann").wire.text
                == #"{"_id":"U1","username":"ann","discriminator":"0001","relationship":"None","online":false}"#)
        #expect(
            StoatUser(id: "B", username: "bot", flags: 4, botOwner: "U1").wire.text
                == #"{"_id":"B","username":"bot","discriminator":"0001","flags":4,"bot":{"owner":"U1"},"relationship":"None","online":false}"#
        )
        #expect(
            StoatChannel.textChannel(id: "C1", server: "S1", name: "general", description: nil, slowmode: 5).wire.text
                == #"{"channel_type":"TextChannel","_id":"C1","server":"S1","name":"general","slowmode":5}"#)
        #expect(
            StoatChannel.directMessage(id: "D", active: true, recipients: ["A", "B"]).wire.text
                == #"{"channel_type":"DirectMessage","_id":"D","active":true,"recipients":["A","B"]}"#)
        let joined = Date(timeIntervalSince1970: 1_735_689_600)
        #expect(
            StoatMember(serverID: "S1", userID: "U1", joinedAt: joined, timeout: joined).wire.text
                == #"{"_id":{"server":"S1","user":"U1"},"joined_at":"2025-01-01T00:00:00.000Z","timeout":"2025-01-01T00:00:00.000Z"}"#
        )
        #expect(
            StoatEmoji(id: "E1", serverID: "S1", creatorID: "U1", name: "wave").wire.text
                == #"{"_id":"E1","parent":{"type":"Server","id":"S1"},"creator_id":"U1","name":"wave"}"#)
        #expect(
            APIError.missing(.viewChannel, at: "here").wire.text
                == #"{"type":"MissingPermission","permission":"ViewChannel","location":"here"}"#)
        #expect(Wire.string("a\"b\\c\n\u{01}/é").text == #""a\"b\\c\n\u0001/é""#)
        let decoded = try JSONDecoder().decode(
            StoatChannel.self,
            from: JSONEncoder().encode(StoatChannel.group(id: "G", name: "g", owner: "U", recipients: ["U"])))
        #expect(decoded == .group(id: "G", name: "g", owner: "U", recipients: ["U"]))
    }

    @Test("HTTP dates use the IMF-fixdate format in GMT")
    func httpDate() {
        #expect(HTTPDate.string(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test(
        "Blocked usernames answer InvalidUsername; others pass",
        arguments: [
            ("admin", true), ("ADMIN", true), ("Stoat", true), ("revolt", true), ("admins", false),
            ("my.discord.gg", true), ("stt.gg", true), ("Stoat.Chat", true), ("revolt.chat.fan", true),
            ("chat.stoat", false), ("rvlt.gg", true), ("ordinary_name", false),
        ])
    func blockedUsernames(username: String, blocked: Bool) {
        #expect(UsernameRule.isBlocked(username) == blocked)
    }

    @Test("Discriminators are 0002 to 9998 without the eleven blocked ones")
    func discriminators() {
        let set = UsernameRule.discriminators
        #expect(set.count == 9986)
        #expect(set.contains("0002") && set.contains("9998"))
        for blocked in ["0001", "0123", "1234", "1111", "8888", "1488", "9999"] { #expect(!set.contains(blocked)) }
    }

    @Test(
        "Emails are matched as stoatchat normalises them",
        arguments: [
            ("Demo@Lifeline.Test", "demo@lifeline.test"), ("d.e.m.o@x.io", "demo@x.io"),
            ("demo+tag@x.io", "demo@x.io"), ("de.mo+t.a.g@X.io", "demo@x.io"), ("demo+@x.io", "demo+@x.io"),
            ("@demo@x.io", "demo@x.io"),
        ])
    func emailNormalisation(email: String, normalised: String) {
        #expect(EmailAddress.normalised(email) == normalised)
    }

    @Test("An email without an @ followed by something has no normal form")
    func emailWithoutAt() {
        #expect(EmailAddress.normalised("nobody") == nil)
        #expect(EmailAddress.normalised("nobody@") == nil)
    }

    @Test("SipHash-2-4 matches the reference vector, so SipHash-1-3 (Rust's DefaultHasher) is the same code")
    func sipHash() {
        var hasher = SipHasher(
            compressionRounds: 2, finalizationRounds: 4, key: (0x0706_0504_0302_0100, 0x0F0E_0D0C_0B0A_0908))
        hasher.write(Array(0..<15))
        #expect(hasher.finish() == 0xA129_CA61_49BE_45E5)
        var split = SipHasher(
            compressionRounds: 2, finalizationRounds: 4, key: (0x0706_0504_0302_0100, 0x0F0E_0D0C_0B0A_0908))
        split.write(Array(0..<5))
        split.write(Array(5..<15))
        #expect(split.finish() == 0xA129_CA61_49BE_45E5)
        #expect(
            RateLimiter.key(identifier: "127.0.0.1", bucket: "auth", resource: nil)
                != RateLimiter.key(identifier: "127.0.0.1", bucket: "any", resource: nil))
    }

    @Test(
        "Requests fall in stoatchat's rate-limit buckets",
        arguments: [
            ("PATCH", "/users/@me", "user_edit", "@me"), ("GET", "/users/U1", "users", nil),
            ("GET", "/users/U1/default_avatar", "default_avatar", nil), ("GET", "/bots/B", "bots", nil),
            ("POST", "/channels/C1/messages", "messaging", "C1"), ("GET", "/channels/C1/messages", "channels", "C1"),
            ("GET", "/channels", "any", nil), ("GET", "/servers/S1/members", "servers", "S1"),
            ("POST", "/auth/session/login", "auth", nil), ("DELETE", "/auth/session/X", "auth_delete", nil),
            ("POST", "/safety/report", "safety_report", "report"), ("GET", "/", "any", nil),
            ("GET", "/0.8/servers/S1", "servers", "S1"), ("GET", "/onboard/hello", "any", nil),
        ])
    func buckets(method: String, path: String, bucket: String, resource: String?) {
        let resolved = RateLimitPolicy.bucket(method: method, path: path)
        #expect(resolved.bucket == bucket)
        #expect(resolved.resource == resource)
    }

    @Test("A bucket allows its limit per window from its first request, then answers the time to its reset")
    func rateLimiterWindow() {
        var limiter = RateLimiter()
        let first = limiter.take(key: 1, limit: 2, now: 1000, window: 10_000)
        #expect(first == .init(key: 1, limit: 2, remaining: 1, resetAfter: 10_000, allowed: true))
        #expect(limiter.take(key: 1, limit: 2, now: 4000, window: 10_000).remaining == 0)
        let refused = limiter.take(key: 1, limit: 2, now: 5000, window: 10_000)
        #expect(!refused.allowed && refused.resetAfter == 6000)
        #expect(limiter.take(key: 2, limit: 2, now: 5000, window: 10_000).allowed)
        #expect(!limiter.take(key: 1, limit: 2, now: 11_000, window: 10_000).allowed)
        let renewed = limiter.take(key: 1, limit: 2, now: 11_001, window: 10_000)
        #expect(renewed.allowed && renewed.remaining == 1 && renewed.resetAfter == 10_000)
    }

    @Test(
        "Rocket's catcher answers JSON only when Accept prefers application/json",
        arguments: [
            (nil, false), ("application/json", true), ("text/html", false), ("*/*", false),
            ("text/html;q=0.5, application/json", true), ("application/json;q=0.2, text/html", false),
            ("application/json, text/html", true), ("APPLICATION/JSON", true),
        ] as [(String?, Bool)])
    func catcherMedia(accept: String?, json: Bool) {
        #expect(FrameworkCatcher.prefersJSON(accept) == json)
        #expect(
            FrameworkCatcher.body(status: 401, accept: accept).contentType.hasPrefix(
                json ? "application/json" : "text/html"))
    }

    @Test(
        "The admin API accepts only loopback Host headers and no foreign Origin",
        arguments: [
            ("127.0.0.1", true), ("127.0.0.1:8080", true), ("localhost:1", true), ("LOCALHOST", true),
            ("[::1]:9", true), ("127.1.2.3", true), ("evil.example", false), ("evil.example:80", false),
            ("localhost.evil.example", false), ("10.0.0.1", false), ("", false), ("127.0.0.1:x", false),
            ("[::2]:9", false),
        ])
    func adminHosts(host: String, allowed: Bool) {
        #expect(AdminAccess.isLoopbackHost(host) == allowed)
    }

    @Test(
        "The admin API refuses origins that are not loopback",
        arguments: [
            (nil, true), ("http://localhost:3000", true), ("https://127.0.0.1", true), ("http://[::1]:5", true),
            ("https://evil.example", false), ("null", false), ("http://localhost.evil.example", false),
            ("http://user@localhost", false), ("file://", false),
        ] as [(String?, Bool)])
    func adminOrigins(origin: String?, allowed: Bool) {
        #expect(AdminAccess.isAllowedOrigin(origin) == allowed)
    }

    @Test("Within one millisecond, message ids still sort in creation order")
    func monotonicIDs() {
        var generator = MonotonicULID()
        let instant = Date(timeIntervalSince1970: 1_750_000_000)
        let ids = (0..<1000).map { _ in generator.next(at: instant) }
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == 1000)
        #expect(Identifiers.time(ofULID: ids[0]) == instant)
    }
}
