internal import GRDB

/// The account database's schema: GRDB migrations with named versions, applied in order after the data key
/// unwraps.
///
/// Version names are the migrations' identifiers (`v1`, `v2`, …). ``MigrationFailure`` reports the last one the
/// file had and the last one this code expects. Rules for adding a version: append a migration, never edit or
/// remove one, and never change tables `keyring`, `label` and `server` (they are read before migrations run). The schema
/// is drawn in <doc:LifelineStore#Schema>.
struct StoreSchema: Sendable {
    private(set) var migrator: DatabaseMigrator

    /// The schema this version of the code writes.
    static let current: StoreSchema = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1", migrate: migrateToVersion1)
        migrator.registerMigration("v2", migrate: migrateToVersion2)
        migrator.registerMigration("v3", migrate: migrateToVersion3)
        migrator.registerMigration("v4", migrate: migrateToVersion4)
        migrator.registerMigration("v5", migrate: migrateToVersion5)
        migrator.registerMigration("v6", migrate: migrateToVersion6)
        return StoreSchema(migrator: migrator)
    }()

    /// The schema as version `v5` wrote it (the release before drafts). Tests create files with it to check that
    /// today's code reads them.
    static let version5: StoreSchema = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1", migrate: migrateToVersion1)
        migrator.registerMigration("v2", migrate: migrateToVersion2)
        migrator.registerMigration("v3", migrate: migrateToVersion3)
        migrator.registerMigration("v4", migrate: migrateToVersion4)
        migrator.registerMigration("v5", migrate: migrateToVersion5)
        return StoreSchema(migrator: migrator)
    }()

    /// The schema as version `v2` wrote it (the release before accounts were bound to a server, chat states
    /// and the outbox). Tests create files with it to check that today's code reads them.
    static let version2: StoreSchema = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1", migrate: migrateToVersion1)
        migrator.registerMigration("v2", migrate: migrateToVersion2)
        return StoreSchema(migrator: migrator)
    }()

    /// The schema as version `v1` wrote it. Tests create files with it to check that today's code reads them.
    static let version1: StoreSchema = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1", migrate: migrateToVersion1)
        return StoreSchema(migrator: migrator)
    }()

    /// The one-row table of the login screen's label. Its shape never changes: it is read before the key
    /// unwraps and before migrations run.
    static let createLabelTableSQL = "CREATE TABLE label (id INTEGER PRIMARY KEY CHECK (id = 1), text TEXT NOT NULL)"

    /// v1: the keyring, the account's session, chats, messages and the replay record.
    private static func migrateToVersion1(_ db: Database) throws {
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

    /// v2: the rest of an account's cache. New tables only: every v1 row stays as it is, and v1 payloads still
    /// decode (each payload starts with its own version).
    private static func migrateToVersion2(_ db: Database) throws {
        // The login screen's label, in plaintext, readable before the key unwraps.
        try db.execute(sql: createLabelTableSQL)
        // tag: keyed hash of the space id. Nothing else in plaintext.
        try db.execute(sql: "CREATE TABLE space (tag BLOB NOT NULL PRIMARY KEY, payload BLOB NOT NULL)")
        // tag: keyed hash of (space id, user id); spaceTag: keyed hash of the space id, to list a space's members.
        try db.execute(
            sql: """
                CREATE TABLE member (
                    tag BLOB NOT NULL PRIMARY KEY,
                    spaceTag BLOB NOT NULL,
                    payload BLOB NOT NULL
                )
                """
        )
        try db.execute(sql: "CREATE INDEX member_by_space ON member (spaceTag)")
        // tag: keyed hash of the user id.
        try db.execute(sql: "CREATE TABLE user (tag BLOB NOT NULL PRIMARY KEY, payload BLOB NOT NULL)")
    }

    /// The one-row table of the server the account belongs to, in plaintext, for the login screen's list. Its
    /// shape never changes: it is read before the key unwraps. The sealed account record holds the copy the
    /// sign-in checks.
    static let createServerTableSQL =
        "CREATE TABLE server (id INTEGER PRIMARY KEY CHECK (id = 1), url TEXT NOT NULL)"

    /// v3: the account's server, in plaintext beside the label. A new table only: a file migrated from `v2`
    /// has no row until a sign-in binds it to a server (the sealed record gets the server at the same time).
    private static func migrateToVersion3(_ db: Database) throws {
        try db.execute(sql: createServerTableSQL)
    }

    /// v4: each chat's state — read marker, mentions, history gaps, catch-up cursor (``CachedChatState``). A new
    /// table only: every older row stays as it is.
    private static func migrateToVersion4(_ db: Database) throws {
        // tag: the chat's row tag (the same keyed hash as the chat table's). Nothing else in plaintext.
        try db.execute(sql: "CREATE TABLE chatState (tag BLOB NOT NULL PRIMARY KEY, payload BLOB NOT NULL)")
    }

    /// v5: the outbox, the messages the user sent that the server has not confirmed yet. A new table only.
    private static func migrateToVersion5(_ db: Database) throws {
        // tag: keyed hash of the entry's nonce. position: the order the entries were queued in (plaintext, so a
        // restart sends them in that order; it says only how many were queued). payload: nonce and entry, sealed.
        try db.execute(
            sql: """
                CREATE TABLE outbox (
                    tag BLOB NOT NULL PRIMARY KEY,
                    position INTEGER NOT NULL,
                    payload BLOB NOT NULL
                )
                """
        )
        try db.execute(sql: "CREATE INDEX outbox_by_position ON outbox (position)")
    }

    /// v6: the composer's drafts, one per chat. A new table only: every older row stays as it is.
    private static func migrateToVersion6(_ db: Database) throws {
        // tag: keyed hash of the chat id. payload: the chat id and the draft's text, sealed. Nothing in plaintext.
        try db.execute(sql: "CREATE TABLE draft (tag BLOB NOT NULL PRIMARY KEY, payload BLOB NOT NULL)")
    }

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
