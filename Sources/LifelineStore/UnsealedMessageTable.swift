internal import Foundation
internal import GRDB

/// The `cache-ingest` benchmark's baseline: the same messages stored by plain, unsealed GRDB inserts, as an app
/// with no encryption would, in the same batches. Not part of the public API (`package` access): it exists so
/// the benchmark compares with GRDB configured exactly as the store configures it, minus sealing and trimming.
package final class UnsealedMessageTable {
    private let queue: DatabaseQueue

    /// Creates the table in a new file.
    ///
    /// - Parameter path: The database file's path.
    package init(path: String) throws {
        var configuration = Configuration()
        configuration.label = "LifelineStore.baseline"
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE message (
                        id TEXT NOT NULL PRIMARY KEY,
                        chatID TEXT NOT NULL,
                        authorID TEXT NOT NULL,
                        body TEXT NOT NULL,
                        sentAt INTEGER NOT NULL,
                        editedAt INTEGER,
                        details BLOB NOT NULL
                    )
                    """
            )
            try db.execute(sql: "CREATE INDEX message_by_chat ON message (chatID, sentAt DESC, id DESC)")
        }
    }

    /// Inserts (or replaces) a batch of messages in one transaction.
    ///
    /// - Parameter messages: The messages.
    package func insert(_ messages: [CachedMessage]) throws {
        try queue.write { db in
            let statement = try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO message (id, chatID, authorID, body, sentAt, editedAt, details)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """
            )
            for message in messages {
                try statement.execute(arguments: [
                    message.id, message.chatID, message.authorID, message.body, message.sentAt.storedMilliseconds,
                    message.editedAt?.storedMilliseconds, message.details,
                ])
            }
        }
    }

    /// How many messages the table holds.
    package func count() throws -> Int {
        try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM message") ?? 0 }
    }

    /// Closes the file.
    package func close() throws {
        try queue.close()
    }
}
