internal import Crypto
public import Foundation
internal import GRDB
internal import LifelineCore

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
/// case .opened(let database, let cachedSession):
///     showHome(try await database.recentChats(limit: 10))   // never waits for the network
///     session.start(cachedSession)                           // LOGIN_CACHED, in parallel
/// case .created(let database, let session): …
/// case .wrongPassword: showWrongPasswordLabel()
/// case .encryptionFailure(let failure): offerErase(failure.eraseOption)
/// …
/// }
/// ```
///
/// The directory is created readable only by its owner (0700) if it does not exist; an existing directory's
/// permissions are left as they are. Database files are created 0600, and SQLite gives its journal the
/// database file's permissions. A file is named after a hash of the account's email (see ``databaseURL(email:)``).
///
/// Nothing here erases an account as a side effect: only ``erase(email:)`` (or ``EraseOption/erase()``) does.
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

    /// The database file of an account: `account-<hex>.sqlite`, where hex is the first 128 bits of SHA-256 of
    /// the trimmed, lowercased email.
    ///
    /// The name hides the email from a casual look, not from someone who can guess it: hashing a candidate
    /// email tells whether this directory holds its account.
    ///
    /// - Parameter email: The account's email.
    public func databaseURL(email: String) -> URL {
        let normalized = email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        var writer = ByteWriter()
        writer.append("lifeline.store.account-file")
        writer.append(normalized)
        let hex = SHA256.hash(data: writer.bytes).prefix(16).map { byte in
            let digits = Array("0123456789abcdef")
            return "\(digits[Int(byte >> 4)])\(digits[Int(byte & 0x0f)])"
        }
        return directory.appendingPathComponent("account-\(hex.joined()).sqlite", isDirectory: false)
    }

    /// Whether the account has a database in this store.
    ///
    /// - Parameter email: The account's email.
    public func hasDatabase(email: String) -> Bool {
        FileManager.default.fileExists(atPath: databaseURL(email: email).path)
    }

    /// Runs the sign-in flow of spec/sign-in-flow.md for one account.
    ///
    /// 1. No database: verify the password with `verifier`; if right, create the database keyed with it and
    ///    store the new session (``SignInOutcome/created(_:session:)``).
    /// 2. A database: read its keyring without writing, and unwrap the data key with `password`. If it does not
    ///    unwrap, verify the password with `verifier`: right means ``SignInOutcome/encryptionFailure(_:)``,
    ///    wrong ``SignInOutcome/wrongPassword``, unreachable ``SignInOutcome/wrongPasswordUnconfirmed``.
    ///    Until the key unwraps, the file is not opened for writing: a wrong password changes no byte.
    /// 3. Migrate the schema; a failure is ``SignInOutcome/migrationFailure(_:)`` and keeps the data.
    /// 4. Re-wrap the data key if its stored key derivation is weaker than ``Configuration/keyDerivation``.
    /// 5. Decrypt the account record (email, cached session) and return ``SignInOutcome/opened(_:cachedSession:)``.
    ///    The server is not asked: the first screen never waits for the network.
    ///
    /// A damaged keyring or file is an encryption failure without asking the server: no password can open it.
    ///
    /// - Parameters:
    ///   - email: The account's email.
    ///   - password: The password the user typed. Never stored or logged; only keys derived from it are kept.
    ///   - verifier: Checks the password with the server when the flow needs it.
    /// - Returns: The branch of the flow the sign-in took. Never throws: every failure is an outcome.
    public func signIn(email: String, password: String, verifier: some PasswordVerifier) async -> SignInOutcome {
        let url = databaseURL(email: email)
        if FileManager.default.fileExists(atPath: url.path) {
            return await openDatabase(at: url, email: email, password: password, verifier: verifier)
        }
        switch await verifier.verifyPassword(email: email, password: password) {
        case .wrongPassword:
            return .wrongPassword
        case .unreachable:
            return .serverUnreachable
        case .failed(let failure):
            return .verificationFailed(failure)
        case .verified(let session):
            do throws(StoreError) {
                guard let database = try createDatabase(at: url, email: email, password: password, session: session)
                else {
                    // Another sign-in created the database while the server answered: open that one.
                    return await openDatabase(at: url, email: email, password: password, verifier: verifier)
                }
                return .created(database, session: session)
            } catch {
                return .storageFailure(error)
            }
        }
    }

    /// Erases an account's database: the file, its journal, WAL and shared-memory files, and any temporary file a
    /// crashed creation left.
    ///
    /// The only way the store erases data. Close any ``AccountDatabase`` for the account first. Erasing an
    /// account that has no database does nothing.
    ///
    /// - Parameter email: The account whose database to erase.
    /// - Throws: ``StoreError`` with code ``StoreError/Code/storage`` when a file exists and cannot be removed.
    public func erase(email: String) throws(StoreError) {
        let url = databaseURL(email: email)
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
}

// MARK: - Opening

extension AccountStore {
    private func openDatabase(
        at url: URL,
        email: String,
        password: String,
        verifier: some PasswordVerifier
    ) async -> SignInOutcome {
        let eraseOption = EraseOption(store: self, email: email)
        func encryptionFailure(_ reason: EncryptionFailure.Reason, cause: (any Error)? = nil) -> SignInOutcome {
            .encryptionFailure(EncryptionFailure(reason: reason, cause: cause, eraseOption: eraseOption))
        }

        let keyring: Keyring
        switch Self.readKeyring(at: url) {
        case .success(let read):
            keyring = read
        case .failure(.damaged(let cause)):
            return encryptionFailure(.damagedFile, cause: cause)
        case .failure(.storage(let error)):
            return .storageFailure(error)
        }

        let dataKey: SymmetricKey
        do {
            guard let unwrapped = try keyring.unwrap(password: password) else {
                return switch await verifier.verifyPassword(email: email, password: password) {
                case .verified(let session):
                    .encryptionFailure(
                        EncryptionFailure(
                            reason: .passwordDoesNotUnwrapKey,
                            verifiedSession: session,
                            eraseOption: eraseOption
                        )
                    )
                case .wrongPassword: .wrongPassword
                case .unreachable: .wrongPasswordUnconfirmed
                case .failed(let failure): .verificationFailed(failure)
                }
            }
            dataKey = unwrapped
        } catch .unsupported {
            return encryptionFailure(.unsupportedKeyring)
        } catch {
            return encryptionFailure(.damagedKeyring, cause: error)
        }

        // The password is right: from here on the file may be written.
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: url.path, configuration: Self.databaseConfiguration(readonly: false))
        } catch {
            return .storageFailure(.storage(error, "could not open the account database"))
        }
        let database = AccountDatabase(
            queue: queue,
            dataKey: dataKey,
            keyDerivation: configuration.keyDerivation
        )
        let outcome = await finishOpening(database, password: password, keyring: keyring, eraseOption: eraseOption)
        if outcome.database == nil {
            try? database.close()
        }
        return outcome
    }

    /// Migrates, raises the key derivation, and reads the account record of a database whose key unwrapped.
    private func finishOpening(
        _ database: AccountDatabase,
        password: String,
        keyring: Keyring,
        eraseOption: EraseOption
    ) async -> SignInOutcome {
        let schema = configuration.schema
        let found: (version: String?, isNewer: Bool)
        do {
            found = try await database.queue.read { try schema.foundVersion($0) }
        } catch {
            return .storageFailure(.storage(error, "could not read the schema version"))
        }
        var migrationFailure = MigrationFailure(
            foundVersion: found.version,
            expectedVersion: schema.expectedVersion,
            isNewerThanExpected: found.isNewer,
            eraseOption: eraseOption
        )
        if found.isNewer {
            return .migrationFailure(migrationFailure)
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
            return .migrationFailure(migrationFailure)
        }

        // Raise the key derivation to the configured one. A failure here keeps the old, valid keyring (the
        // write is one transaction) and is retried at the next unlock; it is no reason to refuse the account.
        if let stored = try? keyring.checkedKeyDerivation(), !stored.isAtLeast(configuration.keyDerivation) {
            try? await database.rekey(newPassword: password)
        }

        do {
            let account = try await database.account()
            return .opened(database, cachedSession: account.session)
        } catch where error.code == .encryptionFailure {
            return .encryptionFailure(
                EncryptionFailure(reason: .damagedRecord, cause: error, eraseOption: eraseOption)
            )
        } catch {
            return .storageFailure(error)
        }
    }

    private enum KeyringReadFailure: Error {
        /// The file is not a database, or has no readable keyring.
        case damaged(any Error)
        case storage(StoreError)
    }

    /// Reads the keyring through a read-only connection, so nothing is written before the password is known.
    private static func readKeyring(at url: URL) -> Result<Keyring, KeyringReadFailure> {
        do {
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
            return .failure(.storage(.storage(error, "could not read the account database")))
        } catch {
            // A value of the wrong type in the keyring row.
            return .failure(.damaged(error))
        }
    }

    static func databaseConfiguration(readonly: Bool) -> GRDB.Configuration {
        var configuration = GRDB.Configuration()
        configuration.readonly = readonly
        configuration.label = "LifelineStore"
        return configuration
    }
}

// MARK: - Creating

extension AccountStore {
    /// Creates an account database under a temporary name, fills it, then links it into place.
    ///
    /// - Returns: The open database, or nil when another sign-in created the file first.
    private func createDatabase(
        at url: URL,
        email: String,
        password: String,
        session: SessionCredentials
    ) throws(StoreError) -> AccountDatabase? {
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
            let database = AccountDatabase(queue: queue, dataKey: dataKey, keyDerivation: configuration.keyDerivation)
            try configuration.schema.migrator.migrate(queue)
            try queue.write { db in
                try keyring.write(db)
                try database.writeAccount(AccountRecord(email: email, session: session), db)
            }
            try queue.close()
        } catch {
            throw .storage(error, "could not create the account database")
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
            return AccountDatabase(queue: queue, dataKey: dataKey, keyDerivation: configuration.keyDerivation)
        } catch {
            throw .storage(error, "could not open the new account database")
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
