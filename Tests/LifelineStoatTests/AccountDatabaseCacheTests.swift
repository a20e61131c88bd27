import Foundation
import LifelineCore
import LifelineStore
import Testing

@testable import LifelineStoat
@testable import LifelineStoatStore

/// A verifier that accepts any password, for stores made in tests.
struct AcceptingVerifier: PasswordVerifier {
    var server: ServerIdentity { ServerIdentity("https://api.example.com")! }

    func verifyPassword(email: String, password: String) async -> PasswordVerification {
        .verified(SessionCredentials(token: "token", userID: "user"))
    }

    func endSession(_ session: SessionCredentials) async {}
}

@Suite("The cache's records in the account store")
struct AccountDatabaseCacheTests {
    let stores = TemporaryStore()

    func persistence() async throws -> AccountDatabaseCache {
        let outcome = await stores.store.signIn(email: "a@example.com", password: "pw", verifier: AcceptingVerifier())
        return AccountDatabaseCache(database: try #require(outcome.database), messagesPerChat: 100)
    }

    @Test("plain and rich messages, chats of every kind, members and users come back as they went in")
    func roundTrip() async throws {
        let persistence = try await persistence()
        let world = World()
        let plain = world.message(5_000, in: world.general, "plain text")
        var rich = world.message(6_000, in: world.general, "with a reply")
        rich.replies = [plain.id]
        rich.attachments = [File(id: "file", tag: "attachments", filename: "a.png", contentType: "image/png", size: 3)]
        rich.masquerade = Message.Masquerade(name: "Bot")
        #expect(AccountDatabaseCache.isPlain(plain))
        #expect(!AccountDatabaseCache.isPlain(rich))
        let chats = [
            Chat(
                id: world.general, kind: .textChannel, name: "general", serverID: world.server,
                lastActivity: Date(timeIntervalSince1970: 6), lastMessage: rich),
            Chat(id: world.dm, kind: .directMessage, name: "Friend", lastActivity: Date(timeIntervalSince1970: 4)),
            Chat(
                id: world.notes, kind: .savedMessages, name: "Saved Notes", lastActivity: Date(timeIntervalSince1970: 3)
            ),
        ]
        let until = Date(timeIntervalSince1970: 1_000_000)
        let member = Member(id: Member.ID(server: world.server, user: world.friend.id), nickname: "F", timeout: until)
        try await persistence.write(
            CacheWriteBatch(chats: chats, users: [world.friend], messages: [plain, rich], members: [member]))
        #expect(try await persistence.recentChats(limit: 10) == chats)
        #expect(try await persistence.messages(in: world.general, limit: 10) == [plain, rich])
        #expect(try await persistence.members(in: world.server) == [member])
        #expect(try await persistence.users([world.friend.id, "unknown"]) == [world.friend])
        #expect(try await persistence.chats(olderThan: chats[0]) == Array(chats.dropFirst()))
    }

    @Test("deletions remove what the batch names")
    func deletions() async throws {
        let persistence = try await persistence()
        let world = World()
        let message = world.message(5_000, in: world.general, "gone soon")
        let chat = Chat(
            id: world.general, kind: .textChannel, name: "general", lastActivity: Date(timeIntervalSince1970: 5))
        let member = Member(id: Member.ID(server: world.server, user: world.me.id))
        try await persistence.write(CacheWriteBatch(chats: [chat], messages: [message], members: [member]))
        try await persistence.write(
            CacheWriteBatch(
                deletedChats: [chat.id], deletedMessages: [.init(channel: world.general, id: message.id)],
                deletedMembers: [member.id]))
        #expect(try await persistence.recentChats(limit: 10).isEmpty)
        #expect(try await persistence.messages(in: world.general, limit: 10).isEmpty)
        #expect(try await persistence.members(in: world.server).isEmpty)
    }
}
