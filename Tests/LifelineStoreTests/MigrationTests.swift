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
        let broken = StoreSchema.current.appending("v2-broken") { db in
            try db.execute(sql: "DROP TABLE chat")
            throw MigrationBroke()
        }
        let server = FakeServer()
        let outcome = await directory.store(schema: broken)
            .signIn(email: testEmail, password: testPassword, verifier: server)
        let failure = try #require(outcome.migrationFailure, "got \(outcome.name)")
        #expect(failure.foundVersion == "v1")
        #expect(failure.expectedVersion == "v2-broken")
        #expect(!failure.isNewerThanExpected)
        #expect(failure.cause is MigrationBroke)
        #expect(failure.eraseOption.email == testEmail)
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
        let newer = StoreSchema.current.appending("v2-future") { db in
            try db.execute(sql: "CREATE TABLE future (id INTEGER PRIMARY KEY)")
        }
        let opened = await directory.store(schema: newer)
            .signIn(email: testEmail, password: testPassword, verifier: FakeServer())
        try opened.requireDatabase.close()

        let outcome = await directory.store().signIn(email: testEmail, password: testPassword, verifier: FakeServer())
        let failure = try #require(outcome.migrationFailure, "got \(outcome.name)")
        #expect(failure.foundVersion == "v2-future")
        #expect(failure.expectedVersion == "v1")
        #expect(failure.isNewerThanExpected)

        let database = try await directory.store(schema: newer)
            .signIn(email: testEmail, password: testPassword, verifier: FakeServer()).requireDatabase
        #expect(try await database.allChats().count == chats.count)
    }

    @Test("A successful new migration runs at unlock and keeps every record")
    func successfulMigration() async throws {
        let chats = try await accountWithChats()
        let next = StoreSchema.current.appending("v2-draft") { db in
            try db.execute(sql: "ALTER TABLE chat ADD COLUMN draft BLOB")
        }
        let database = try await directory.store(schema: next)
            .signIn(email: testEmail, password: testPassword, verifier: FakeServer()).requireDatabase
        #expect(try await database.allChats().count == chats.count)
        let applied = try await database.queue.read { try next.foundVersion($0) }
        #expect(applied.version == "v2-draft")
    }
}
