internal import Crypto
public import Foundation
internal import GRDB
public import LifelineCore
internal import Synchronization

/// An unlocked account database: the cached session, the account's cache (chats, messages, spaces, members,
/// users) and the replay record, decrypted on read.
///
/// Sign-in returns one (``SignInOutcome/opened(_:session:)``). The first screen reads ``recentChats(limit:)``
/// (the 10 most recent chats with their last messages, from an index, decrypting only those), then the rest
/// with ``chats(olderThan:limit:)``. The cache is written in batches with ``apply(_:messagesPerChat:)``.
///
/// Every method runs its database work and decryption on the database's own serial queue and suspends the
/// caller meanwhile, so none blocks the main actor. Every method throws ``StoreError``: code
/// ``StoreErrorCode/encryptionFailure`` when a sealed record does not authenticate (damaged or moved),
/// ``StoreErrorCode/diskFull`` or ``StoreErrorCode/storage`` when SQLite fails, ``StoreErrorCode/closed``
/// after ``close()``. A failed write changes nothing: every write is one transaction.
///
/// The instance holds the data key in memory until ``close()`` (or until it is released); the password is
/// never kept.
public final class AccountDatabase: Sendable {
    let queue: DatabaseQueue
    /// The store the database belongs to: its key derivation, and the erase options the flow offers.
    let store: AccountStore
    /// The account this database belongs to, as ``AccountStore/accounts()`` lists it.
    public let accountID: StoredAccount.ID
    /// The data key and the keys derived from it; nil once closed.
    private let keys: Mutex<Keys?>
    /// Chat tags by chat id, so a batch of messages computes one HMAC per message instead of two. Holds ids the
    /// process already has in memory; emptied at ``close()``.
    let chatTagCache = Mutex<[String: Data]>([:])
    static let chatTagCacheLimit = 50_000

    struct Keys: Sendable {
        let dataKey: SymmetricKey
        let sealer: RecordSealer
    }

    init(queue: DatabaseQueue, dataKey: SymmetricKey, store: AccountStore, accountID: StoredAccount.ID) {
        self.queue = queue
        self.store = store
        self.accountID = accountID
        self.keys = Mutex(Keys(dataKey: dataKey, sealer: RecordSealer(dataKey: dataKey)))
    }

    /// The path of the database file.
    public var path: String { queue.path }

    /// Closes the database and drops its data key from memory. Later calls throw ``StoreErrorCode/closed``;
    /// closing again does nothing.
    ///
    /// - Throws: ``StoreError`` with code ``StoreErrorCode/storage`` if SQLite cannot close the file (the key
    ///   is dropped all the same).
    public func close() throws(StoreError) {
        keys.withLock { $0 = nil }
        chatTagCache.withLock { $0 = [:] }
        do {
            try queue.close()
        } catch {
            throw .from(error, "could not close the account database")
        }
    }

    /// The keys, or ``StoreErrorCode/closed``.
    func requireKeys() throws(StoreError) -> Keys {
        guard let keys = keys.withLock({ $0 }) else { throw .closed }
        return keys
    }

    // MARK: Account, session and label

    /// The account's email, as stored when the database was created. Sealed.
    public func email() async throws(StoreError) -> String {
        try await accountRecord().email
    }

    /// The server the account belongs to, from the sealed record: the only server its sessions are sent to.
    /// `nil` only for a file written before accounts were bound, which the sign-in never opens unbound.
    public func server() async throws(StoreError) -> ServerIdentity? {
        try await accountRecord().server
    }

    /// The cached session, for LOGIN_CACHED; nil when none is cached. Its `SessionCredentials/issuer` is the
    /// account's ``server()``.
    public func cachedSession() async throws(StoreError) -> SessionCredentials? {
        try await accountRecord().session
    }

    /// Replaces the cached session: after a new login, or nil after a logout.
    ///
    /// The previous session's sealed bytes are overwritten on disk, not only unlinked (SQLite's
    /// `secure_delete`): after a logout no copy of the token is left in the file, even under the data key.
    ///
    /// - Parameter session: The session to cache, or nil to forget it. Its issuer, when set, must be the
    ///   account's server; the stored session is read back with that issuer.
    /// - Throws: ``StoreError`` with code ``StoreErrorCode/otherServer`` for a session another server issued
    ///   (nothing is written).
    public func storeSession(_ session: SessionCredentials?) async throws(StoreError) {
        try await write("the session") { db, sealer in
            var account = try Self.readAccount(db, sealer)
            try Self.requireIssuer(session, of: account)
            account.session = session
            try Self.writeAccount(account, db, sealer)
        }
    }

    /// Refuses a session whose issuer is known and is not the account's server.
    static func requireIssuer(_ session: SessionCredentials?, of account: AccountRecord) throws(StoreError) {
        guard let issuer = session?.issuer, issuer != account.server else { return }
        throw StoreError(
            code: .otherServer,
            message:
                "a session issued by \(issuer) is not stored in an account of \(account.server.map(\.description) ?? "no server")"
        )
    }

    /// Binds a database written before accounts were bound to a server: the server goes into the sealed record
    /// and the plaintext row, and `session` (verified by that server, for the user id the file holds) replaces
    /// the cached one, in one transaction. The replaced session is dropped, never sent anywhere: nobody knows
    /// which server issued it.
    func bind(to server: ServerIdentity, session: SessionCredentials) async throws(StoreError) {
        try await write("the account's server") { db, sealer in
            var account = try Self.readAccount(db, sealer)
            account.server = server
            account.session = session
            try AccountStore.writeServer(server, db)
            try Self.writeAccount(account, db, sealer)
        }
    }

    /// Writes the plaintext server row from the sealed record when it is missing or differs (a row someone
    /// removed or edited): the login screen lists what the sealed record says.
    func repairListedServer(_ server: ServerIdentity) async throws(StoreError) {
        try await write("the account's server") { db, _ in
            guard try AccountStore.readServer(db) != server else { return }
            try AccountStore.writeServer(server, db)
        }
    }

    /// Caches `session` (and writes `keyring`, if given, in the same transaction).
    ///
    /// - Returns: The session it replaced, if one was cached.
    func replaceSession(
        with session: SessionCredentials, keyring: Keyring? = nil
    ) async throws(StoreError)
        -> SessionCredentials?
    {
        try await write("the session") { db, sealer in
            var account = try Self.readAccount(db, sealer)
            try Self.requireIssuer(session, of: account)
            try keyring?.write(db)
            let replaced = account.session
            account.session = session
            try Self.writeAccount(account, db, sealer)
            return replaced
        }
    }

    func accountRecord() async throws(StoreError) -> AccountRecord {
        try await read("the account") { try Self.readAccount($0, $1) }
    }

    /// The label the login screen shows for this account (``StoredAccount/label``), if one was set.
    public func label() async throws(StoreError) -> String? {
        try await read("the label") { db, _ in try AccountStore.readLabel(db) }
    }

    /// Sets or removes the label the login screen shows for this account, typically the username once the
    /// session knows it.
    ///
    /// The label is the one value the store keeps in plaintext, so ``AccountStore/accounts()`` can list accounts
    /// before any password is typed: never put an email, a token or anything secret in it.
    ///
    /// - Parameter label: The label, or nil to remove it.
    public func setLabel(_ label: String?) async throws(StoreError) {
        try await write("the label") { db, _ in
            if let label {
                try db.execute(sql: "INSERT OR REPLACE INTO label (id, text) VALUES (1, ?)", arguments: [label])
            } else {
                try db.execute(sql: "DELETE FROM label")
            }
        }
    }

    // MARK: Replay record

    /// The replay record: opaque entries, in the order they were recorded. Another module encodes them.
    public func replayRecord() async throws(StoreError) -> [Data] {
        try await read("the replay record") { db, sealer in
            let rows = try Row.fetchCursor(db, sql: "SELECT position, payload FROM replay ORDER BY position")
            var entries: [Data] = []
            while let row = try rows.next() {
                let position: Int64 = try Self.column(row, 0, table: "replay")
                let sealed: Data = try Self.column(row, 1, table: "replay")
                entries.append(try sealer.open(sealed, Self.replayContext(position: position)))
            }
            return entries
        }
    }

    /// Replaces the whole replay record.
    ///
    /// - Parameter entries: The entries, in order.
    public func replaceReplayRecord(_ entries: [Data]) async throws(StoreError) {
        try await write("the replay record") { db, sealer in
            try db.execute(sql: "DELETE FROM replay")
            for (position, entry) in entries.enumerated() {
                try Self.insertReplayEntry(entry, at: Int64(position), db, sealer)
            }
        }
    }

    /// Appends one entry to the replay record.
    ///
    /// - Parameter entry: The encoded entry.
    public func appendToReplayRecord(_ entry: Data) async throws(StoreError) {
        try await write("the replay record") { db, sealer in
            let last = try Int64.fetchOne(db, sql: "SELECT MAX(position) FROM replay")
            try Self.insertReplayEntry(entry, at: (last ?? -1) + 1, db, sealer)
        }
    }

    // MARK: Password

    /// Wraps the data key under a new password, with the configured key derivation and a fresh salt.
    ///
    /// Only the keyring row changes (one transaction): the records stay sealed under the same data key, so none
    /// is re-encrypted and none can be lost. The previous wrapped key is overwritten on disk (SQLite's
    /// `secure_delete`), so the old password stops opening this file. Afterwards only `newPassword` opens the
    /// database. Prefer ``renewSession(password:verifier:)``, which verifies the new password with the server
    /// before re-keying: a typo here locks the user out of the cache.
    ///
    /// - Parameter newPassword: The account's new password.
    /// - Throws: ``StoreError``; ``StoreErrorCode/closed`` after ``close()``.
    public func rekey(newPassword: String) async throws(StoreError) {
        let keyring = try await wrapDataKey(password: newPassword)
        try await write("the keyring") { db, _ in try keyring.write(db) }
    }

    /// The data key wrapped under `password`, derived on a thread of its own (see `onOwnThread`).
    func wrapDataKey(password: String) async throws(StoreError) -> Keyring {
        let dataKey = try requireKeys().dataKey
        let keyDerivation = store.configuration.keyDerivation
        return try await onOwnThread { () throws(StoreError) -> Keyring in
            do {
                return try Keyring.wrap(dataKey, password: password, using: keyDerivation)
            } catch {
                throw .from(error, "could not wrap the data key")
            }
        }
    }

    /// Logs in with a password and caches the new session: the sign-in flow's LOGIN_UNCACHED step, for an
    /// open database.
    ///
    /// Call it when no session is cached or the cached one was refused (after ``OpenedSession/serverUnreachable``
    /// once the network is back, or after a logout), and after ``OpenedSession/passwordMismatch`` with the
    /// account's new password.
    ///
    /// - A password that opens this database is verified with the server: right, the new session is cached
    ///   (``OpenedSession/verified(_:)``); refused, the password was changed elsewhere
    ///   (``OpenedSession/passwordMismatch``); unreachable or another failure, the database stays as it is.
    /// - A password that does not open it is verified too: right, it is the account's new password, so the data
    ///   key is re-wrapped under it and the session cached in one transaction (``OpenedSession/verified(_:)``);
    ///   refused, ``SignInOutcome/wrongPassword``; unreachable, ``SignInOutcome/wrongPasswordUnconfirmed``.
    /// - A second factor answers ``SignInOutcome/secondFactorRequired(_:)``, whose step continues here.
    ///
    /// The outcome's database is this one; it stays open whatever the outcome (close it yourself). A session
    /// the server created that cannot be cached (a failed write) is ended through the verifier.
    ///
    /// - Parameters:
    ///   - password: The password the user typed.
    ///   - verifier: Checks the password with the server.
    /// - Returns: ``SignInOutcome/opened(_:session:)`` with this database, or the outcomes above;
    ///   ``SignInOutcome/storageFailure(_:)`` when the database cannot be read or written.
    public func renewSession(password: String, verifier: some PasswordVerifier) async -> SignInOutcome {
        await SignInFlow(store: store, verifier: verifier).renewSession(self, password: password)
    }
}

// MARK: - Queue access

extension AccountDatabase {
    // GRDB treats any use of a closed connection as a programmer error and crashes; these helpers check, on the
    // database's own serial queue (so no close can slip in between), that the keys and the connection are
    // there, and throw otherwise.

    /// Runs `body` in a read transaction with the record sealer.
    func read<T: Sendable>(
        _ what: String,
        _ body: @escaping @Sendable (Database, RecordSealer) throws -> T
    ) async throws(StoreError) -> T {
        do {
            return try await queue.unsafeRead { db in
                let sealer = try self.requireOpen(db)
                var result: T?
                try db.inTransaction(.deferred) {
                    result = try body(db, sealer)
                    return .commit
                }
                guard let result else { preconditionFailure("a committed transaction produced no result") }
                return result
            }
        } catch {
            throw .from(error, "could not read \(what)")
        }
    }

    /// Runs `body` in one write transaction with the record sealer: all of it is written, or none.
    func write<T: Sendable>(
        _ what: String,
        _ body: @escaping @Sendable (Database, RecordSealer) throws -> T
    ) async throws(StoreError) -> T {
        do {
            return try await queue.writeWithoutTransaction { db in
                let sealer = try self.requireOpen(db)
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db, sealer)
                    return .commit
                }
                guard let result else { preconditionFailure("a committed transaction produced no result") }
                return result
            }
        } catch {
            throw .from(error, "could not write \(what)")
        }
    }

    private func requireOpen(_ db: Database) throws(StoreError) -> RecordSealer {
        let sealer = try requireKeys().sealer
        guard db.sqliteConnection != nil else { throw .closed }
        return sealer
    }
}

extension StoreError {
    /// Wraps any error thrown while using the database as a ``StoreError``, keeping store errors as they are: a
    /// full disk or file is ``Code/diskFull``, anything else from SQLite or the file system ``Code/storage``.
    static func from(_ error: any Error, _ message: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_FULL {
            return StoreError(code: .diskFull, message: "the disk is full: \(message)", cause: error)
        }
        return StoreError(code: .storage, message: message, cause: error)
    }
}
