import Testing

@testable import LifelineStoat

/// How `Ready`'s users enter the cache: built in one go into an empty cache, upserted into one that holds users,
/// and by the same rule either way: a user listed twice is the later one.
@Suite("Ready's users in the account cache")
struct AccountCacheReadyUsersTests {
    static func user(_ id: String, _ name: String) -> User {
        User(id: id, username: name, discriminator: "0001", relationship: "None")
    }

    static let twice = Ready(
        users: [user("A", "first"), user("B", "bea"), user("A", "second"), user("C", "cy"), user("B", "bee")])

    @Test("into an empty cache, every user, a user listed twice as its later entry, all pending as one mark")
    func intoEmptyCache() {
        var cache = AccountCache()
        _ = cache.ready(Self.twice)
        #expect(cache.users.count == 3)
        #expect(cache.users["A"]?.username == "second")
        #expect(cache.users["B"]?.username == "bee")
        #expect(cache.users["C"]?.username == "cy")
        #expect(cache.pending.allUsers)
    }

    @Test("into a cache that holds users, the same: a user listed twice is its later entry")
    func intoFilledCache() {
        var cache = AccountCache()
        _ = cache.ready(Ready(users: [Self.user("A", "old"), Self.user("D", "dee")]))
        _ = cache.ready(Self.twice)
        #expect(cache.users["A"]?.username == "second")
        #expect(cache.users["B"]?.username == "bee")
        #expect(cache.users["D"]?.username == "dee")
    }

    @Test("a Ready without users leaves an empty cache empty, and nothing pending")
    func noUsers() {
        var cache = AccountCache()
        _ = cache.ready(Ready())
        #expect(cache.users.isEmpty)
        #expect(!cache.pending.allUsers)
    }
}
