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
/// | ``otherServer(_:)`` | (decision) the account belongs to another server | "this account is on SERVER"; nothing was sent |
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
    /// the password. The spec's encryption failure popup: offer ``EncryptionFailureDetails/eraseOption``.
    case encryptionFailure(EncryptionFailure)

    /// The data key unwrapped but the schema could not be migrated. The data is kept as it was; offer
    /// ``MigrationFailure/eraseOption``.
    case migrationFailure(MigrationFailure)

    /// The database could not be read or written (permissions, disk full, locked). Not a password problem and
    /// not damage: nothing to erase. A database the flow had opened is closed.
    case storageFailure(StoreError)

    /// The account chosen belongs to another server than the verifier's (``PasswordVerifier/server``): its
    /// database was not opened with it, and neither its cached session nor anything else of it was given to
    /// the verifier. Sign in through a client of that server (the associated value), or by email to make an
    /// account of this server. Nothing was written.
    case otherServer(ServerIdentity)

    /// Which case an outcome is, without its values: what a test or a log compares (`outcome.code ==
    /// .wrongPassword`). Its `rawValue` is the stable name the command line prints.
    public enum Code: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// ``SignInOutcome/created(_:session:)``.
        case created
        /// ``SignInOutcome/opened(_:session:)``.
        case opened
        /// ``SignInOutcome/secondFactorRequired(_:)``.
        case secondFactorRequired
        /// ``SignInOutcome/wrongPassword``.
        case wrongPassword
        /// ``SignInOutcome/wrongPasswordUnconfirmed``.
        case wrongPasswordUnconfirmed
        /// ``SignInOutcome/serverUnreachable``.
        case serverUnreachable
        /// ``SignInOutcome/verificationFailed(_:)``.
        case verificationFailed
        /// ``SignInOutcome/encryptionFailure(_:)``.
        case encryptionFailure
        /// ``SignInOutcome/migrationFailure(_:)``.
        case migrationFailure
        /// ``SignInOutcome/storageFailure(_:)``.
        case storageFailure
        /// ``SignInOutcome/otherServer(_:)``.
        case otherServer

        /// The stable name.
        public var description: String { rawValue }
    }

    /// Which case the outcome is.
    public var code: Code {
        switch self {
        case .created: .created
        case .opened: .opened
        case .secondFactorRequired: .secondFactorRequired
        case .wrongPassword: .wrongPassword
        case .wrongPasswordUnconfirmed: .wrongPasswordUnconfirmed
        case .serverUnreachable: .serverUnreachable
        case .verificationFailed: .verificationFailed
        case .encryptionFailure: .encryptionFailure
        case .migrationFailure: .migrationFailure
        case .storageFailure: .storageFailure
        case .otherServer: .otherServer
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

/// A verification's final answer, once any second factor is done.
enum VerificationAnswer: Sendable {
    case verified(SessionCredentials)
    case wrongPassword
    case unreachable
    case failed(PasswordVerificationFailure)
}
