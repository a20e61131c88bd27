import Foundation
import GRDB
import LifelineCore
import Testing

@testable import LifelineStore

@Suite("The outbox in the account's store")
struct OutboxStoreTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    private func open() async throws -> AccountDatabase {
        try await directory.store().signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
    }

    private func entry(_ nonce: String, _ position: Int64, _ text: String = "payload") -> StoredOutboxEntry {
        StoredOutboxEntry(nonce: nonce, position: position, payload: Data(text.utf8))
    }

    @Test("Entries are sealed, read back in queue order, replaced by nonce and deleted; they survive a close")
    func roundTrip() async throws {
        var database = try await open()
        try await database.saveOutboxEntry(entry("n-2", 2, "second"))
        try await database.saveOutboxEntry(entry("n-1", 1, "first"))
        try await database.saveOutboxEntry(entry("n-3", 3, "third"))
        try await database.saveOutboxEntry(entry("n-2", 2, "second, attempted"))
        try await database.deleteOutboxEntry(nonce: "n-3")
        try await database.deleteOutboxEntry(nonce: "never-there")
        let path = database.path
        try database.close()
        // Nothing in plaintext but the position.
        let raw = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(raw.range(of: Data("second, attempted".utf8)) == nil)
        #expect(raw.range(of: Data("n-1".utf8)) == nil)

        database = try await open()
        let stored = try await database.outboxEntries()
        #expect(stored.entries == [entry("n-1", 1, "first"), entry("n-2", 2, "second, attempted")])
        #expect(stored.damaged.isEmpty)
        try database.close()
    }

    @Test("A damaged or moved row is reported and skipped; the others are read, and the row is kept")
    func damagedRow() async throws {
        let database = try await open()
        for index in 1...3 { try await database.saveOutboxEntry(entry("n-\(index)", Int64(index))) }
        let path = database.path
        try database.close()
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in
            // Row 2's sealed payload flipped; row 3 moved to another position (its context no longer matches).
            let rows = try Row.fetchAll(db, sql: "SELECT tag, position, payload FROM outbox ORDER BY position")
            var flipped: Data = rows[1]["payload"]
            flipped[flipped.count / 2] ^= 0x40
            try db.execute(sql: "UPDATE outbox SET payload = ? WHERE position = 2", arguments: [flipped])
            try db.execute(sql: "UPDATE outbox SET position = 9 WHERE position = 3")
        }
        try queue.close()

        let reopened = try await open()
        let stored = try await reopened.outboxEntries()
        #expect(stored.entries.map(\.nonce) == ["n-1"])
        #expect(stored.damaged.count == 2)
        #expect(stored.damaged.allSatisfy { $0.code == .encryptionFailure })
        let rows = try await reopened.queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM outbox") }
        #expect(rows == 3, "skipped, never deleted")
        try reopened.close()
    }

    @Test(
        "A v2 file written by the previous release migrates to the outbox's v5: its cache intact, the outbox empty and writable"
    )
    func fromVersion2() async throws {
        // The previous release's file: schema v2, an account record without a server, named by the email alone.
        let file = try UnboundFile(store: directory.store(), label: "ada")
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let message = try file.writeMessage(
            id: "m1", chatID: "c1", authorID: "a", body: "before the outbox", sentAt: start)

        let outcome = await directory.store().signIn(email: testEmail, password: testPassword, verifier: FakeServer())
        #expect(outcome.verifiedSession == testSession)
        let database = try outcome.requireDatabase
        #expect(
            try await database.queue.read { try StoreSchema.current.foundVersion($0) }.version
                == StoreSchema.current.expectedVersion)
        #expect(try await database.messages(inChat: "c1", limit: 10) == [message])
        #expect(try await database.outboxEntries().entries.isEmpty)
        try await database.saveOutboxEntry(entry("n-1", 1))
        #expect(try await database.outboxEntries().entries == [entry("n-1", 1)])
        try database.close()
        #expect(try directory.store().accounts().map(\.label) == ["ada"])
    }
}
