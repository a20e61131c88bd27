import Foundation
import LifelineCore
import Testing

/// `SessionCredentials` keeps its fields in a shared box (so a machine's transition copies one reference), and
/// still behaves as the plain value it was.
@Suite("Session credentials: a value, whatever its storage")
struct SessionCredentialsTests {
    static let issuer = ServerIdentity("https://stoat.example/api")

    @Test("setting a field of a copy leaves the original as it was")
    func valueSemantics() {
        let original = SessionCredentials(token: "t", userID: "u", sessionID: "s", issuer: Self.issuer)
        var copy = original
        copy.token = "other"
        copy.userID = nil
        copy.sessionID = "s2"
        copy.issuer = nil
        #expect(original.token == "t")
        #expect(original.userID == "u")
        #expect(original.sessionID == "s")
        #expect(original.issuer == Self.issuer)
        #expect(copy == SessionCredentials(token: "other", sessionID: "s2"))
        #expect(copy != original)
    }

    @Test("equal credentials hash alike, whichever boxes hold them; each field counts")
    func equalityAndHashing() {
        let one = SessionCredentials(token: "t", userID: "u", sessionID: "s", issuer: Self.issuer)
        let two = SessionCredentials(token: "t", userID: "u", sessionID: "s", issuer: Self.issuer)
        #expect(one == two)
        #expect(Set([one, two]).count == 1)
        var other = one
        other.issuer = ServerIdentity("https://elsewhere.example/api")
        #expect(one != other)
        #expect(Set([one, other]).count == 2)
    }

    @Test("the JSON keeps the synthesized shape: four keys by name, absent ones left out")
    func encodedShape() throws {
        let full = SessionCredentials(token: "t", userID: "u", sessionID: "s", issuer: Self.issuer)
        let object = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(full)) as? [String: Any])
        #expect(Set(object.keys) == ["token", "userID", "sessionID", "issuer"])
        let bare = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(SessionCredentials(token: "t")))
                as? [String: Any])
        #expect(Set(bare.keys) == ["token"])
        #expect(try JSONDecoder().decode(SessionCredentials.self, from: JSONEncoder().encode(full)) == full)
    }
}
