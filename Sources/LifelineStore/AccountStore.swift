internal import Crypto
public import Foundation
internal import GRDB
public import LifelineCore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A directory of encrypted account databases, one file per account, and the sign-in flow that opens them.
///
/// ```swift
/// let store = AccountStore(directory: appSupport.appending(path: "accounts"))
/// switch await store.signIn(email: email, password: password, verifier: stoatLogin) {
/// case .opened(let database, let session):
///     showHome(try await database.recentChats(limit: 10))   // never waits for the network
///     if let credentials = session.credentials { connect(credentials) }  // in parallel
/// case .created(let database, let session): …
/// case .secondFactorRequired(let step): askForCode(step)      // step.submit(code) continues
/// case .wrongPassword: showWrongPasswordLabel()
/// case .encryptionFailure(let failure): offerErase(failure.eraseOption)
/// …
/// }
/// ```
///
/// The login screen lists the device's accounts with ``accounts()`` (a plaintext label and server each, nothing
/// secret) and signs in by account with the password alone: ``signIn(account:password:email:verifier:)``.
///
/// Every account belongs to one server, the verifier's (``PasswordVerifier/server``): the same email on two
/// servers is two accounts, two files, and a file is never opened with another server's verifier (see
/// <doc:LifelineStore#Accounts-belong-to-one-server>).
///
/// The directory is created readable only by its owner (0700) if it does not exist; an existing directory's
/// permissions are left as they are. Database files are created 0600, and SQLite gives its journal the
/// database file's permissions. A file is named after a hash of the account's email and server (see
/// ``databaseURL(email:server:)``).
///
/// Nothing here erases an account as a side effect: only ``erase(account:)`` (or ``EraseOption/erase()``) does.
public struct AccountStore: Sendable {
    /// How the store derives keys, and the schema it expects.
    public struct Configuration: Sendable {
        /// The key derivation for new databases and re-keys. A database whose stored derivation is weaker (or a
        /// different function) is re-wrapped with this one when it next unlocks.
        public var keyDerivation: KeyDerivation

        /// The schema migrations. Internal: tests append a failing migration to exercise the migration failure.
        var schema: StoreSchema = .current

        /// Creates a configuration.
        ///
        /// - Parameter keyDerivation: The key derivation for new databases and re-keys; ``KeyDerivation/default``
        ///   unless a test needs a cheap one.
        public init(keyDerivation: KeyDerivation = .default) {
            self.keyDerivation = keyDerivation
        }
    }

    /// The directory holding the account databases.
    public let directory: URL

    /// How the store derives keys.
    public let configuration: Configuration

    /// Creates a store over a directory. Touches nothing on disk until a sign-in creates a database.
    ///
    /// - Parameters:
    ///   - directory: The directory for the account databases; created (0700) on first use if missing.
    ///   - configuration: The key derivation; the default meets OWASP's recommendation.
    public init(directory: URL, configuration: Configuration = Configuration()) {
        self.directory = directory
        self.configuration = configuration
    }

    /// The identifier of an account's database in this store: the first 128 bits of SHA-256 of the trimmed,
    /// lowercased email and the server's canonical form, in hex. The same email on two servers is two accounts.
    ///
    /// - Parameters:
    ///   - email: The account's email.
    ///   - server: The server the account belongs to.
    public func accountID(email: String, server: ServerIdentity) -> StoredAccount.ID {
        Self.hashedID(email: email, server: server)
    }

    /// The identifier a database had before accounts were bound to a server (schema `v2` and before): a hash
    /// of the email alone. Such a file keeps its name when a sign-in binds it to its server (see
    /// <doc:LifelineStore#Accounts-belong-to-one-server>); new databases are named by
    /// ``accountID(email:server:)``.
    ///
    /// - Parameter email: The account's email.
    public func accountID(email: String) -> StoredAccount.ID {
        Self.hashedID(email: email, server: nil)
    }

    private static func hashedID(email: String, server: ServerIdentity?) -> StoredAccount.ID {
        let normalized = email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        var writer = ByteWriter()
        writer.append("lifeline.store.account-file")
        writer.append(normalized)
        if let server { writer.append(server.description) }
        let digits = Array("0123456789abcdef")
        return String(
            SHA256.hash(data: writer.bytes).prefix(16).flatMap { byte in
                [digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]]
            }
        )
    }

    /// The database file a new account of `email` on `server` gets: `account-<id>.sqlite`, where id is
    /// ``accountID(email:server:)``.
    ///
    /// The name hides the email from a casual look, not from someone who can guess it: hashing a candidate
    /// email and server tells whether this directory holds its account.
    ///
    /// - Parameters:
    ///   - email: The account's email.
    ///   - server: The server the account belongs to.
    public func databaseURL(email: String, server: ServerIdentity) -> URL {
        databaseURL(account: accountID(email: email, server: server))
    }

    /// The database file of an account written before accounts were bound to a server, named by
    /// ``accountID(email:)``.
    ///
    /// - Parameter email: The account's email.
    public func databaseURL(email: String) -> URL {
        databaseURL(account: accountID(email: email))
    }

    /// The database file of an account by its identifier.
    ///
    /// - Parameter account: An identifier from ``accounts()`` or ``accountID(email:server:)``.
    public func databaseURL(account: StoredAccount.ID) -> URL {
        directory.appendingPathComponent("account-\(account).sqlite", isDirectory: false)
    }

    /// Whether the account of `email` on `server` has a database in this store: one named for it, or one
    /// written before accounts were bound whose plaintext server is `server`.
    ///
    /// - Parameters:
    ///   - email: The account's email.
    ///   - server: The server the account belongs to.
    public func hasDatabase(email: String, server: ServerIdentity) -> Bool {
        existingAccount(email: email, server: server) != nil
    }

    /// Whether a database written before accounts were bound to a server exists for `email`
    /// (``accountID(email:)``), bound since or not.
    ///
    /// - Parameter email: The account's email.
    public func hasDatabase(email: String) -> Bool {
        FileManager.default.fileExists(atPath: databaseURL(email: email).path)
    }

    /// The database of `email` on `server` that exists, if any: the one named for the pair, else an older one
    /// named by the email alone whose plaintext server is `server`. An older file not bound yet is not it:
    /// only a sign-in can tell whose it is.
    func existingAccount(email: String, server: ServerIdentity) -> StoredAccount.ID? {
        let named = accountID(email: email, server: server)
        if FileManager.default.fileExists(atPath: databaseURL(account: named).path) { return named }
        let legacy = accountID(email: email)
        let url = databaseURL(account: legacy)
        guard FileManager.default.fileExists(atPath: url.path), Self.readServer(at: url) == server else { return nil }
        return legacy
    }

    /// The accounts that have a database here, for the login screen: the most recently written first.
    ///
    /// Reads each file's plaintext label and server without a password and writes nothing, except that a transaction a
    /// crash interrupted is rolled back first (SQLite would do the same at the next open; it restores the last
    /// committed state). A file that cannot be read is still listed, without a label or a server.
    ///
    /// - Returns: One entry per database file; none when the directory does not exist.
    /// - Throws: ``StoreError`` with code ``StoreErrorCode/storage`` when the directory cannot be listed.
    public func accounts() throws(StoreError) -> [StoredAccount] {
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw StoreError(code: .storage, message: "could not list the store directory", cause: error)
        }
        let accounts = names.compactMap { name -> StoredAccount? in
            guard name.hasPrefix("account-"), name.hasSuffix(".sqlite") else { return nil }
            let id = String(name.dropFirst("account-".count).dropLast(".sqlite".count))
            guard Self.isAccountID(id) else { return nil }
            let url = databaseURL(account: id)
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            let plaintext = Self.readPlaintext(at: url)
            return StoredAccount(
                id: id,
                label: plaintext?.label,
                server: plaintext?.server,
                lastModified: attributes?[.modificationDate] as? Date
            )
        }
        return accounts.sorted { first, second in
            let (a, b) = (first.lastModified ?? .distantPast, second.lastModified ?? .distantPast)
            return a != b ? a > b : first.id < second.id
        }
    }

    /// Runs the sign-in flow (<doc:LifelineStore#The-sign-in-flow>) for one account, by email, on the verifier's
    /// server (``PasswordVerifier/server``).
    ///
    /// 1. No database of this email on this server: verify the password with `verifier`; if right, create the
    ///    database keyed with it, bound to the server, and store the new session
    ///    (``SignInOutcome/created(_:session:)``). A database of the same email on another server is another
    ///    account, left as it is.
    /// 2. A database: roll back a transaction a crash interrupted, if any (the last committed state), read the
    ///    keyring without writing, and unwrap the data key with `password`. If it does not unwrap, verify the
    ///    password with `verifier`: right means ``SignInOutcome/encryptionFailure(_:)`` (and the session the
    ///    check created is ended), wrong ``SignInOutcome/wrongPassword``, unreachable
    ///    ``SignInOutcome/wrongPasswordUnconfirmed``. Until the key unwraps, no committed byte changes.
    /// 3. Migrate the schema; a failure is ``SignInOutcome/migrationFailure(_:)`` and keeps the data.
    /// 4. Re-wrap the data key if its stored key derivation is weaker than ``Configuration/keyDerivation``.
    /// 5. Decrypt the account record (email, server, cached session) and check that its server is the
    ///    verifier's. With a cached session: ``SignInOutcome/opened(_:session:)`` with
    ///    ``OpenedSession/cached(_:)``, and the server is not asked. Without one: verify the password with the
    ///    server (LOGIN_UNCACHED) and answer ``SignInOutcome/opened(_:session:)`` with what it said
    ///    (``OpenedSession``); the database is open whatever it said, so the first screen never waits for a
    ///    login.
    ///
    /// A database written before accounts were bound to a server (named by the email alone) is bound at its
    /// first sign-in, never resumed before (<doc:LifelineStore#Accounts-belong-to-one-server>).
    ///
    /// Wherever the server asks for a second factor, the outcome is ``SignInOutcome/secondFactorRequired(_:)``,
    /// whose step continues the flow at that point. A damaged keyring or file is an encryption failure without
    /// asking the server: no password can open it.
    ///
    /// - Parameters:
    ///   - email: The account's email.
    ///   - password: The password the user typed. Never stored or logged; only keys derived from it are kept.
    ///   - verifier: Checks the password with the server when the flow needs it; its server is the account's.
    /// - Returns: The branch of the flow the sign-in took. Never throws: every failure is an outcome.
    public func signIn(email: String, password: String, verifier: some PasswordVerifier) async -> SignInOutcome {
        await SignInFlow(store: self, verifier: verifier).signIn(email: email, password: password)
    }

    /// Runs the sign-in flow for an account from ``accounts()``, with the password alone.
    ///
    /// The same flow as ``signIn(email:password:verifier:)``. An account whose file names another server than
    /// the verifier's is ``SignInOutcome/otherServer(_:)`` at once, with nothing read but the plaintext and
    /// nothing sent. When the password unwraps the key, the email is read from the sealed account record and
    /// the server is asked nothing (or, with no cached session, asked with that email). When it does not
    /// unwrap, the server can only be asked with an email: without one (or with one that is not this
    /// account's, which is ignored) the outcome is ``SignInOutcome/wrongPasswordUnconfirmed``; pass `email` to
    /// confirm online (see <doc:LifelineStore#Signing-in-by-account>).
    ///
    /// - Parameters:
    ///   - account: The account's identifier, from ``accounts()``.
    ///   - password: The password the user typed.
    ///   - email: The account's email, if the user gave it: lets the flow ask the server about a password that
    ///     does not open the database, and recreate a database erased since it was listed.
    ///   - verifier: Checks the password with the server when the flow needs it.
    /// - Returns: The branch of the flow the sign-in took; ``SignInOutcome/storageFailure(_:)`` with
    ///   ``StoreErrorCode/noSuchAccount`` when the store has no such account and no email was given.
    public func signIn(
        account: StoredAccount.ID,
        password: String,
        email: String? = nil,
        verifier: some PasswordVerifier
    ) async -> SignInOutcome {
        guard Self.isAccountID(account) else {
            return .storageFailure(StoreError(code: .noSuchAccount, message: "not an account identifier"))
        }
        let server = verifier.server
        let usableEmail = email.flatMap {
            accountID(email: $0, server: server) == account || accountID(email: $0) == account ? $0 : nil
        }
        return await SignInFlow(store: self, verifier: verifier)
            .signIn(account: account, email: usableEmail, password: password)
    }

    /// Erases the database of `email` on `server` (the one ``hasDatabase(email:server:)`` finds). See
    /// ``erase(account:)``. A database of the same email on another server, or one not bound to a server yet,
    /// is left as it is.
    ///
    /// - Parameters:
    ///   - email: The account whose database to erase.
    ///   - server: The server the account belongs to.
    /// - Throws: ``StoreError`` with code ``StoreErrorCode/storage`` when a file exists and cannot be removed.
    public func erase(email: String, server: ServerIdentity) throws(StoreError) {
        try erase(account: existingAccount(email: email, server: server) ?? accountID(email: email, server: server))
    }

    /// Erases the database named by the email alone (``accountID(email:)``), written before accounts were
    /// bound to a server. See ``erase(account:)``.
    ///
    /// - Parameter email: The account whose database to erase.
    /// - Throws: ``StoreError`` with code ``StoreErrorCode/storage`` when a file exists and cannot be removed.
    public func erase(email: String) throws(StoreError) {
        try erase(account: accountID(email: email))
    }

    /// Erases an account's database: the file, its journal, WAL and shared-memory files, and any temporary file a
    /// crashed creation left.
    ///
    /// The only way the store erases data. Close any ``AccountDatabase`` for the account first. Erasing an
    /// account that has no database does nothing.
    ///
    /// - Parameter account: The account whose database to erase.
    /// - Throws: ``StoreError`` with code ``StoreErrorCode/storage`` when a file exists and cannot be removed,
    ///   ``StoreErrorCode/noSuchAccount`` when `account` is not an identifier the store makes.
    public func erase(account: StoredAccount.ID) throws(StoreError) {
        guard Self.isAccountID(account) else {
            throw StoreError(code: .noSuchAccount, message: "not an account identifier")
        }
        let url = databaseURL(account: account)
        var paths = ["", "-journal", "-wal", "-shm"].map { url.path + $0 }
        // A creation interrupted by a crash leaves its temporary file (see `createDatabase`).
        let temporaryPrefix = ".\(url.lastPathComponent).creating-"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        paths += names.filter { $0.hasPrefix(temporaryPrefix) }.map { directory.appendingPathComponent($0).path }
        for path in paths where FileManager.default.fileExists(atPath: path) {
            do {
                try FileManager.default.removeItem(atPath: path)
            } catch {
                throw StoreError(code: .storage, message: "could not remove an account database file", cause: error)
            }
        }
    }

    /// Whether `id` is an identifier this store makes: 32 lowercase hex digits. Anything else could name
    /// another file.
    static func isAccountID(_ id: String) -> Bool {
        id.utf8.count == 32 && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

// MARK: - Reading before the key unwraps

extension AccountStore {
    enum KeyringReadFailure: Error {
        /// The file is not a database, or has no readable keyring.
        case damaged(any Error)
        case storage(StoreError)
    }

    /// Rolls back a transaction a crash or kill left in the file's rollback journal, if there is one.
    ///
    /// A hot journal makes every read-only connection fail (SQLITE_READONLY_ROLLBACK), so without this a crash in
    /// the middle of a large write would lock the account out for good. A read-write connection rolls it back
    /// when it first reads (GRDB reads the schema on open): the file returns to its last committed state, which
    /// is what any later open would see anyway, and nothing else is written.
    static func rollBackInterruptedTransaction(at url: URL) throws {
        guard FileManager.default.fileExists(atPath: url.path + "-journal") else { return }
        let queue = try DatabaseQueue(path: url.path, configuration: databaseConfiguration(readonly: false))
        try queue.close()
    }

    /// Reads the keyring through a read-only connection, after rolling back an interrupted transaction, so
    /// nothing committed is written before the password is known.
    static func readKeyring(at url: URL) -> Result<Keyring, KeyringReadFailure> {
        do {
            try rollBackInterruptedTransaction(at: url)
            let queue = try DatabaseQueue(path: url.path, configuration: databaseConfiguration(readonly: true))
            defer { try? queue.close() }
            guard let keyring = try queue.read(Keyring.read) else {
                return .failure(.damaged(StoreError(code: .encryptionFailure, message: "the keyring has no row")))
            }
            return .success(keyring)
        } catch let error as DatabaseError
            where [.SQLITE_NOTADB, .SQLITE_CORRUPT, .SQLITE_ERROR, .SQLITE_MISMATCH].contains(error.resultCode)
        {
            // SQLITE_ERROR here is "no such table" or "no such column": not an account database.
            return .failure(.damaged(error))
        } catch let error as DatabaseError {
            return .failure(.storage(.from(error, "could not read the account database")))
        } catch {
            // A value of the wrong type in the keyring row.
            return .failure(.damaged(error))
        }
    }

    /// The plaintext label and server of a database file, without a password; nil when it cannot be read.
    static func readPlaintext(at url: URL) -> (label: String?, server: ServerIdentity?)? {
        do {
            try rollBackInterruptedTransaction(at: url)
            let queue = try DatabaseQueue(path: url.path, configuration: databaseConfiguration(readonly: true))
            defer { try? queue.close() }
            return try queue.read { db in (try readLabel(db), try readServer(db)) }
        } catch {
            return nil
        }
    }

    /// The plaintext label of a database file, without a password; nil when it has none or cannot be read.
    static func readLabel(at url: URL) -> String? {
        readPlaintext(at: url)?.label
    }

    /// The plaintext server of a database file, without a password; nil when it has none (a file not bound
    /// yet), names no valid server, or cannot be read.
    static func readServer(at url: URL) -> ServerIdentity? {
        readPlaintext(at: url)?.server
    }

    /// The label row; nil when there is none, or no label table (a `v1` file).
    static func readLabel(_ db: Database) throws -> String? {
        guard try db.tableExists("label") else { return nil }
        return try String.fetchOne(db, sql: "SELECT text FROM label WHERE id = 1")
    }

    /// The plaintext server row; nil when there is none, no server table (before `v3`), or a value that is not
    /// a server's canonical form.
    static func readServer(_ db: Database) throws -> ServerIdentity? {
        guard try db.tableExists("server") else { return nil }
        return try String.fetchOne(db, sql: "SELECT url FROM server WHERE id = 1").flatMap(ServerIdentity.init)
    }

    /// Writes the plaintext server row (the table exists from `v3` on).
    static func writeServer(_ server: ServerIdentity, _ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO server (id, url) VALUES (1, ?)", arguments: [server.description])
    }

    static func databaseConfiguration(readonly: Bool) -> GRDB.Configuration {
        var configuration = GRDB.Configuration()
        configuration.readonly = readonly
        configuration.label = "LifelineStore"
        // Another connection of this process (an open AccountDatabase) may hold the write lock for a moment.
        configuration.busyMode = .timeout(10)
        if !readonly {
            // Deleted and replaced content (a logged-out session, an old wrapped key, trimmed messages) is
            // overwritten with zeros, not left in free space. An 8 MiB page cache (SQLite's default is 2 MiB)
            // keeps a large cache's indexes in memory while batches are written: about 15 % faster ingestion.
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA secure_delete = ON")
                try db.execute(sql: "PRAGMA cache_size = -8192")
            }
        }
        return configuration
    }
}

// MARK: - Opening

extension AccountStore {
    /// Reads the sealed account record of a file whose key unwrapped, through a read-only connection and before
    /// any migration: the flow decides from its server whether the file may be opened at all, with no byte
    /// written. Every schema since `v1` has the account table.
    static func readRecordWithoutWriting(at url: URL, dataKey: SymmetricKey) -> Result<AccountRecord, StoreError> {
        do {
            let queue = try DatabaseQueue(path: url.path, configuration: databaseConfiguration(readonly: true))
            defer { try? queue.close() }
            let sealer = RecordSealer(dataKey: dataKey)
            return .success(try queue.read { db in try AccountDatabase.readAccount(db, sealer) })
        } catch let error as StoreError {
            return .failure(error)
        } catch {
            return .failure(.from(error, "could not read the account record"))
        }
    }

    /// Opens a database whose key unwrapped: migrates, raises the key derivation, reads the account record.
    ///
    /// - Returns: The account record, or the outcome that ends the sign-in (the database is then closed).
    func openUnwrapped(
        at url: URL,
        account: StoredAccount.ID,
        dataKey: SymmetricKey,
        password: String,
        keyring: Keyring
    ) async -> Result<(AccountDatabase, AccountRecord), OpeningFailure> {
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: url.path, configuration: Self.databaseConfiguration(readonly: false))
        } catch {
            return .failure(OpeningFailure(.storageFailure(.from(error, "could not open the account database"))))
        }
        let database = AccountDatabase(
            queue: queue,
            dataKey: dataKey,
            store: self,
            accountID: account
        )
        let result = await finishOpening(database, password: password, keyring: keyring)
        if case .failure = result {
            try? database.close()
        }
        return result.map { (database, $0) }
    }

    /// A sign-in outcome that ends the flow before the database is open.
    struct OpeningFailure: Error {
        var outcome: SignInOutcome
        init(_ outcome: SignInOutcome) { self.outcome = outcome }
    }

    private func finishOpening(
        _ database: AccountDatabase,
        password: String,
        keyring: Keyring
    ) async -> Result<AccountRecord, OpeningFailure> {
        let eraseOption = EraseOption(store: self, account: database.accountID)
        let schema = configuration.schema
        let found: (version: String?, isNewer: Bool)
        do {
            found = try await database.queue.read { try schema.foundVersion($0) }
        } catch {
            return .failure(OpeningFailure(.storageFailure(.from(error, "could not read the schema version"))))
        }
        var migrationFailure = MigrationFailure(
            foundVersion: found.version,
            expectedVersion: schema.expectedVersion,
            isNewerThanExpected: found.isNewer,
            eraseOption: eraseOption
        )
        if found.isNewer {
            return .failure(OpeningFailure(.migrationFailure(migrationFailure)))
        }
        // Each migration runs in its own transaction: a failing one leaves the file as the previous left it. The
        // asynchronous form keeps a cooperative thread from blocking on the database queue meanwhile.
        let migrated = await withCheckedContinuation { continuation in
            schema.migrator.asyncMigrate(database.queue) { result in
                continuation.resume(returning: result.map { _ in () })
            }
        }
        if case .failure(let error) = migrated {
            migrationFailure.cause = error
            return .failure(OpeningFailure(.migrationFailure(migrationFailure)))
        }

        // Raise the key derivation to the configured one. A failure here keeps the old, valid keyring (the
        // write is one transaction) and is retried at the next unlock; it is no reason to refuse the account.
        if let stored = try? keyring.checkedKeyDerivation(), !stored.isAtLeast(configuration.keyDerivation) {
            try? await database.rekey(newPassword: password)
        }

        do {
            return .success(try await database.accountRecord())
        } catch  where error.code == .encryptionFailure {
            let failure = EncryptionFailure(
                code: .damagedRecord,
                message: "the account record does not authenticate",
                cause: error,
                eraseOption: eraseOption
            )
            return .failure(OpeningFailure(.encryptionFailure(failure)))
        } catch {
            return .failure(OpeningFailure(.storageFailure(error)))
        }
    }
}

// MARK: - Creating

extension AccountStore {
    /// Creates an account database under a temporary name, fills it, then links it into place.
    ///
    /// - Returns: The open database, or nil when another sign-in created the file first.
    func createDatabase(
        account: StoredAccount.ID,
        email: String,
        server: ServerIdentity,
        password: String,
        session: SessionCredentials
    ) throws(StoreError) -> AccountDatabase? {
        let url = databaseURL(account: account)
        try createDirectoryIfMissing()
        let temporary = directory.appendingPathComponent(
            ".\(url.lastPathComponent).creating-\(UUID().uuidString)",
            isDirectory: false
        )
        try Self.createOwnerOnlyFile(at: temporary.path)
        defer {
            for suffix in ["", "-journal"] {
                try? FileManager.default.removeItem(atPath: temporary.path + suffix)
            }
        }

        let dataKey = SymmetricKey(size: .bits256)
        do {
            let keyring = try Keyring.wrap(dataKey, password: password, using: configuration.keyDerivation)
            let queue = try DatabaseQueue(
                path: temporary.path,
                configuration: Self.databaseConfiguration(readonly: false)
            )
            let sealer = RecordSealer(dataKey: dataKey)
            try configuration.schema.migrator.migrate(queue)
            try queue.write { db in
                try keyring.write(db)
                try Self.writeServer(server, db)
                try AccountDatabase.writeAccount(
                    AccountRecord(email: email, server: server, session: session), db, sealer)
            }
            try queue.close()
        } catch {
            throw .from(error, "could not create the account database")
        }

        // link(2) fails rather than replace an existing file, unlike rename(2).
        if link(temporary.path, url.path) != 0 {
            let code = errno
            if code == EEXIST { return nil }
            throw StoreError(
                code: .storage,
                message: "could not move the new account database into place",
                cause: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
            )
        }
        do {
            let queue = try DatabaseQueue(path: url.path, configuration: Self.databaseConfiguration(readonly: false))
            return AccountDatabase(
                queue: queue,
                dataKey: dataKey,
                store: self,
                accountID: account
            )
        } catch {
            throw .from(error, "could not open the new account database")
        }
    }

    private func createDirectoryIfMissing() throws(StoreError) {
        guard !FileManager.default.fileExists(atPath: directory.path) else { return }
        do {
            try FileManager.default.createDirectory(
                at: directory,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw StoreError(code: .storage, message: "could not create the store directory", cause: error)
        }
    }

    /// Creates an empty file readable and writable only by its owner, failing if it exists.
    private static func createOwnerOnlyFile(at path: String) throws(StoreError) {
        let descriptor = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(
                code: .storage,
                message: "could not create the account database file",
                cause: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            )
        }
        // The umask can only remove permission bits, but set the mode explicitly anyway.
        _ = fchmod(descriptor, 0o600)
        close(descriptor)
    }
}
