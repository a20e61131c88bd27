internal import Crypto
public import Foundation
internal import GRDB
public import LifelineCore

/// An unlocked account database: the cached session, chats, messages and replay record, decrypted on read.
///
/// Sign-in returns one (``SignInOutcome/opened(_:cachedSession:)``). The first screen reads
/// ``recentChats(limit:)`` (the 10 most recent by default, from an index, decrypting only those), then the rest
/// with ``chats(olderThan:limit:)``; ``allChats()`` reads everything at once.
///
/// Every method runs its database work and decryption on the database's own serial queue and suspends the
/// caller meanwhile, so none blocks the main actor. Every method throws ``StoreError``: code
/// ``StoreError/Code/encryptionFailure`` when a sealed record does not authenticate (damaged or moved), code
/// ``StoreError/Code/storage`` when SQLite fails.
///
/// The instance holds the data key in memory until it is released; the password is never kept.
public final class AccountDatabase: Sendable {
    let queue: DatabaseQueue
    private let dataKey: SymmetricKey
    private let sealer: RecordSealer
    private let keyDerivation: KeyDerivation

    init(queue: DatabaseQueue, dataKey: SymmetricKey, keyDerivation: KeyDerivation) {
        self.queue = queue
        self.dataKey = dataKey
        self.sealer = RecordSealer(dataKey: dataKey)
        self.keyDerivation = keyDerivation
    }

    /// The path of the database file.
    public var path: String { queue.path }

    /// Closes the database. Later calls throw ``StoreError/Code/storage``.
    ///
    /// - Throws: ``StoreError`` with code ``StoreError/Code/storage`` if SQLite cannot close the file.
    public func close() throws(StoreError) {
        do {
            try queue.close()
        } catch {
            throw .storage(error, "could not close the account database")
        }
    }

    // MARK: Account and session

    /// The account's email, as stored when the database was created.
    public func email() async throws(StoreError) -> String {
        try await account().email
    }

    /// The cached session, for LOGIN_CACHED; nil when none is cached.
    public func cachedSession() async throws(StoreError) -> SessionCredentials? {
        try await account().session
    }

    /// Replaces the cached session: after a new login, or nil after a logout.
    ///
    /// - Parameter session: The session to cache, or nil to forget it.
    public func storeSession(_ session: SessionCredentials?) async throws(StoreError) {
        try await write("the session") { db in
            var account = try self.readAccount(db)
            account.session = session
            try self.writeAccount(account, db)
        }
    }

    func account() async throws(StoreError) -> AccountRecord {
        try await read("the account") { try self.readAccount($0) }
    }

    // MARK: Chats

    /// The most recently active chats, newest first: what the first screen shows.
    ///
    /// Reads `limit` rows through the `lastActivity` index and decrypts only those, so its cost does not grow
    /// with the number of chats stored.
    ///
    /// - Parameter limit: How many chats; the spec's first screen is 10.
    public func recentChats(limit: Int = 10) async throws(StoreError) -> [CachedChat] {
        try await read("chats") { db in
            try self.fetchChats(db, sql: Self.recentChatsSQL, arguments: [max(0, limit)])
        }
    }

    /// The chats less recently active than `chat`, newest first: "then the rest" after ``recentChats(limit:)``.
    ///
    /// - Parameters:
    ///   - chat: The last chat already shown (as read from this database).
    ///   - limit: How many chats at most; nil for all of them.
    public func chats(olderThan chat: CachedChat, limit: Int? = nil) async throws(StoreError) -> [CachedChat] {
        let tag = sealer.rowTag("chat", chat.id)
        let lastActivity = chat.lastActivity.storedMilliseconds
        return try await read("chats") { db in
            try self.fetchChats(
                db,
                sql: Self.olderChatsSQL,
                arguments: [lastActivity, tag, limit ?? -1]
            )
        }
    }

    /// Every chat, newest first, all decrypted. The baseline the first screen avoids.
    public func allChats() async throws(StoreError) -> [CachedChat] {
        try await read("chats") { db in
            try self.fetchChats(db, sql: Self.allChatsSQL, arguments: [])
        }
    }

    /// Inserts chats, or replaces those with the same id.
    ///
    /// - Parameter chats: The chats to store.
    public func saveChats(_ chats: [CachedChat]) async throws(StoreError) {
        try await write("chats") { db in
            let statement = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO chat (tag, lastActivity, payload) VALUES (?, ?, ?)"
            )
            for chat in chats {
                let tag = self.sealer.rowTag("chat", chat.id)
                let lastActivity = chat.lastActivity.storedMilliseconds
                var payload = ByteWriter()
                payload.append(Self.payloadVersion)
                payload.append(chat.id)
                payload.append(chat.name)
                payload.append(chat.unreadCount)
                let sealed = try self.sealer.seal(payload.data, Self.chatContext(tag: tag, lastActivity: lastActivity))
                try statement.execute(arguments: [tag, lastActivity, sealed])
            }
        }
    }

    /// Removes a chat and its cached messages.
    ///
    /// - Parameter id: The chat's id.
    public func deleteChat(id: String) async throws(StoreError) {
        let tag = sealer.rowTag("chat", id)
        try await write("a chat") { db in
            try db.execute(sql: "DELETE FROM chat WHERE tag = ?", arguments: [tag])
            try db.execute(sql: "DELETE FROM message WHERE chatTag = ?", arguments: [tag])
        }
    }

    // MARK: Messages

    /// A chat's most recent messages, newest first.
    ///
    /// - Parameters:
    ///   - chatID: The chat's id.
    ///   - limit: How many messages at most.
    public func messages(inChat chatID: String, limit: Int) async throws(StoreError) -> [CachedMessage] {
        let chatTag = sealer.rowTag("chat", chatID)
        return try await read("messages") { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT tag, sentAt, payload FROM message WHERE chatTag = ?
                    ORDER BY sentAt DESC, tag DESC LIMIT ?
                    """,
                arguments: [chatTag, max(0, limit)]
            )
            var messages: [CachedMessage] = []
            while let row = try rows.next() {
                messages.append(try self.decodeMessage(row, chatTag: chatTag))
            }
            return messages
        }
    }

    /// Inserts messages, or replaces those with the same id.
    ///
    /// - Parameter messages: The messages to store.
    public func saveMessages(_ messages: [CachedMessage]) async throws(StoreError) {
        try await write("messages") { db in
            let statement = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO message (tag, chatTag, sentAt, payload) VALUES (?, ?, ?, ?)"
            )
            for message in messages {
                let tag = self.sealer.rowTag("message", message.id)
                let chatTag = self.sealer.rowTag("chat", message.chatID)
                let sentAt = message.sentAt.storedMilliseconds
                var payload = ByteWriter()
                payload.append(Self.payloadVersion)
                payload.append(message.id)
                payload.append(message.chatID)
                payload.append(message.authorID)
                payload.append(message.body)
                let context = Self.messageContext(tag: tag, chatTag: chatTag, sentAt: sentAt)
                try statement.execute(arguments: [tag, chatTag, sentAt, try self.sealer.seal(payload.data, context)])
            }
        }
    }

    // MARK: Replay record

    /// The replay record: opaque entries, in the order they were recorded. Another module encodes them.
    public func replayRecord() async throws(StoreError) -> [Data] {
        try await read("the replay record") { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT position, payload FROM replay ORDER BY position")
            var entries: [Data] = []
            while let row = try rows.next() {
                let (position, sealed): (Int64, Data) = try Self.decodeColumns(row, table: "replay")
                entries.append(try self.sealer.open(sealed, Self.replayContext(position: position)))
            }
            return entries
        }
    }

    /// Replaces the whole replay record.
    ///
    /// - Parameter entries: The entries, in order.
    public func replaceReplayRecord(_ entries: [Data]) async throws(StoreError) {
        try await write("the replay record") { db in
            try db.execute(sql: "DELETE FROM replay")
            for (position, entry) in entries.enumerated() {
                try self.insertReplayEntry(entry, at: Int64(position), db)
            }
        }
    }

    /// Appends one entry to the replay record.
    ///
    /// - Parameter entry: The encoded entry.
    public func appendToReplayRecord(_ entry: Data) async throws(StoreError) {
        try await write("the replay record") { db in
            let last = try Int64.fetchOne(db, sql: "SELECT MAX(position) FROM replay")
            try self.insertReplayEntry(entry, at: (last ?? -1) + 1, db)
        }
    }

    // MARK: Password

    /// Wraps the data key under a new password, with the configured key derivation and a fresh salt.
    ///
    /// Only the keyring row changes (one transaction): the records stay sealed under the same data key, so none
    /// is re-encrypted and none can be lost. Afterwards only `newPassword` opens the database. Verify the new
    /// password with the server first (``renewSession(password:verifier:)`` after a re-key does): a typo here
    /// locks the user out of the cache.
    ///
    /// - Parameter newPassword: The account's new password.
    public func rekey(newPassword: String) async throws(StoreError) {
        let keyring: Keyring
        do {
            keyring = try Keyring.wrap(dataKey, password: newPassword, using: keyDerivation)
        } catch {
            throw StoreError(code: .encryptionFailure, message: "could not wrap the data key", cause: error)
        }
        try await write("the keyring") { try keyring.write($0) }
    }

    /// Logs in again with the password this database opens with, and caches the new session.
    ///
    /// Call it when the cached session is gone or refused. If the server refuses the password although it opens
    /// this database, the password was changed on another device: this throws the spec's error, "passwords used
    /// for db encryption and for account do not match" (``StoreError/Code/passwordMismatch``). Ask for the new
    /// password, then ``rekey(newPassword:)`` and call this again with it.
    ///
    /// - Parameters:
    ///   - password: The password; it must open this database.
    ///   - verifier: Checks the password with the server.
    /// - Returns: The new session, now cached.
    /// - Throws: ``StoreError`` with code ``StoreError/Code/wrongPassword`` if `password` does not open this
    ///   database, ``StoreError/Code/passwordMismatch`` if the server refuses it,
    ///   ``StoreError/Code/serverUnreachable``, or ``StoreError/Code/verificationFailed`` with the server's
    ///   failure as the cause.
    public func renewSession(password: String, verifier: some PasswordVerifier) async throws(StoreError)
        -> SessionCredentials
    {
        let keyring = try await read("the keyring") { db in
            guard let keyring = try Keyring.read(db) else {
                throw StoreError(code: .encryptionFailure, message: "the keyring has no row")
            }
            return keyring
        }
        let unwrapped: SymmetricKey?
        do {
            unwrapped = try keyring.unwrap(password: password)
        } catch {
            throw StoreError(code: .encryptionFailure, message: "the keyring is damaged", cause: error)
        }
        guard unwrapped == dataKey else {
            throw StoreError(code: .wrongPassword, message: "the password does not open this database")
        }
        switch await verifier.verifyPassword(email: try await email(), password: password) {
        case .verified(let session):
            try await storeSession(session)
            return session
        case .wrongPassword:
            throw StoreError.passwordMismatch
        case .unreachable:
            throw StoreError(code: .serverUnreachable, message: "the server could not be reached")
        case .failed(let failure):
            throw StoreError(code: .verificationFailed, message: "the server refused the login", cause: failure)
        }
    }
}

// MARK: - Records

/// The account row's sealed content.
struct AccountRecord: Sendable {
    var email: String
    var session: SessionCredentials?
}

extension AccountDatabase {
    static let payloadVersion = 1

    // Chats newest first; the index `chat_by_activity` serves all three without sorting.
    static let recentChatsSQL =
        "SELECT tag, lastActivity, payload FROM chat ORDER BY lastActivity DESC, tag DESC LIMIT ?"
    static let olderChatsSQL = """
        SELECT tag, lastActivity, payload FROM chat WHERE (lastActivity, tag) < (?, ?)
        ORDER BY lastActivity DESC, tag DESC LIMIT ?
        """
    static let allChatsSQL = "SELECT tag, lastActivity, payload FROM chat ORDER BY lastActivity DESC, tag DESC"

    static let accountContext = RecordContext(table: "account", column: "payload", row: Data("1".utf8))

    static func chatContext(tag: Data, lastActivity: Int64) -> RecordContext {
        RecordContext(table: "chat", column: "payload", row: tag, bound: [bytes(lastActivity)])
    }

    static func messageContext(tag: Data, chatTag: Data, sentAt: Int64) -> RecordContext {
        RecordContext(table: "message", column: "payload", row: tag, bound: [chatTag, bytes(sentAt)])
    }

    static func replayContext(position: Int64) -> RecordContext {
        RecordContext(table: "replay", column: "payload", row: bytes(position))
    }

    private static func bytes(_ value: Int64) -> Data {
        var writer = ByteWriter()
        writer.append(value)
        return writer.data
    }

    func writeAccount(_ account: AccountRecord, _ db: Database) throws {
        var payload = ByteWriter()
        payload.append(Self.payloadVersion)
        payload.append(account.email)
        payload.append(account.session?.token)
        payload.append(account.session?.userID)
        payload.append(account.session?.sessionID)
        let sealed = try sealer.seal(payload.data, Self.accountContext)
        try db.execute(sql: "INSERT OR REPLACE INTO account (id, payload) VALUES (1, ?)", arguments: [sealed])
    }

    func readAccount(_ db: Database) throws -> AccountRecord {
        guard let sealed = try Data.fetchOne(db, sql: "SELECT payload FROM account WHERE id = 1") else {
            throw StoreError(code: .encryptionFailure, message: "the account record is missing")
        }
        return try Self.decodePayload(sealer.open(sealed, Self.accountContext), table: "account") { reader in
            let email = try reader.readString()
            let token = try reader.readOptionalString()
            let userID = try reader.readOptionalString()
            let sessionID = try reader.readOptionalString()
            let session = token.map { SessionCredentials(token: $0, userID: userID, sessionID: sessionID) }
            return AccountRecord(email: email, session: session)
        }
    }

    private func fetchChats(_ db: Database, sql: String, arguments: StatementArguments) throws -> [CachedChat] {
        let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        var chats: [CachedChat] = []
        while let row = try rows.next() {
            let (tag, lastActivity, sealed): (Data, Int64, Data) = try Self.decodeColumns(row, table: "chat")
            let plaintext = try sealer.open(sealed, Self.chatContext(tag: tag, lastActivity: lastActivity))
            chats.append(
                try Self.decodePayload(plaintext, table: "chat") { reader in
                    CachedChat(
                        id: try reader.readString(),
                        name: try reader.readString(),
                        lastActivity: Date(storedMilliseconds: lastActivity),
                        unreadCount: try reader.readInt()
                    )
                }
            )
        }
        return chats
    }

    private func decodeMessage(_ row: Row, chatTag: Data) throws -> CachedMessage {
        let (tag, sentAt, sealed): (Data, Int64, Data) = try Self.decodeColumns(row, table: "message")
        let plaintext = try sealer.open(sealed, Self.messageContext(tag: tag, chatTag: chatTag, sentAt: sentAt))
        return try Self.decodePayload(plaintext, table: "message") { reader in
            CachedMessage(
                id: try reader.readString(),
                chatID: try reader.readString(),
                authorID: try reader.readString(),
                body: try reader.readString(),
                sentAt: Date(storedMilliseconds: sentAt)
            )
        }
    }

    private func insertReplayEntry(_ entry: Data, at position: Int64, _ db: Database) throws {
        let sealed = try sealer.seal(entry, Self.replayContext(position: position))
        try db.execute(sql: "INSERT INTO replay (position, payload) VALUES (?, ?)", arguments: [position, sealed])
    }

    /// Decodes a row's columns, turning a value of the wrong type (damage) into an encryption failure.
    private static func decodeColumns<A: DatabaseValueConvertible, B: DatabaseValueConvertible>(
        _ row: Row,
        table: String
    ) throws(StoreError) -> (A, B) {
        do {
            return (try row.decode(atIndex: 0), try row.decode(atIndex: row.count - 1))
        } catch {
            throw StoreError.damagedRecord(table, cause: error)
        }
    }

    private static func decodeColumns<
        A: DatabaseValueConvertible,
        B: DatabaseValueConvertible,
        C: DatabaseValueConvertible
    >(_ row: Row, table: String) throws(StoreError) -> (A, B, C) {
        do {
            return (try row.decode(atIndex: 0), try row.decode(atIndex: 1), try row.decode(atIndex: 2))
        } catch {
            throw StoreError.damagedRecord(table, cause: error)
        }
    }

    /// Reads an authenticated payload: its version, then what `body` reads, then nothing more.
    private static func decodePayload<T>(
        _ plaintext: Data,
        table: String,
        _ body: (inout ByteReader) throws -> T
    ) throws(StoreError) -> T {
        var reader = ByteReader(plaintext)
        do {
            guard try reader.readInt() == payloadVersion else { throw ByteReader.Malformed() }
            let value = try body(&reader)
            guard reader.isAtEnd else { throw ByteReader.Malformed() }
            return value
        } catch {
            throw StoreError.damagedRecord(table, cause: error)
        }
    }

    // MARK: Queue access

    // GRDB treats any use of a closed connection as a programmer error and crashes; these helpers check, on the
    // database's own serial queue (so no close can slip in between), that the connection is open, and throw.

    private func read<T: Sendable>(
        _ what: String,
        _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(StoreError) -> T {
        do {
            // Every read is one SELECT, atomic on its own: no transaction needed.
            return try await queue.unsafeRead { db in
                try Self.requireOpen(db)
                return try body(db)
            }
        } catch {
            throw .storage(error, "could not read \(what)")
        }
    }

    private func write<T: Sendable>(
        _ what: String,
        _ body: @escaping @Sendable (Database) throws -> T
    ) async throws(StoreError) -> T {
        do {
            return try await queue.writeWithoutTransaction { db in
                try Self.requireOpen(db)
                var result: T?
                try db.inTransaction {
                    result = try body(db)
                    return .commit
                }
                guard let result else { preconditionFailure("a committed transaction produced no result") }
                return result
            }
        } catch {
            throw .storage(error, "could not write \(what)")
        }
    }

    private static func requireOpen(_ db: Database) throws(StoreError) {
        guard db.sqliteConnection != nil else {
            throw StoreError(code: .storage, message: "the account database is closed")
        }
    }
}
