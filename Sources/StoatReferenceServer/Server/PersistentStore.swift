import GRDB

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The server's data in a SQLite file, so that `lifeline serve --data FILE` survives a restart.
///
/// One table of JSON documents keyed by kind and id: the server keeps its working set in memory and writes
/// each change through. Faults, lockout timers of the moment and socket state are not persisted.
final class PersistentStore: Sendable {
    enum Kind: String, CaseIterable {
        case account, session, user, server, channel, member, emoji, operation, message, bot, settings, unread, file
    }

    private let queue: DatabaseQueue

    init(path: String) throws {
        queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS document (
                        kind TEXT NOT NULL,
                        id TEXT NOT NULL,
                        body BLOB NOT NULL,
                        PRIMARY KEY (kind, id)
                    )
                    """)
        }
    }

    func put(_ kind: Kind, id: String, _ value: some Encodable) throws {
        let body = try JSONEncoder().encode(value)
        try queue.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO document (kind, id, body) VALUES (?, ?, ?)",
                arguments: [kind.rawValue, id, body])
        }
    }

    func putAll(_ kind: Kind, _ values: [(id: String, body: Data)]) throws {
        try queue.write { db in
            for value in values {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO document (kind, id, body) VALUES (?, ?, ?)",
                    arguments: [kind.rawValue, value.id, value.body])
            }
        }
    }

    func delete(_ kind: Kind, id: String) throws {
        try queue.write { db in
            try db.execute(sql: "DELETE FROM document WHERE kind = ? AND id = ?", arguments: [kind.rawValue, id])
        }
    }

    func all<Value: Decodable>(_ kind: Kind, as type: Value.Type) throws -> [Value] {
        let bodies = try queue.read { db in
            try Data.fetchAll(
                db, sql: "SELECT body FROM document WHERE kind = ? ORDER BY rowid", arguments: [kind.rawValue])
        }
        let decoder = JSONDecoder()
        return try bodies.map { try decoder.decode(Value.self, from: $0) }
    }
}
