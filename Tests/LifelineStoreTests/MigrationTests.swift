import Foundation
import GRDB
import LifelineCore
import Testing

@testable import LifelineStore

@Suite("Schema migrations")
struct MigrationTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    struct MigrationBroke: Error {}

    /// Creates the account with the current schema and some chats, closes it, and returns the chats.
    private func accountWithChats() async throws -> [CachedChat] {
        let store = directory.store()
        let database = try await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
        let chats = sampleChats(count: 12)
        try await database.saveChats(chats)
        try database.close()
        return chats
    }

    @Test("A failing migration: migration failure with found and expected versions, and the data is kept")
    func failingMigration() async throws {
        let chats = try await accountWithChats()
        // The failing migration first destroys data, then throws: its transaction must roll back.
        let broken = StoreSchema.current.appending("v3-broken") { db in
            try db.execute(sql: "DROP TABLE chat")
            throw MigrationBroke()
        }
        let server = FakeServer()
        let outcome = await directory.store(schema: broken)
            .signIn(email: testEmail, password: testPassword, verifier: server)
        let failure = try #require(outcome.migrationFailure, "got \(outcome.code)")
        #expect(failure.foundVersion == StoreSchema.current.expectedVersion)
        #expect(failure.expectedVersion == "v3-broken")
        #expect(!failure.isNewerThanExpected)
        #expect(failure.cause is MigrationBroke)
        #expect(failure.eraseOption.account == directory.store().accountID(email: testEmail, server: testServer))
        #expect(server.calls == 0)

        // The data is kept: the current code opens it with every chat.
        let database = try await directory.store()
            .signIn(email: testEmail, password: testPassword, verifier: server).requireDatabase
        #expect(try await database.allChats().count == chats.count)
        #expect(try await database.cachedSession() == testSession)
    }

    @Test("A database migrated by a newer version: migration failure that says so, and the data is kept")
    func newerDatabase() async throws {
        let chats = try await accountWithChats()
        let newer = StoreSchema.current.appending("v3-future") { db in
            try db.execute(sql: "CREATE TABLE future (id INTEGER PRIMARY KEY)")
        }
        let opened = await directory.store(schema: newer)
            .signIn(email: testEmail, password: testPassword, verifier: FakeServer())
        try opened.requireDatabase.close()

        let outcome = await directory.store().signIn(email: testEmail, password: testPassword, verifier: FakeServer())
        let failure = try #require(outcome.migrationFailure, "got \(outcome.code)")
        #expect(failure.foundVersion == "v3-future")
        #expect(failure.expectedVersion == StoreSchema.current.expectedVersion)
        #expect(failure.isNewerThanExpected)

        let database = try await directory.store(schema: newer)
            .signIn(email: testEmail, password: testPassword, verifier: FakeServer()).requireDatabase
        #expect(try await database.allChats().count == chats.count)
    }

    @Test("A newer version's account record this code cannot read is a migration failure, not damage")
    func newerAccountRecord() async throws {
        _ = try await accountWithChats()
        let newer = StoreSchema.current.appending("v9-future") { _ in }
        let database = try await directory.store(schema: newer)
            .signIn(email: testEmail, password: testPassword, verifier: FakeServer()).requireDatabase
        // The newer version writes its own account payload version.
        try await database.write("the account") { db, sealer in
            var payload = ByteWriter()
            payload.append(99)
            payload.append("future fields")
            let sealed = try sealer.seal(payload.bytes, AccountDatabase.accountContext)
            try db.execute(sql: "UPDATE account SET payload = ? WHERE id = 1", arguments: [sealed])
        }
        try database.close()

        let server = FakeServer()
        let outcome = await directory.store().signIn(email: testEmail, password: testPassword, verifier: server)
        let failure = try #require(outcome.migrationFailure, "got \(outcome.code)")
        #expect(failure.isNewerThanExpected)
        #expect(failure.foundVersion == "v9-future")
        #expect(server.calls == 0)
    }

    @Test("A successful new migration runs at unlock and keeps every record")
    func successfulMigration() async throws {
        let chats = try await accountWithChats()
        let next = StoreSchema.current.appending("v3-draft") { db in
            try db.execute(sql: "ALTER TABLE chat ADD COLUMN draft BLOB")
        }
        let database = try await directory.store(schema: next)
            .signIn(email: testEmail, password: testPassword, verifier: FakeServer()).requireDatabase
        #expect(try await database.allChats().count == chats.count)
        let applied = try await database.queue.read { try next.foundVersion($0) }
        #expect(applied.version == "v3-draft")
    }

    @Test(
        "A v1 file migrates at unlock: every v1 chat, message and the session still read, and v2 writes work"
    )
    func fromVersion1() async throws {
        let store = directory.store()
        let file = try UnboundFile(store: store, schema: .version1)
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        // Rows exactly as the v1 code wrote them: payload version 1.
        try file.write { db, sealer in
            for index in 0..<3 {
                let tag = sealer.rowTag("chat", "chat-\(index)")
                let lastActivity = start.addingTimeInterval(Double(index)).storedMilliseconds
                var payload = ByteWriter()
                payload.append(1)
                payload.append("chat-\(index)")
                payload.append("Chat \(index)")
                payload.append(index)
                let sealed = try sealer.seal(
                    payload.bytes, AccountDatabase.chatContext(tag: tag, lastActivity: lastActivity))
                try db.execute(
                    sql: "INSERT INTO chat (tag, lastActivity, payload) VALUES (?, ?, ?)",
                    arguments: [tag, lastActivity, sealed]
                )
            }
            let tag = sealer.rowTag("message", "m1")
            let chatTag = sealer.rowTag("chat", "chat-2")
            let sentAt = start.storedMilliseconds
            var payload = ByteWriter()
            payload.append(1)
            payload.append("m1")
            payload.append("chat-2")
            payload.append("author")
            payload.append("hello from v1")
            let sealed = try sealer.seal(
                payload.bytes,
                AccountDatabase.messageContext(tag: tag, chatTag: chatTag, sentAt: sentAt)
            )
            try db.execute(
                sql: "INSERT INTO message (tag, chatTag, sentAt, payload) VALUES (?, ?, ?, ?)",
                arguments: [tag, chatTag, sentAt, sealed]
            )
        }
        var database: AccountDatabase
        #expect(try directory.store().accounts().map(\.label) == [nil])

        // The file has no server: the server verifies the password and names the file's user, so it is bound.
        let server = FakeServer()
        let outcome = await directory.store().signIn(email: testEmail, password: testPassword, verifier: server)
        #expect(outcome.verifiedSession == testSession)
        #expect(server.calls == 1)
        database = try outcome.requireDatabase
        #expect(
            try await database.queue.read { try StoreSchema.current.foundVersion($0) }.version
                == StoreSchema.current.expectedVersion)
        let message = CachedMessage(
            id: "m1", chatID: "chat-2", authorID: "author", body: "hello from v1", sentAt: start)
        let chats = try await database.allChats()
        #expect(
            chats == [
                CachedChat(
                    id: "chat-2", kind: .unknown, name: "Chat 2", lastActivity: start.addingTimeInterval(2),
                    unreadCount: 2, lastMessage: message),
                CachedChat(
                    id: "chat-1", kind: .unknown, name: "Chat 1", lastActivity: start.addingTimeInterval(1),
                    unreadCount: 1),
                CachedChat(id: "chat-0", kind: .unknown, name: "Chat 0", lastActivity: start, unreadCount: 0),
            ]
        )
        // The v2 tables work, and v1 rows are replaced by v2 rows on upsert.
        try await database.setLabel("ada")
        try await database.apply([
            .upsertSpace(CachedSpace(id: "s", name: "Space")),
            .upsertChat(CachedChat(id: "chat-0", kind: .channel, name: "Renamed", parentID: "s", lastActivity: start)),
        ])
        #expect(try await database.chat(id: "chat-0")?.kind == .channel)
        #expect(try await database.spaces().map(\.name) == ["Space"])
        try database.close()
        #expect(try directory.store().accounts().map(\.label) == ["ada"])
    }

    @Test(
        "A v2 file migrates at unlock through v4: its messages and session still read, and chat states are kept and deleted with their chat"
    )
    func fromVersion2() async throws {
        // The previous release's file: schema v2, an account record without a server, named by the email alone.
        let file = try UnboundFile(store: directory.store(), label: "ada")
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let message = try file.writeMessage(
            id: "m1", chatID: "chat-1", authorID: "u1", body: "hello from v2", sentAt: start)

        let outcome = await directory.store().signIn(email: testEmail, password: testPassword, verifier: FakeServer())
        #expect(outcome.verifiedSession == testSession)
        let database = try outcome.requireDatabase
        #expect(
            try await database.queue.read { try StoreSchema.current.foundVersion($0) }.version
                == StoreSchema.current.expectedVersion)
        #expect(try await database.messages(inChat: "chat-1", limit: 10) == [message])
        #expect(try await database.chatStates(ids: ["chat-1"]).isEmpty)

        let chat = CachedChat(
            id: "chat-1", kind: .channel, name: "general", parentID: "s", lastActivity: start, lastMessageID: "m1",
            lastMessage: message)
        try await database.apply([.upsertChat(chat)])
        let state = CachedChatState(
            chatID: "chat-1", lastReadID: "m0", mentionIDs: ["m1"], gaps: [.init(after: "m0", before: "m1")],
            catchUpCursor: "m0")
        try await database.apply([.upsertChatState(state)])
        #expect(try await database.chatStates(ids: ["chat-1", "chat-2"]) == ["chat-1": state])
        #expect(try await database.allChatStates() == ["chat-1": state])
        try await database.apply([.deleteChat(id: "chat-1")])
        #expect(try await database.allChatStates().isEmpty)
        try database.close()
    }
}
