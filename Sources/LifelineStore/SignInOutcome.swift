public import LifelineCore

/// How a sign-in ended: one case per branch of the sign-in flow, each something the UI can show.
///
/// | case | spec | the UI shows |
/// |---|---|---|
/// | ``created(_:session:)`` | Empty DB flow, password right | home (empty); LOGIN_UNCACHED with the session |
/// | ``opened(_:session:)`` | main flow step 7 | home from the cache at once; then per ``OpenedSession``: |
/// | ↳ ``OpenedSession/cached(_:)`` | main flow | LOGIN_CACHED in parallel |
/// | ↳ ``OpenedSession/verified(_:)`` | (decision) no cached session: verified now | LOGIN_UNCACHED with the new session |
/// | ↳ ``OpenedSession/passwordMismatch`` | Statusgo.Login flow 5a | "passwords used for db encryption and for account do not match" |
/// | ↳ ``OpenedSession/serverUnreachable`` | (decision) no cached session, no server | home, offline; ``AccountDatabase/renewSession(password:verifier:)`` later |
/// | ↳ ``OpenedSession/verificationFailed(_:)`` | (decision) no cached session, server refused otherwise | home and the failure (its support link) |
/// | ``secondFactorRequired(_:)`` | (decision) the login needs a second factor | the code prompt (and home, if the database is open) |
/// | ``wrongPassword`` | "Wrong password" label | the label |
/// | ``wrongPasswordUnconfirmed`` | (decision) no unwrap; server unreachable, or no email to ask with | "Wrong password (not checked online)" |
/// | ``serverUnreachable`` | (decision) no database and no server | "cannot sign in offline the first time" |
/// | ``verificationFailed(_:)`` | (decision) server answered otherwise | the failure (disabled, rate limited, blocked: its support link) |
/// | ``encryptionFailure(_:)`` | "encryption failure popup with option to erase DB" | the popup |
/// | ``migrationFailure(_:)`` | "migrations failure popup with option to erase DB" | the popup |
/// | ``storageFailure(_:)`` | (decision) the file cannot be read or written | the error; nothing is erased |
///
/// No case erases anything: erasing is ``EraseOption/erase()`` or ``AccountStore/erase(account:)``, called by
/// the user's choice. No case leaves a session the server created unaccounted for: it is in the outcome
/// (``created(_:session:)``, ``OpenedSession/verified(_:)``) or it was ended through
/// ``PasswordVerifier/endSession(_:)``.
public enum SignInOutcome: Sendable {
    /// There was no database: the server verified the password and the database was created with it, holding
    /// the new session (LOGIN_UNCACHED).
    case created(AccountDatabase, session: SessionCredentials)

    /// The password unwrapped the data key and the schema is current. The first screen reads
    /// ``AccountDatabase/recentChats(limit:)`` without waiting for the network; `session` says how the login
    /// goes on.
    case opened(AccountDatabase, session: OpenedSession)

    /// The server asked for a second factor. Show the prompt for ``SecondFactorStep/methods`` and call
    /// ``SecondFactorStep/submit(_:)``, which continues the flow where it stopped. When the step has a
    /// ``SecondFactorStep/database`` (the database opened without a cached session), show home from it
    /// meanwhile.
    case secondFactorRequired(SecondFactorStep)

    /// The server says the password is wrong. Nothing was written.
    case wrongPassword

    /// The password does not open the database and it could not be checked with the server: the server could
    /// not be reached, or the sign-in was by account (``AccountStore/signIn(account:password:email:verifier:)``)
    /// without an email to ask with.
    ///
    /// Almost always a typo, but it could be a damaged key with the right password, so it is not
    /// ``wrongPassword``: show "Wrong password" with a note that it could not be checked online (and, for a
    /// sign-in by account, a way to give the email so it can be), and never offer to erase. Nothing was written.
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
    /// not damage: nothing to erase. A database the flow had opened is closed.
    case storageFailure(StoreError)

    /// A stable name for the outcome, as the command line prints it: `created`, `opened`,
    /// `secondFactorRequired`, `wrongPassword`, `wrongPasswordUnconfirmed`, `serverUnreachable`,
    /// `verificationFailed`, `encryptionFailure`, `migrationFailure`, `storageFailure`.
    public var name: String {
        switch self {
        case .created: "created"
        case .opened: "opened"
        case .secondFactorRequired: "secondFactorRequired"
        case .wrongPassword: "wrongPassword"
        case .wrongPasswordUnconfirmed: "wrongPasswordUnconfirmed"
        case .serverUnreachable: "serverUnreachable"
        case .verificationFailed: "verificationFailed"
        case .encryptionFailure: "encryptionFailure"
        case .migrationFailure: "migrationFailure"
        case .storageFailure: "storageFailure"
        }
    }

    /// The open database, if the sign-in produced one (created, opened, or a second factor asked after the
    /// database opened). The caller owns it: close it when done.
    public var database: AccountDatabase? {
        switch self {
        case .created(let database, _), .opened(let database, _): database
        case .secondFactorRequired(let step): step.database
        default: nil
        }
    }

    /// The session to start the connection with, if the sign-in has one: the new session of
    /// ``created(_:session:)`` or ``OpenedSession/verified(_:)`` (LOGIN_UNCACHED), or the cached one of
    /// ``OpenedSession/cached(_:)`` (LOGIN_CACHED).
    public var session: SessionCredentials? {
        switch self {
        case .created(_, let session): session
        case .opened(_, let session): session.credentials
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

/// How the login goes on after the database opened: a cached session, or what the server said when none was.
public enum OpenedSession: Sendable {
    /// A session is cached: start it (LOGIN_CACHED). The server was not asked anything.
    case cached(SessionCredentials)

    /// No session was cached, so the flow verified the password with the server, which created this session;
    /// it is now cached. Start it (LOGIN_UNCACHED).
    case verified(SessionCredentials)

    /// No session was cached and the server refused the password that opened the database: it was changed on
    /// another device. The spec's "passwords used for db encryption and for account do not match"
    /// (``StoreError/passwordMismatch``). Ask for the new password and call
    /// ``AccountDatabase/renewSession(password:verifier:)`` with it: it re-keys the database and caches the new
    /// session.
    case passwordMismatch

    /// No session was cached and the server could not be reached: show home from the cache, offline; call
    /// ``AccountDatabase/renewSession(password:verifier:)`` when the network is back.
    case serverUnreachable

    /// No session was cached and the server refused the login otherwise (disabled, rate limited, blocked).
    case verificationFailed(PasswordVerificationFailure)

    /// The session to start, for ``cached(_:)`` and ``verified(_:)``.
    public var credentials: SessionCredentials? {
        switch self {
        case .cached(let session), .verified(let session): session
        default: nil
        }
    }

    /// A stable name: `cached`, `verified`, `passwordMismatch`, `serverUnreachable`, `verificationFailed`.
    public var name: String {
        switch self {
        case .cached: "cached"
        case .verified: "verified"
        case .passwordMismatch: "passwordMismatch"
        case .serverUnreachable: "serverUnreachable"
        case .verificationFailed: "verificationFailed"
        }
    }
}

/// A sign-in waiting for a second factor: answer it with ``submit(_:)`` to continue the flow where it stopped.
///
/// Holding one costs nothing on the server but the challenge, which expires there. The flow continues exactly
/// as it would have with the verification's answer: it creates the database, opens it with the new session, or
/// ends the session and reports an encryption failure.
public struct SecondFactorStep: Sendable {
    /// The methods the server accepts.
    public var methods: [SecondFactorMethod] { challenge.methods }

    /// The database, when it is already open (it unwrapped with the password but no session was cached): show
    /// home from it while the user looks for the code. The caller owns it.
    public let database: AccountDatabase?

    let challenge: SecondFactorChallenge
    let resume: @Sendable (VerificationAnswer) async -> SignInOutcome

    /// Answers the second factor and continues the sign-in.
    ///
    /// - Parameter response: The method and the code the user gave.
    /// - Returns: The flow's outcome with the server's answer; another ``SignInOutcome/secondFactorRequired(_:)``
    ///   if the server asks again.
    public func submit(_ response: SecondFactorResponse) async -> SignInOutcome {
        await Self.proceed(await challenge.respond(response), database: database, resume)
    }

    /// Hands a verification to the flow's continuation, or stops at a second factor.
    static func proceed(
        _ verification: PasswordVerification,
        database: AccountDatabase?,
        _ resume: @escaping @Sendable (VerificationAnswer) async -> SignInOutcome
    ) async -> SignInOutcome {
        let answer: VerificationAnswer
        switch verification {
        case .secondFactorRequired(let challenge):
            return .secondFactorRequired(SecondFactorStep(database: database, challenge: challenge, resume: resume))
        case .verified(let session): answer = .verified(session)
        case .wrongPassword: answer = .wrongPassword
        case .unreachable: answer = .unreachable
        case .failed(let failure): answer = .failed(failure)
        }
        return await resume(answer)
    }
}

/// A verification's final answer, once any second factor is done.
enum VerificationAnswer: Sendable {
    case verified(SessionCredentials)
    case wrongPassword
    case unreachable
    case failed(PasswordVerificationFailure)
}

/// The database cannot be decrypted: details for the encryption failure popup.
public struct EncryptionFailure: Error, CustomStringConvertible {
    /// Why the data cannot be decrypted. Compare with the static members.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name, for logs and JSON.
        public let rawValue: String

        /// Creates a code from its stable name. Prefer the static members.
        ///
        /// - Parameter rawValue: The code's stable name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The server verified the password, but it does not unwrap the data key: the wrapped key or its
        /// parameters were changed, or the database was keyed with another password.
        public static let passwordDoesNotUnwrapKey = Code(rawValue: "passwordDoesNotUnwrapKey")
        /// The keyring (wrapped key, salt, parameters) fails its checksum: damaged, whatever the password.
        public static let damagedKeyring = Code(rawValue: "damagedKeyring")
        /// The keyring's format or key derivation is unknown or outside the bounds the store reads.
        public static let unsupportedKeyring = Code(rawValue: "unsupportedKeyring")
        /// The key unwrapped, but a sealed record does not authenticate.
        public static let damagedRecord = Code(rawValue: "damagedRecord")
        /// The file is not a readable database, or has no keyring.
        public static let damagedFile = Code(rawValue: "damagedFile")

        /// The code's name.
        public var description: String { rawValue }
    }

    /// Why the data cannot be decrypted.
    public var code: Code

    /// A sentence for people. Never contains a secret.
    public var message: String

    /// The error underneath, if any.
    public var cause: (any Error)?

    /// Erases this account's database, if the user chooses to.
    public var eraseOption: EraseOption

    /// Creates a failure. The store creates them; the initialiser is for tests of UI code.
    ///
    /// - Parameters:
    ///   - code: Why the data cannot be decrypted.
    ///   - message: A sentence for people.
    ///   - cause: The error underneath, if any.
    ///   - eraseOption: The erase the UI may offer.
    public init(code: Code, message: String, cause: (any Error)? = nil, eraseOption: EraseOption) {
        self.code = code
        self.message = message
        self.cause = cause
        self.eraseOption = eraseOption
    }

    /// The code and the message: `code: message`.
    public var description: String { "\(code): \(message)" }
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
    public let account: StoredAccount.ID

    /// Erases the account's database files. Close any ``AccountDatabase`` for the account first.
    ///
    /// - Throws: ``StoreError`` with code ``StoreError/Code/storage`` when a file cannot be removed.
    public func erase() throws(StoreError) {
        try store.erase(account: account)
    }
}
