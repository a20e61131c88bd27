import Foundation
import Testing

@testable import LifelineStoat

/// `User` keeps its fields in one copy-on-write box: it must still behave as the plain value it was — copies
/// independent, equality and hashing by fields, the same encoded keys.
@Suite("User's storage")
struct UserStorageTests {
    static let full = FastReadyDecoderKeysTests.everyField.users[0]

    /// One change to each field of `user`, named.
    static func changes(of user: User) -> [(String, User)] {
        func changed(_ body: (inout User) -> Void) -> User {
            var copy = user
            body(&copy)
            return copy
        }
        return [
            ("id", changed { $0.id += "x" }), ("username", changed { $0.username += "x" }),
            ("discriminator", changed { $0.discriminator += "x" }), ("displayName", changed { $0.displayName = nil }),
            ("pronouns", changed { $0.pronouns = "they" }), ("avatar", changed { $0.avatar?.size = 99 }),
            ("relations", changed { $0.relations?.append(.init(userID: "W", status: "Blocked")) }),
            ("badges", changed { $0.badges = 0 }), ("status", changed { $0.status?.text = "u" }),
            ("flags", changed { $0.flags += 1 }), ("privileged", changed { $0.privileged = false }),
            ("bot", changed { $0.bot = nil }), ("relationship", changed { $0.relationship = "Friend" }),
            ("online", changed { $0.online = false }),
        ]
    }

    @Test("a copy is a value of its own: changing it, field by field, leaves the original as it was")
    func valueSemantics() {
        let original = Self.full
        let before = original
        for (name, changed) in Self.changes(of: original) {
            #expect(changed != original, "\(name)")
            #expect(original == before, "changing \(name) of a copy changed the original")
        }
        #expect(original.status?.text == "t" && original.avatar?.size == 3 && original.relations?.count == 1)
        var unique = User(id: "U", username: "u", discriminator: "")
        unique.displayName = "A"
        unique.displayName? += "B"
        #expect(unique.displayName == "AB")
    }

    @Test("equal and hashed alike when the fields are, whatever box holds them; any field tells two users apart")
    func equalityAndHashing() throws {
        let rebuilt = try JSONDecoder().decode(User.self, from: JSONEncoder().encode(Self.full))
        #expect(rebuilt == Self.full)
        #expect(rebuilt.hashValue == Self.full.hashValue)
        let changes = Self.changes(of: Self.full)
        #expect(Set(changes.map(\.1)).count == changes.count, "every one-field change is a different user")
        #expect(Set(changes.map(\.1) + [Self.full, rebuilt]).count == changes.count + 1)
    }

    @Test("encoded under the wire names, absent fields left out, as the synthesized conformance did")
    func encodedKeys() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let minimal = User(id: "U", username: "u", discriminator: "")
        #expect(
            String(decoding: try encoder.encode(minimal), as: UTF8.self)
                == #"{"_id":"U","discriminator":"","flags":0,"username":"u"}"#)
        let object = try #require(
            try JSONSerialization.jsonObject(with: encoder.encode(Self.full)) as? [String: Any])
        #expect(Set(object.keys) == Set(User.CodingKeys.allCases.map(\.rawValue)))
    }

    @Test("a user is one reference wide, and prints its fields, not its box")
    func layout() {
        #expect(MemoryLayout<User>.size == MemoryLayout<AnyObject>.size)
        let text = String(describing: Self.full)
        #expect(text.hasPrefix(#"User(id: "U", username: "ann", discriminator: "0001", displayName: Optional("Ann")"#))
    }
}
