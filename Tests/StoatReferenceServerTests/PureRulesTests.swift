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

    @Test("Three wrong passwords lock for 60 s, the next three for 300 s, then 3600 s; success resets")
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
        lockout.recordFailure(at: second, policy: policy)
        lockout.recordFailure(at: second, policy: policy)
        #expect(lockout.recordFailure(at: second, policy: policy) == second + 300)
        let third = second + 400
        lockout.recordFailure(at: third, policy: policy)
        lockout.recordFailure(at: third, policy: policy)
        #expect(lockout.recordFailure(at: third, policy: policy) == third + 3600)
        let fourth = third + 4000
        lockout.recordFailure(at: fourth, policy: policy)
        lockout.recordFailure(at: fourth, policy: policy)
        #expect(lockout.recordFailure(at: fourth, policy: policy) == fourth + 3600)
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

    @Test("The ready filter keeps named fields, ignores unknown ones, and means everything when absent")
    func readyFilter() {
        #expect(ReadyFilter(queryValues: []).fields == ReadyFilter.allFields)
        #expect(ReadyFilter(queryValues: ["users", "servers", "bogus"]).fields == ["users", "servers"])
        #expect(ReadyFilter(queryValues: ["user_settings[ordering]"]).fields == ["user_settings"])
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

    @Test("Models encode to Stoat's wire shapes, omitting zero flags and tagging channels")
    func wireShapes() throws {
        func json(_ value: some Encodable) throws -> [String: Any] {
            try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
        }
        let user = try json(StoatUser(id: "U1", username: "ann"))
        #expect(user["_id"] as? String == "U1")
        #expect(user["flags"] == nil)
        #expect(user["relationship"] as? String == "None")
        #expect(try json(StoatUser(id: "U1", username: "ann", flags: 4))["flags"] as? Int == 4)
        let channel = try json(StoatChannel.textChannel(id: "C1", server: "S1", name: "general", description: nil))
        #expect(channel["channel_type"] as? String == "TextChannel")
        #expect(channel["server"] as? String == "S1")
        let member = try json(StoatMember(serverID: "S1", userID: "U1", joinedAt: "2025-01-01T00:00:00.000Z"))
        #expect(member["_id"] as? [String: String] == ["server": "S1", "user": "U1"])
        let emoji = try json(StoatEmoji(id: "E1", serverID: "S1", creatorID: "U1", name: "wave"))
        #expect(emoji["parent"] as? [String: String] == ["type": "Server", "id": "S1"])
        let decoded = try JSONDecoder().decode(
            StoatChannel.self,
            from: JSONEncoder().encode(StoatChannel.group(id: "G", name: "g", owner: "U", recipients: ["U"])))
        #expect(decoded == .group(id: "G", name: "g", owner: "U", recipients: ["U"]))
    }

    @Test("HTTP dates use the IMF-fixdate format in GMT")
    func httpDate() {
        #expect(HTTPDate.string(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }
}
