import Lifeline
import LifelineCore
public import LifelineStoat
public import LifelineStore

extension StoatClient {
    // MARK: - Signing in through the account's store

    /// Signs in with the account's encrypted store: the sign-in flow of the specification, joined to the
    /// session.
    ///
    /// 1. The store opens the account's database with the password (or creates it, once the server has
    ///    verified the password); see `AccountStore/signIn(email:password:verifier:)` for every branch.
    /// 2. The first screen comes from the store before any network: the 10 most recently active chats
    ///    with their last messages are in `StoatClient/chats` when this returns.
    /// 3. The session starts — LOGIN_CACHED with the cached session, LOGIN_UNCACHED with a session the
    ///    server just created — and connects in parallel (`StoatClient/run()` must be running).
    /// 4. The rest of the chats are read from the store.
    ///
    /// The account's drafts (`StoatClient/drafts`) are read from the store with the first screen.
    ///
    /// From then on the cache's changes are written to the store in batches; the session is cleared from
    /// it when the user logs out, when the server logs the session out, and when the server confirms it
    /// invalid, so the next sign-in verifies the password with the server again.
    ///
    /// Outcomes without a session (a wrong password, a second factor to give, the passwords of the store
    /// and the account that do not match…) leave the session in READY and show why in its notice; the
    /// outcome says what to show and what to offer (an erase, after an encryption or migration failure,
    /// is only ever done by the user's choice).
    ///
    /// - Parameters:
    ///   - store: The directory of account stores.
    ///   - email: The account's email.
    ///   - password: The password the user typed; never stored or logged.
    /// - Returns: The store's outcome. For `SignInOutcome.secondFactorRequired(_:)`, ask for the
    ///   code and call `continueSignIn(_:with:)`.
    public func signIn(to store: AccountStore, email: String, password: String) async -> SignInOutcome {
        await use(await store.signIn(email: email, password: password, verifier: passwordVerifier))
    }

    /// Signs in to an account listed by the store (`AccountStore/accounts()`) with the password alone, as
    /// `signIn(to:email:password:)` does.
    ///
    /// - Parameters:
    ///   - store: The directory of account stores.
    ///   - account: The account's identifier, from `AccountStore/accounts()`.
    ///   - password: The password the user typed.
    ///   - email: The account's email, if the user gave it: lets the flow ask the server whether a password
    ///     that does not open the store is right (without it, that outcome is `wrongPasswordUnconfirmed`).
    public func signIn(
        to store: AccountStore, account: StoredAccount.ID, password: String, email: String? = nil
    ) async -> SignInOutcome {
        await use(await store.signIn(account: account, password: password, email: email, verifier: passwordVerifier))
    }

    /// Continues a sign-in that needs a second factor.
    ///
    /// - Parameters:
    ///   - step: The step the outcome carried.
    ///   - response: The method and the code the user gave.
    public func continueSignIn(_ step: SecondFactorStep, with response: SecondFactorResponse) async -> SignInOutcome {
        await use(await step.submit(response))
    }

    /// The verifier the store's flow uses: a Stoat login.
    var passwordVerifier: StoatPasswordVerifier {
        StoatPasswordVerifier(api: api, friendlyName: friendlyName)
    }

    /// Attaches the outcome's database, shows its first screen, starts the session it allows, then reads the
    /// rest of the chats.
    private func use(_ outcome: SignInOutcome) async -> SignInOutcome {
        if let database = outcome.database {
            // The catch-up of the first CONNECTED starts from what the store holds: it waits for the chats.
            storedChatsLoading(true)
            await attach(database)
            await loadStoredChats(limit: Self.firstScreenChats)
        }
        switch outcome {
        case .created(_, let session), .opened(_, .verified(let session)):
            await start(session, cached: false)
        case .opened(_, .cached(let session)):
            await start(session, cached: true)
        case .opened(_, .passwordMismatch):
            await session.reportLoginFailure(
                LoginFailure(
                    code: .passwordMismatch,
                    message: "The password opens this device's data but the server refused it: it was changed. "
                        + "Sign in with the new password."))
        case .opened(_, .serverUnreachable), .serverUnreachable:
            await session.reportLoginFailure(
                LoginFailure(code: .serverUnreachable, message: "The server could not be reached. Try again later."))
        case .opened(_, .verificationFailed(let failure)), .verificationFailed(let failure):
            // A refused `Disabled` login keeps Stoat's kind as its code, as ``logIn(email:password:)`` reports it.
            let code =
                failure.code == .accountDisabled
                ? LoginFailure.Code.api(.accountDisabled) : LoginFailure.Code(rawValue: failure.code.rawValue)
            await session.reportLoginFailure(
                LoginFailure(
                    code: code, message: failure.message, supportURL: failure.supportURL?.absoluteString,
                    standing: failure.standing))
        case .otherServer(let server):
            await session.reportLoginFailure(
                LoginFailure(
                    code: .otherServer,
                    message:
                        "This account belongs to \(server); it is not opened with \(api.server.map(\.description) ?? "this API")."
                ))
        case .wrongPassword, .wrongPasswordUnconfirmed:
            await session.reportLoginFailure(
                LoginFailure(
                    code: outcome.code == .wrongPassword ? .wrongPassword : .wrongPasswordUnconfirmed,
                    message: "The email or password is incorrect."))
        case .secondFactorRequired, .encryptionFailure, .migrationFailure, .storageFailure:
            break
        }
        if outcome.database != nil {
            await loadStoredChats(limit: nil)
            await loadStoredStates(of: nil)
            storedChatsLoading(false)
        }
        return outcome
    }

    /// Makes `database` the account's store: the cache, the outbox and the drafts write to it from now on, and
    /// its drafts are read. A different database attached before is written out and closed.
    package func attach(_ database: AccountDatabase) async {
        await attachDrafts(AccountDatabaseDrafts(database: database))
        await attach(
            AccountDatabaseStorage(database: database),
            cache: AccountDatabaseCache(database: database, messagesPerChat: historyLimit),
            outbox: AccountDatabaseOutbox(database: database))
    }
}

/// The signed-in account's database as `StoatClient` keeps it: its session and its label.
struct AccountDatabaseStorage: AccountStorage {
    let database: AccountDatabase

    func storeSession(_ session: SessionCredentials?) async throws { try await database.storeSession(session) }
    func label() async throws -> String? { try await database.label() }
    func setLabel(_ label: String) async throws { try await database.setLabel(label) }
    func close() throws { try database.close() }
    func isSame(as other: any AccountStorage) -> Bool {
        (other as? AccountDatabaseStorage)?.database === database
    }
}
