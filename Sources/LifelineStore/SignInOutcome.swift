public import LifelineCore

/// How a sign-in ended: one case per branch of the sign-in flow, each something the UI can show.
///
/// | case | spec | the UI shows |
/// |---|---|---|
/// | ``created(_:session:)`` | Empty DB flow, password right | home (empty), then connect with the new session |
/// | ``opened(_:cachedSession:)`` | main flow step 7 | home from the cache at once; LOGIN_CACHED in parallel |
/// | ``wrongPassword`` | "Wrong password" label | the label |
/// | ``wrongPasswordUnconfirmed`` | (decision) no unwrap, server unreachable | "Wrong password (not checked online)" |
/// | ``serverUnreachable`` | (decision) no database and no server | "cannot sign in offline the first time" |
/// | ``verificationFailed(_:)`` | (decision) server answered otherwise | the failure (MFA, disabled, rate limit) |
/// | ``encryptionFailure(_:)`` | "encryption failure popup with option to erase DB" | the popup |
/// | ``migrationFailure(_:)`` | "migrations failure popup with option to erase DB" | the popup |
/// | ``storageFailure(_:)`` | (decision) the file cannot be read or written | the error; nothing is erased |
///
/// No case erases anything: erasing is ``EraseOption/erase()`` or ``AccountStore/erase(email:)``, called by
/// the user's choice.
public enum SignInOutcome: Sendable {
    /// There was no database: the server verified the password and the database was created with it, holding
    /// the new session.
    case created(AccountDatabase, session: SessionCredentials)

    /// The password unwrapped the data key and the schema is current. The first screen reads
    /// ``AccountDatabase/recentChats(limit:)`` without waiting for the network, while the session logs in with
    /// `cachedSession` (LOGIN_CACHED); nil when no session is cached (log in with the password).
    case opened(AccountDatabase, cachedSession: SessionCredentials?)

    /// The server says the password is wrong. Nothing was written.
    case wrongPassword

    /// The password does not open the database and the server could not be reached to say whether it is right.
    ///
    /// Almost always a typo, but it could be a damaged key with the right password, so it is not
    /// ``wrongPassword``: show "Wrong password" with a note that it could not be checked online, and never offer
    /// to erase. Nothing was written.
    case wrongPasswordUnconfirmed

    /// There is no database yet and the server could not be reached: a first sign-in needs the server.
    case serverUnreachable

    /// The server answered the password check with something other than right or wrong.
    case verificationFailed(PasswordVerificationFailure)

    /// The database's data cannot be decrypted although the password is right, or the file is damaged whatever
    /// the password. The spec's encryption failure popup: offer ``EncryptionFailure/eraseOption``.
    case encryptionFailure(EncryptionFailure)

    /// The data key unwrapped but the schema could not be migrated. The data is kept as it was; offer
    /// ``MigrationFailure/eraseOption``.
    case migrationFailure(MigrationFailure)

    /// The database could not be read or written (permissions, disk full, locked). Not a password problem and
    /// not damage: nothing to erase.
    case storageFailure(StoreError)

    /// A stable name for the outcome, as the command line prints it: `created`, `opened`, `wrongPassword`,
    /// `wrongPasswordUnconfirmed`, `serverUnreachable`, `verificationFailed`, `encryptionFailure`,
    /// `migrationFailure`, `storageFailure`.
    public var name: String {
        switch self {
        case .created: "created"
        case .opened: "opened"
        case .wrongPassword: "wrongPassword"
        case .wrongPasswordUnconfirmed: "wrongPasswordUnconfirmed"
        case .serverUnreachable: "serverUnreachable"
        case .verificationFailed: "verificationFailed"
        case .encryptionFailure: "encryptionFailure"
        case .migrationFailure: "migrationFailure"
        case .storageFailure: "storageFailure"
        }
    }

    /// The opened or created database, if the sign-in produced one.
    public var database: AccountDatabase? {
        switch self {
        case .created(let database, _), .opened(let database, _): database
        default: nil
        }
    }

    /// The erase the UI may offer, for the two outcomes where the spec offers one.
    public var eraseOption: EraseOption? {
        switch self {
        case .encryptionFailure(let failure): failure.eraseOption
        case .migrationFailure(let failure): failure.eraseOption
        default: nil
        }
    }
}

/// The database cannot be decrypted: details for the encryption failure popup.
public struct EncryptionFailure: Sendable {
    /// Why the data cannot be decrypted.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        /// The reason's stable name.
        public let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// The server verified the password, but it does not unwrap the data key: the wrapped key or its
        /// parameters were changed, or the database was keyed with another password.
        public static let passwordDoesNotUnwrapKey = Reason("passwordDoesNotUnwrapKey")
        /// The keyring (wrapped key, salt, parameters) fails its checksum: damaged, whatever the password.
        public static let damagedKeyring = Reason("damagedKeyring")
        /// The keyring's format or key derivation is unknown or out of range.
        public static let unsupportedKeyring = Reason("unsupportedKeyring")
        /// The key unwrapped, but a sealed record does not authenticate.
        public static let damagedRecord = Reason("damagedRecord")
        /// The file is not a readable database, or has no keyring.
        public static let damagedFile = Reason("damagedFile")

        /// The reason's name.
        public var description: String { name }
    }

    /// Why the data cannot be decrypted.
    public var reason: Reason

    /// The session the server created while verifying the password, for ``Reason/passwordDoesNotUnwrapKey``.
    /// After an erase the caller may use it instead of logging in again.
    public var verifiedSession: SessionCredentials?

    /// The error underneath, if any.
    public var cause: (any Error)?

    /// Erases this account's database, if the user chooses to.
    public var eraseOption: EraseOption
}

/// The schema could not be migrated: details for the migration failure popup. The database is unchanged.
public struct MigrationFailure: Sendable {
    /// The schema version the file has: its last applied migration, nil if none. When ``isNewerThanExpected``
    /// this is a version this code does not know.
    public var foundVersion: String?

    /// The schema version this code needs: its last migration.
    public var expectedVersion: String

    /// Whether the file was migrated by a newer version of the code (it has migrations this code does not
    /// know). Updating the app, not erasing, is then the better advice.
    public var isNewerThanExpected: Bool

    /// The error the failed migration threw, if one ran.
    public var cause: (any Error)?

    /// Erases this account's database, if the user chooses to.
    public var eraseOption: EraseOption
}

/// The explicit erase the UI may offer after an encryption or migration failure, for one account.
///
/// Holding one erases nothing; only ``erase()`` does.
public struct EraseOption: Sendable {
    /// The store the account's database lives in.
    public let store: AccountStore

    /// The account whose database would be erased.
    public let email: String

    /// Erases the account's database files. Close any ``AccountDatabase`` for the account first.
    ///
    /// - Throws: ``StoreError`` with code ``StoreError/Code/storage`` when a file cannot be removed.
    public func erase() throws(StoreError) {
        try store.erase(email: email)
    }
}
