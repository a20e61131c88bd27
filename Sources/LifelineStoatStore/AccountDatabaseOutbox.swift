import LifelineStoat
import LifelineStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The outbox's store: LifelineStore's `AccountDatabase`, which knows nothing of messages; each entry is its
/// `Outbox.Record` as JSON in the sealed payload.
package struct AccountDatabaseOutbox: OutboxPersistence {
    let database: AccountDatabase

    package init(database: AccountDatabase) { self.database = database }

    package func outbox() async throws -> (records: [Outbox.Record], unreadable: [String]) {
        let stored = try await database.outboxEntries()
        var records: [Outbox.Record] = []
        var unreadable = stored.damaged.map { "an outbox entry does not open: \($0)" }
        let decoder = JSONDecoder()
        for entry in stored.entries {
            // Format 1 is a send (every release wrote it); format 2 an action on a message, which names its kind;
            // format 3 a send with files, which lists them.
            guard let record = try? decoder.decode(Outbox.Record.self, from: entry.payload),
                Self.reads(record), record.nonce == entry.nonce
            else {
                unreadable.append("an outbox entry is not in a format this version reads")
                continue
            }
            var positioned = record
            positioned.position = entry.position
            records.append(positioned)
        }
        return (records, unreadable)
    }

    /// Whether this version reads a record of its format: a later format is skipped, never misread.
    static func reads(_ record: Outbox.Record) -> Bool {
        switch record.version {
        case 1: record.kind == nil && record.files == nil
        case 2: record.kind != nil && record.files == nil
        case 3: record.kind == nil && record.files?.isEmpty == false
        default: false
        }
    }

    package func save(_ record: Outbox.Record) async throws {
        let payload = try JSONEncoder().encode(record)
        try await database.saveOutboxEntry(
            StoredOutboxEntry(nonce: record.nonce, position: record.position, payload: payload))
    }

    package func remove(_ nonce: String) async throws {
        try await database.deleteOutboxEntry(nonce: nonce)
    }
}
