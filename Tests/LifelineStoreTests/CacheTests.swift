import Foundation
import GRDB
import LifelineCore
import Testing

@testable import LifelineStore

@Suite("The account's cache: batch writes and reads")
struct CacheTests {
    let directory: TemporaryDirectory
    let database: AccountDatabase

    init() async throws {
        directory = try TemporaryDirectory()
        database = try await directory.store()
            .signIn(email: testEmail, password: testPassword, verifier: FakeServer()).requireDatabase
    }

    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("Every record type round-trips with all its fields")
    func roundTrip() async throws {
        let space = CachedSpace(id: "space-1", name: "Lovelace Society", details: Data([1, 2, 3]))
        let chat = CachedChat(
            id: "chat-1",
            kind: .channel,
            name: "general",
            parentID: space.id,
            lastActivity: Self.start,
            lastMessageID: "m-9",
            unreadCount: 4,
            details: Data("icon".utf8)
        )
        let dm = CachedChat(
            id: "dm-1", kind: .directMessage, name: "Charles", lastActivity: Self.start.addingTimeInterval(-5))
        let notes = CachedChat(
            id: "notes", kind: .savedNotes, name: "Saved notes", lastActivity: Self.start.addingTimeInterval(-9))
        let custom = CachedChat(
            id: "x", kind: CachedChat.Kind(rawValue: "voice"), name: "Voice",
            lastActivity: Self.start.addingTimeInterval(-20))
        let member = CachedMember(
            spaceID: space.id,
            userID: "user-1",
            nickname: "Countess",
            roles: ["role-a", "role-b"],
            timeout: Self.start.addingTimeInterval(3_600),
            details: Data([9])
        )
        let plainMember = CachedMember(spaceID: space.id, userID: "user-2")
        let user = CachedUser(id: "user-1", username: "ada#0001", displayName: "Ada", details: Data([7, 7]))
        let plainUser = CachedUser(id: "user-2", username: "charles")
        let messages = sampleMessages(chat: chat.id, count: 3, start: Self.start.addingTimeInterval(-60))
        try await database.apply(
            [
                .upsertSpace(space), .upsertChat(chat), .upsertChat(dm), .upsertChat(notes), .upsertChat(custom),
                .upsertMember(member), .upsertMember(plainMember), .upsertUser(user), .upsertUser(plainUser),
            ] + messages.map { .upsertMessage($0) }
        )

        var expectedChat = chat
        expectedChat.lastMessage = messages.last
        #expect(try await database.recentChats() == [expectedChat, dm, notes, custom])
        #expect(try await database.chat(id: chat.id) == expectedChat)
        #expect(try await database.chat(id: "absent") == nil)
        #expect(try await database.spaces() == [space])
        #expect(try await database.space(id: space.id) == space)
        #expect(try await database.members(inSpace: space.id) == [member, plainMember])
        #expect(try await database.member(inSpace: space.id, userID: "user-1") == member)
        #expect(
            try await database.users(ids: ["user-1", "user-2", "nobody"]) == ["user-1": user, "user-2": plainUser])
        #expect(try await database.user(id: "nobody") == nil)
        #expect(try await database.messages(inChat: chat.id, limit: 10) == messages.reversed())
    }

    @Test("The first screen: the most recent chats newest first, each with its newest message; then the rest")
    func firstScreenWithLastMessages() async throws {
        let chats = sampleChats(count: 25)
        var changes = chats.map { CacheChange.upsertChat($0) }
        var expected: [String: CachedMessage] = [:]
        for chat in chats.prefix(20) {
            let messages = sampleMessages(chat: chat.id, count: 4, start: chat.lastActivity.addingTimeInterval(-10))
            changes += messages.shuffled().map { .upsertMessage($0) }
            expected[chat.id] = messages.last
        }
        try await database.apply(changes.shuffled())

        let ordered = chats.sorted { $0.lastActivity > $1.lastActivity }.map { chat in
            var chat = chat
            chat.lastMessage = expected[chat.id]
            return chat
        }
        let first = try await database.recentChats(limit: 10)
        #expect(first == Array(ordered.prefix(10)))
        let rest = try await database.chats(olderThan: try #require(first.last))
        #expect(rest == Array(ordered.dropFirst(10)))
        #expect(try await database.allChats() == ordered)
    }

    @Test("A chat upserted with its last message stores the message with the chat's messages")
    func chatCarriesLastMessage() async throws {
        let message = CachedMessage(id: "m1", chatID: "c", authorID: "u", body: "hi", sentAt: Self.start)
        let chat = CachedChat(id: "c", name: "C", lastActivity: Self.start, lastMessage: message)
        try await database.apply([.upsertChat(chat)])
        #expect(try await database.messages(inChat: "c", limit: 5) == [message])
        #expect(try await database.recentChats() == [chat])
        // An upsert without a last message leaves the messages alone.
        var renamed = chat
        renamed.name = "Renamed"
        renamed.lastMessage = nil
        try await database.apply([.upsertChat(renamed)])
        renamed.lastMessage = message
        #expect(try await database.recentChats() == [renamed])
    }

    @Test("Each touched chat keeps only its newest N messages; untouched chats are not trimmed")
    func trimming() async throws {
        let busy = sampleMessages(chat: "busy", count: 30)
        let quiet = sampleMessages(chat: "quiet", count: 12)
        try await database.saveMessages(quiet, perChat: 100)
        try await database.saveMessages(busy.shuffled(), perChat: 10)
        #expect(try await database.messages(inChat: "busy", limit: 100) == Array(busy.suffix(10).reversed()))
        #expect(try await database.messages(inChat: "quiet", limit: 100).count == 12)

        // An older message arriving later is trimmed away at once; a newer one pushes out the oldest.
        let old = CachedMessage(id: "old", chatID: "busy", authorID: "u", body: "late", sentAt: Self.start)
        let new = CachedMessage(
            id: "new", chatID: "busy", authorID: "u", body: "new", sentAt: Self.start.addingTimeInterval(1_000))
        try await database.saveMessages([old, new], perChat: 10)
        #expect(try await database.messages(inChat: "busy", limit: 100) == [new] + busy.suffix(9).reversed())
    }

    @Test("The default keeps 100 messages per chat, the newest")
    func defaultTrim() async throws {
        let messages = sampleMessages(chat: "c", count: 130)
        for batch in stride(from: 0, to: messages.count, by: 40) {
            try await database.saveMessages(Array(messages[batch..<min(batch + 40, messages.count)]))
        }
        let kept = try await database.messages(inChat: "c", limit: 1_000)
        #expect(AccountDatabase.defaultMessagesPerChat == 100)
        #expect(kept == Array(messages.suffix(100).reversed()))
    }

    @Test("Messages with the same send time are trimmed and paged consistently, by their keyed tag")
    func equalSendTimes() async throws {
        let messages = (0..<8).map {
            CachedMessage(id: "same-\($0)", chatID: "c", authorID: "u", body: "\($0)", sentAt: Self.start)
        }
        try await database.saveMessages(messages, perChat: 5)
        let kept = try await database.messages(inChat: "c", limit: 10)
        #expect(kept.count == 5)
        #expect(Set(kept).isSubset(of: Set(messages)))
        #expect(try await database.messages(inChat: "c", limit: 10, order: .oldestFirst) == kept.reversed())
        #expect(try await database.chat(id: "c") == nil)
    }

    @Test("A chat's last message is the one it names, also when others share its send time")
    func lastMessageByID() async throws {
        var chat = CachedChat(id: "chat-1", name: "general", lastActivity: Self.start)
        let sameTime = ["m-a", "m-b", "m-c"].map {
            CachedMessage(id: $0, chatID: chat.id, authorID: "user-1", body: $0, sentAt: Self.start)
        }
        try await database.apply(sameTime.map { .upsertMessage($0) } + [.upsertChat(chat)])
        // Without a name, the newest by time wins, and the keyed tag breaks the tie: some message.
        let byTime = try #require(try await database.recentChats(limit: 1).first?.lastMessage?.id)
        let named = try #require(sameTime.map(\.id).first { $0 != byTime })
        chat.lastMessageID = named
        try await database.apply([.upsertChat(chat)])
        #expect(try await database.recentChats(limit: 1).first?.lastMessage?.id == named)
        // A name the store does not hold falls back to the newest by time.
        chat.lastMessageID = "m-missing"
        try await database.apply([.upsertChat(chat)])
        #expect(try await database.recentChats(limit: 1).first?.lastMessage?.id == byTime)
    }

    @Test("Messages newest first or oldest first, with a limit")
    func messageOrder() async throws {
        let messages = sampleMessages(chat: "c", count: 9)
        try await database.saveMessages(messages.shuffled())
        #expect(try await database.messages(inChat: "c", limit: 3) == Array(messages.suffix(3).reversed()))
        #expect(try await database.messages(inChat: "c", limit: 3, order: .oldestFirst) == Array(messages.prefix(3)))
        #expect(try await database.messages(inChat: "c", limit: 0).isEmpty)
        #expect(try await database.messages(inChat: "other", limit: 3).isEmpty)
    }

    @Test("Changes apply in order: upsert then delete ends deleted, delete then upsert ends present")
    func changeOrder() async throws {
        let user = CachedUser(id: "u", username: "ada")
        let message = CachedMessage(id: "m", chatID: "c", authorID: "u", body: "b", sentAt: Self.start)
        try await database.apply([
            .upsertUser(user), .deleteUser(id: "u"), .upsertMessage(message), .deleteMessage(id: "m"),
        ])
        #expect(try await database.user(id: "u") == nil)
        #expect(try await database.messages(inChat: "c", limit: 5).isEmpty)
        try await database.apply([
            .deleteUser(id: "u"), .upsertUser(user), .deleteMessage(id: "m"), .upsertMessage(message),
        ])
        #expect(try await database.user(id: "u") == user)
        #expect(try await database.messages(inChat: "c", limit: 5) == [message])
    }

    @Test("Deleting a chat deletes its messages; deleting a space deletes its members only")
    func cascades() async throws {
        let spaces = [CachedSpace(id: "s1", name: "One"), CachedSpace(id: "s2", name: "Two")]
        let members = ["s1", "s2"].flatMap { space in
            (0..<3).map { CachedMember(spaceID: space, userID: "u\($0)", roles: ["r"]) }
        }
        let chats = [
            CachedChat(id: "c1", name: "c1", parentID: "s1", lastActivity: Self.start),
            CachedChat(id: "c2", name: "c2", parentID: "s2", lastActivity: Self.start),
        ]
        try await database.apply(
            spaces.map { .upsertSpace($0) } + members.map { .upsertMember($0) } + chats.map { .upsertChat($0) }
                + sampleMessages(chat: "c1", count: 3).map { .upsertMessage($0) }
                + sampleMessages(chat: "c2", count: 3).map { .upsertMessage($0) }
        )
        try await database.apply([
            .deleteChat(id: "c1"), .deleteSpace(id: "s1"), .deleteMember(spaceID: "s2", userID: "u0"),
        ])
        #expect(try await database.messages(inChat: "c1", limit: 10).isEmpty)
        #expect(try await database.messages(inChat: "c2", limit: 10).count == 3)
        #expect(try await database.spaces() == [spaces[1]])
        #expect(try await database.members(inSpace: "s1").isEmpty)
        #expect(try await database.members(inSpace: "s2").map(\.userID) == ["u1", "u2"])
        #expect(try await database.allChats().map(\.id) == ["c2"])
    }

    @Test("A batch that fails part-way changes nothing: all or nothing")
    func allOrNothing() async throws {
        let before = sampleChats(count: 5)
        try await database.saveChats(before)
        // A trigger that fails the batch's last change, for real, inside SQLite.
        try await database.queue.write { db in
            try db.execute(
                sql: """
                    CREATE TEMP TRIGGER refuse BEFORE INSERT ON user WHEN NEW.payload IS NOT NULL
                    BEGIN SELECT RAISE(ABORT, 'refused'); END
                    """
            )
        }
        let error = await #expect(throws: StoreError.self) {
            try await database.apply(
                [.deleteChat(id: "chat-0"), .upsertChat(CachedChat(id: "new", name: "New", lastActivity: Self.start))]
                    + sampleMessages(chat: "chat-1", count: 5).map { .upsertMessage($0) }
                    + [.upsertUser(CachedUser(id: "u", username: "u"))]
            )
        }
        #expect(error?.code == .storage)
        #expect(try await database.allChats() == before.sorted { $0.lastActivity > $1.lastActivity })
        #expect(try await database.messages(inChat: "chat-1", limit: 10).isEmpty)
    }

    @Test("A batch on a full disk is a typed diskFull error, and nothing already stored is lost or damaged")
    func diskFull() async throws {
        let chats = sampleChats(count: 50)
        try await database.saveChats(chats)
        try await database.saveMessages(sampleMessages(chat: "chat-3", count: 20))
        let before = try await database.allChats()
        // SQLite's own limit on the file's size: the next pages cannot be allocated, as on a full disk.
        try await database.queue.writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(pages + 2)")
        }
        let big = (0..<2_000).map { index in
            CacheChange.upsertMessage(
                CachedMessage(
                    id: "big-\(index)",
                    chatID: "chat-\(index % 50)",
                    authorID: "u",
                    body: String(repeating: "x", count: 500),
                    sentAt: Self.start.addingTimeInterval(Double(index))
                )
            )
        }
        let error = await #expect(throws: StoreError.self) { try await database.apply(big) }
        #expect(error?.code == .diskFull)
        #expect(try await database.allChats() == before)
        #expect(try await database.messages(inChat: "chat-3", limit: 100).count == 20)
        #expect(try await database.cachedSession() == testSession)

        // Once there is room again, the same batch goes through.
        try await database.queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA max_page_count = 1073741823") }
        try await database.apply(big)
        #expect(try await database.messages(inChat: "chat-7", limit: 1_000).count == 40)
    }

    @Test("A messages-per-chat bound below 1 is refused")
    func invalidBound() async throws {
        let error = await #expect(throws: StoreError.self) {
            try await database.apply([.deleteUser(id: "u")], messagesPerChat: 0)
        }
        #expect(error?.code == .invalidParameter)
    }

    @Test("The last-message and member queries read their indexes and sort nothing")
    func indexesUsed() async throws {
        func plan(_ sql: String, _ arguments: StatementArguments) async throws -> String {
            try await database.queue.read { db in
                try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments)
                    .map { $0["detail"] as String }
                    .joined(separator: "\n")
            }
        }
        let lastMessage = try await plan(AccountDatabase.lastMessageSQL, [Data([1])])
        #expect(lastMessage.contains("message_by_chat"))
        #expect(!lastMessage.contains("TEMP B-TREE"))
        let members = try await plan("SELECT tag, payload FROM member WHERE spaceTag = ?", [Data([1])])
        #expect(members.contains("member_by_space"))
    }
}
