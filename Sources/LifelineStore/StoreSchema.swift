internal import GRDB

/// The account database's schema: GRDB migrations with named versions, applied in order after the data key
/// unwraps.
///
/// Version names are the migrations' identifiers (`v1`, …). ``MigrationFailure`` reports the last one the file
/// had and the last one this code expects. Rules for adding a version: append a migration, never edit or
/// remove one, and never change table `keyring` (it is read before migrations run).
struct StoreSchema: Sendable {
    private(set) var migrator: DatabaseMigrator

    /// The schema this version of the code writes.
    static let current: StoreSchema = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: Keyring.createTableSQL)
            // One row: the account's email and cached session, sealed together.
            try db.execute(sql: "CREATE TABLE account (id INTEGER PRIMARY KEY CHECK (id = 1), payload BLOB NOT NULL)")
            // tag: keyed hash of the chat id. lastActivity: milliseconds since 1970, plaintext for ordering.
            try db.execute(
                sql: """
                    CREATE TABLE chat (
                        tag BLOB NOT NULL PRIMARY KEY,
                        lastActivity INTEGER NOT NULL,
                        payload BLOB NOT NULL
                    )
                    """
            )
            try db.execute(sql: "CREATE INDEX chat_by_activity ON chat (lastActivity DESC, tag DESC)")
            try db.execute(
                sql: """
                    CREATE TABLE message (
                        tag BLOB NOT NULL PRIMARY KEY,
                        chatTag BLOB NOT NULL,
                        sentAt INTEGER NOT NULL,
                        payload BLOB NOT NULL
                    )
                    """
            )
            try db.execute(sql: "CREATE INDEX message_by_chat ON message (chatTag, sentAt DESC, tag DESC)")
            try db.execute(sql: "CREATE TABLE replay (position INTEGER PRIMARY KEY, payload BLOB NOT NULL)")
        }
        return StoreSchema(migrator: migrator)
    }()

    /// The version a fully migrated database has.
    var expectedVersion: String {
        guard let last = migrator.migrations.last else {
            preconditionFailure("StoreSchema has no migration")
        }
        return last
    }

    /// This schema with one more migration. Tests use it to make a migration fail for real.
    func appending(_ identifier: String, migrate: @escaping @Sendable (Database) throws -> Void) -> StoreSchema {
        var copy = self
        copy.migrator.registerMigration(identifier, migrate: migrate)
        return copy
    }

    /// The version a database has: the last applied migration in registration order, or the unknown ones it
    /// has when a newer version of the code migrated it.
    func foundVersion(_ db: Database) throws -> (version: String?, isNewer: Bool) {
        let known = migrator.migrations
        let applied = try migrator.appliedIdentifiers(db)
        let unknown = applied.subtracting(known).sorted()
        if let newest = unknown.last {
            return (newest, true)
        }
        return (known.last { applied.contains($0) }, false)
    }
}
