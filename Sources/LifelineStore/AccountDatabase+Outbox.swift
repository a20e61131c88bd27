public import Foundation
internal import GRDB

/// One entry of the account's outbox as the store keeps it: its nonce, its place in the queue, and what another
/// module encoded (the store knows nothing of messages).
public struct StoredOutboxEntry: Sendable, Hashable {
    /// The entry's nonce: its identity, unique in the account.
    public var nonce: String
    /// Its place in the queue: entries are read back in this order.
    public var position: Int64
    /// The entry, as its owner encoded it.
    public var payload: Data

    /// Creates an entry.
    public init(nonce: String, position: Int64, payload: Data) {
        self.nonce = nonce
        self.position = position
        self.payload = payload
    }
}

/// What ``AccountDatabase/outboxEntries()`` read: the entries that open, and one error per row that does not.
public struct StoredOutbox: Sendable {
    /// The entries that open, in queue order.
    public var entries: [StoredOutboxEntry]
    /// One ``StoreError`` (``StoreErrorCode/encryptionFailure``) per row that does not authenticate or decode:
    /// reported and skipped, never deleted (a later version of the code may read what this one cannot).
    public var damaged: [StoreError]
}

extension AccountDatabase {
    /// The outbox payload's version: nonce, then the owner's bytes.
    static let outboxPayloadVersion = 1

    static func outboxContext(tag: Data, position: Int64) -> RecordContext {
        var writer = ByteWriter()
        writer.append(position)
        return RecordContext(table: .outbox, row: tag, bound: [writer.data])
    }

    /// The account's outbox, in queue order: the messages the user sent that the server has not confirmed yet.
    ///
    /// A row that does not open (damaged, moved, or written by a later version) is skipped and reported in
    /// ``StoredOutbox/damaged``; the others are read all the same, so one bad row never hides the rest.
    ///
    /// - Throws: ``StoreError`` when the table cannot be read at all (``StoreErrorCode/storage``,
    ///   ``StoreErrorCode/closed``).
    public func outboxEntries() async throws(StoreError) -> StoredOutbox {
        try await read("the outbox") { db, sealer in
            let rows = try Row.fetchCursor(db, sql: "SELECT tag, position, payload FROM outbox ORDER BY position, tag")
            var entries: [StoredOutboxEntry] = []
            var damaged: [StoreError] = []
            while let row = try rows.next() {
                do throws(StoreError) {
                    let tag: Data = try Self.column(row, 0, table: "outbox")
                    let position: Int64 = try Self.column(row, 1, table: "outbox")
                    let sealed: Data = try Self.column(row, 2, table: "outbox")
                    let plaintext = try sealer.open(sealed, Self.outboxContext(tag: tag, position: position))
                    let (nonce, payload) = try Self.decodePayload(plaintext, table: "outbox") { reader, version in
                        guard version == 1 else { throw ByteReader.Malformed() }
                        return (try reader.readString(), try reader.readData())
                    }
                    // A row whose tag is not its nonce's was moved from another row: damaged.
                    guard sealer.rowTag("outbox", nonce) == tag else { throw StoreError.damagedRecord("outbox") }
                    entries.append(StoredOutboxEntry(nonce: nonce, position: position, payload: payload))
                } catch {
                    damaged.append(error)
                }
            }
            return StoredOutbox(entries: entries, damaged: damaged)
        }
    }

    /// Writes an outbox entry, or replaces the one with its nonce.
    ///
    /// - Parameter entry: The entry.
    public func saveOutboxEntry(_ entry: StoredOutboxEntry) async throws(StoreError) {
        try await write("an outbox entry") { db, sealer in
            let tag = sealer.rowTag("outbox", entry.nonce)
            var payload = ByteWriter()
            payload.append(Self.outboxPayloadVersion)
            payload.append(entry.nonce)
            payload.append(entry.payload)
            let sealed = try sealer.seal(payload.bytes, Self.outboxContext(tag: tag, position: entry.position))
            try db.execute(
                sql: "INSERT OR REPLACE INTO outbox (tag, position, payload) VALUES (?, ?, ?)",
                arguments: [tag, entry.position, sealed])
        }
    }

    /// Removes the outbox entry with this nonce: the server confirmed it, or the user discarded it. Removing one
    /// that is not there does nothing.
    ///
    /// - Parameter nonce: The entry's nonce.
    public func deleteOutboxEntry(nonce: String) async throws(StoreError) {
        try await write("an outbox entry") { db, sealer in
            try db.execute(sql: "DELETE FROM outbox WHERE tag = ?", arguments: [sealer.rowTag("outbox", nonce)])
        }
    }
}
