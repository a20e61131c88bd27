import Foundation
import GRDB
import LifelineCore
import Testing

@testable import LifelineStore

@Suite("Drafts in the account's store")
struct DraftStoreTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    private func open(schema: StoreSchema = .current) async throws -> AccountDatabase {
        try await directory.store(schema: schema).signIn(
            email: testEmail, password: testPassword, verifier: FakeServer()
        )
        .requireDatabase
    }

    @Test("Drafts are sealed per chat, replaced, cleared by an empty text or a delete, and survive a close")
    func roundTrip() async throws {
        var database = try await open()
        try await database.saveDraft("first thought", chatID: "chat-1")
        try await database.saveDraft("SECRET-DRAFT-TEXT", chatID: "chat-2")
        try await database.saveDraft("second thought", chatID: "chat-1")
        try await database.saveDraft("gone", chatID: "chat-3")
        try await database.saveDraft("", chatID: "chat-3")
        try await database.deleteDraft(chatID: "never-there")
        let path = database.path
        try database.close()
        // Nothing in plaintext: neither the text nor the chat's id.
        let raw = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(raw.range(of: Data("SECRET-DRAFT-TEXT".utf8)) == nil)
        #expect(raw.range(of: Data("chat-2".utf8)) == nil)

        database = try await open()
        let stored = try await database.drafts()
        #expect(stored.drafts == ["chat-1": "second thought", "chat-2": "SECRET-DRAFT-TEXT"])
        #expect(stored.damaged.isEmpty)
        try await database.deleteDraft(chatID: "chat-1")
        #expect(try await database.drafts().drafts == ["chat-2": "SECRET-DRAFT-TEXT"])
        try database.close()
    }

    @Test("A damaged or moved draft is reported and skipped, never deleted")
    func damagedRow() async throws {
        let database = try await open()
        try await database.saveDraft("one", chatID: "a")
        try await database.saveDraft("two", chatID: "b")
        try await database.saveDraft("three", chatID: "c")
        let path = database.path
        let tags = try await database.queue.read { db in
            try Data.fetchAll(db, sql: "SELECT tag FROM draft ORDER BY tag")
        }
        try database.close()
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            var flipped = try #require(
                try Data.fetchOne(db, sql: "SELECT payload FROM draft WHERE tag = ?", arguments: [tags[0]]))
            flipped[flipped.count / 2] ^= 0x01
            try db.execute(sql: "UPDATE draft SET payload = ? WHERE tag = ?", arguments: [flipped, tags[0]])
            // Another row's sealed payload copied over: it names another chat than its tag.
            let other = try #require(
                try Data.fetchOne(db, sql: "SELECT payload FROM draft WHERE tag = ?", arguments: [tags[2]]))
            try db.execute(sql: "UPDATE draft SET payload = ? WHERE tag = ?", arguments: [other, tags[1]])
        }
        try queue.close()
        let reopened = try await open()
        let stored = try await reopened.drafts()
        #expect(stored.drafts.count == 1)
        #expect(stored.damaged.count == 2)
        #expect(stored.damaged.allSatisfy { $0.code == .encryptionFailure })
        #expect(try await reopened.queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM draft") } == 3)
        try reopened.close()
    }

    @Test(
        "A v5 file written by the previous release migrates to v6 at unlock: its chats, outbox and label intact, drafts writable"
    )
    func fromVersion5() async throws {
        // The previous release (v5: the outbox, no drafts) writes an account with a chat, a message and an entry.
        let old = try await open(schema: .version5)
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let message = CachedMessage(id: "m1", chatID: "c1", authorID: "a", body: "before drafts", sentAt: start)
        try await old.apply([
            .upsertChat(
                CachedChat(id: "c1", kind: .channel, name: "general", lastActivity: start, lastMessage: message)),
            .upsertMessage(message),
        ])
        try await old.saveOutboxEntry(StoredOutboxEntry(nonce: "n-1", position: 1, payload: Data("queued".utf8)))
        try await old.setLabel("ada")
        #expect(try await old.queue.read { try StoreSchema.version5.foundVersion($0) }.version == "v5")
        try old.close()

        let database = try await open()
        #expect(
            try await database.queue.read { try StoreSchema.current.foundVersion($0) }.version
                == StoreSchema.current.expectedVersion)
        #expect(StoreSchema.current.expectedVersion == "v6")
        #expect(try await database.messages(inChat: "c1", limit: 10) == [message])
        #expect(try await database.allChats().map(\.name) == ["general"])
        #expect(try await database.outboxEntries().entries.map(\.nonce) == ["n-1"])
        #expect(try await database.drafts().drafts.isEmpty)
        try await database.saveDraft("now possible", chatID: "c1")
        #expect(try await database.drafts().drafts == ["c1": "now possible"])
        try database.close()
        #expect(try directory.store().accounts().map(\.label) == ["ada"])
    }
}
