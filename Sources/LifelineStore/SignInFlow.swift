internal import Crypto
internal import Foundation
internal import LifelineCore

/// The sign-in flow (drawn in the LifelineStore catalog's "The sign-in flow"): each branch is a function, and each place the server is asked
/// continues in a closure, so a second factor can stop the flow there and ``SecondFactorStep`` resume it.
///
/// Every session a verification creates ends in an outcome (``SignInOutcome/created(_:session:)``,
/// ``OpenedSession/verified(_:)``) or is ended through ``PasswordVerifier/endSession(_:)`` before the flow
/// answers: nothing is left open on the server with nobody holding its token.
struct SignInFlow: Sendable {
    let store: AccountStore
    let verifier: any PasswordVerifier

    init(store: AccountStore, verifier: some PasswordVerifier) {
        self.store = store
        self.verifier = verifier
    }

    /// The verifier's server: the server of every account this flow opens or creates.
    var server: ServerIdentity { verifier.server }

    // MARK: Main flow

    /// Signs in by email: the database named for the email on this server; else one named by the email alone
    /// (written before accounts were bound) that is this server's or not bound yet; else a new one.
    func signIn(email: String, password: String) async -> SignInOutcome {
        let server = server
        let named = store.accountID(email: email, server: server)
        if FileManager.default.fileExists(atPath: store.databaseURL(account: named).path) {
            return await openExisting(account: named, email: email, password: password, otherwise: nil)
        }
        let legacy = store.accountID(email: email)
        let legacyURL = store.databaseURL(account: legacy)
        if FileManager.default.fileExists(atPath: legacyURL.path) {
            // A file bound to another server is that server's account: this server's is another, made below.
            let listed = AccountStore.readServer(at: legacyURL)
            if listed == nil || listed == server {
                return await openExisting(account: legacy, email: email, password: password) {
                    await create(account: named, email: email, password: password)
                }
            }
        }
        return await create(account: named, email: email, password: password)
    }

    /// Signs in to a listed account. A file whose plaintext server is another is refused before the password
    /// is used; the sealed server is checked once the key unwraps.
    func signIn(account: StoredAccount.ID, email: String?, password: String) async -> SignInOutcome {
        let url = store.databaseURL(account: account)
        guard FileManager.default.fileExists(atPath: url.path) else {
            guard let email else {
                return .storageFailure(StoreError(code: .noSuchAccount, message: "the store has no such account"))
            }
            return await signIn(email: email, password: password)
        }
        if let listed = AccountStore.readServer(at: url), listed != server {
            return .otherServer(listed)
        }
        return await openExisting(account: account, email: email, password: password, otherwise: nil)
    }

    /// Empty DB flow: verify the password, then create the database with it, bound to the verifier's server.
    private func create(account: StoredAccount.ID, email: String, password: String) async -> SignInOutcome {
        let verification = await verify(email: email, password: password)
        return await SecondFactorStep.proceed(verification, database: nil) { answer in
            switch answer {
            case .wrongPassword: return .wrongPassword
            case .unreachable: return .serverUnreachable
            case .failed(let failure): return .verificationFailed(failure)
            case .verified(let session):
                return await create(account: account, email: email, password: password, session)
            }
        }
    }

    /// Creates the database with a session the server verified.
    private func create(
        account: StoredAccount.ID, email: String, password: String, _ session: SessionCredentials
    ) async -> SignInOutcome {
        do throws(StoreError) {
            let store = store
            let server = server
            guard
                let database = try await onOwnThread({ () throws(StoreError) -> AccountDatabase? in
                    try store.createDatabase(
                        account: account,
                        email: email,
                        server: server,
                        password: password,
                        session: session
                    )
                })
            else {
                // Another sign-in created the database while the server answered: open that one. This
                // session will not be kept.
                await verifier.endSession(session)
                return await openExisting(account: account, email: email, password: password, otherwise: nil)
            }
            return .created(database, session: session)
        } catch {
            await verifier.endSession(session)
            return .storageFailure(error)
        }
    }

    /// Opens an existing database.
    ///
    /// - Parameter otherwise: How a sign-in by email goes on when the file (named by the email alone) turns
    ///   out not to be this server's account: the password does not open it and it is not bound, or it is bound
    ///   to another server. `nil`: the file is the one asked for, and those cases are outcomes.
    private func openExisting(
        account: StoredAccount.ID, email: String?, password: String,
        otherwise: (@Sendable () async -> SignInOutcome)?
    ) async -> SignInOutcome {
        let url = store.databaseURL(account: account)
        let eraseOption = EraseOption(store: store, account: account)
        func encryptionFailure(
            _ code: EncryptionFailure.Code, _ message: String, cause: (any Error)? = nil
        )
            -> SignInOutcome
        {
            .encryptionFailure(EncryptionFailure(code: code, message: message, cause: cause, eraseOption: eraseOption))
        }

        let keyring: Keyring
        switch AccountStore.readKeyring(at: url) {
        case .success(let read):
            keyring = read
        case .failure(.damaged(let cause)):
            return encryptionFailure(.damagedFile, "the file is not an account database", cause: cause)
        case .failure(.storage(let error)):
            return .storageFailure(error)
        }

        let dataKey: SymmetricKey
        do {
            guard let unwrapped = try await keyring.unwrapOnOwnThread(password: password) else {
                if let otherwise, AccountStore.readServer(at: url) == nil { return await otherwise() }
                return await verifyUnopenedPassword(email: email, password: password, eraseOption: eraseOption)
            }
            dataKey = unwrapped
        } catch .unsupported {
            return encryptionFailure(.unsupportedKeyring, "the keyring's format or key derivation is not supported")
        } catch {
            return encryptionFailure(.damagedKeyring, "the keyring is damaged", cause: error)
        }

        // The password is right for this file. Whose account it is comes first, from the sealed record, with
        // nothing written yet.
        let record: AccountRecord
        switch AccountStore.readRecordWithoutWriting(at: url, dataKey: dataKey) {
        case .success(let read):
            record = read
        case .failure(let error) where error.code == .encryptionFailure:
            // A record this code cannot read: damaged, or written by a newer version, which opening tells apart
            // (a newer schema is a migration failure, as before this check).
            switch await store.openUnwrapped(
                at: url, account: account, dataKey: dataKey, password: password, keyring: keyring)
            {
            case .failure(let failure):
                return failure.outcome
            case .success((let database, _)):
                try? database.close()
                return encryptionFailure(.damagedRecord, "the account record does not authenticate", cause: error)
            }
        case .failure(let error):
            return .storageFailure(error)
        }
        switch record.server {
        case server?:
            break
        case let other?:
            return await otherwise?() ?? .otherServer(other)
        case nil:
            return await bindUnbound(
                account: account, record: record, password: password, dataKey: dataKey, keyring: keyring)
        }

        // The password is right and the account is this server's: from here on the file may be written.
        let opened = await store.openUnwrapped(
            at: url,
            account: account,
            dataKey: dataKey,
            password: password,
            keyring: keyring
        )
        switch opened {
        case .failure(let failure):
            return failure.outcome
        case .success((let database, let record)):
            try? await database.repairListedServer(server)
            if let session = record.session {
                return .opened(database, session: .cached(session))
            }
            return await logInUncached(database, email: record.email, password: password, closeOnFailure: true)
        }
    }

    // MARK: Binding a file written before accounts had a server

    /// A file no server was bound to (written by schema `v2` or before): its cached session is never resumed,
    /// because nobody knows which server issued it. The password is verified with this server first; the
    /// file is bound to it only if the user id the server answers is the one the file holds. Otherwise this
    /// server's account is another: a new file is created with the session, and the old file stays as it was
    /// (still listed, still unbound). Until the server answers, nothing is written.
    private func bindUnbound(
        account: StoredAccount.ID, record: AccountRecord, password: String, dataKey: SymmetricKey, keyring: Keyring
    ) async -> SignInOutcome {
        let url = store.databaseURL(account: account)
        let email = record.email
        let verification = await verify(email: email, password: password)
        return await SecondFactorStep.proceed(verification, database: nil) { answer in
            switch answer {
            case .wrongPassword: return .wrongPassword
            case .unreachable: return .serverUnreachable
            case .failed(let failure): return .verificationFailed(failure)
            case .verified(let session):
                guard let fileUser = record.userID, fileUser == session.userID else {
                    return await create(
                        account: store.accountID(email: email, server: server), email: email, password: password,
                        session)
                }
                let opened = await store.openUnwrapped(
                    at: url, account: account, dataKey: dataKey, password: password, keyring: keyring)
                switch opened {
                case .failure(let failure):
                    await verifier.endSession(session)
                    return failure.outcome
                case .success((let database, _)):
                    do throws(StoreError) {
                        try await database.bind(to: server, session: session)
                        return .opened(database, session: .verified(session))
                    } catch {
                        await verifier.endSession(session)
                        try? database.close()
                        return .storageFailure(error)
                    }
                }
            }
        }
    }

    // MARK: Verifying

    /// Asks the verifier, and binds the session it answers (now or after a second factor) to its server: a
    /// session without an issuer is stamped with it, and one another server issued is ended and refused.
    private func verify(email: String, password: String) async -> PasswordVerification {
        await issued(await verifier.verifyPassword(email: email, password: password))
    }

    private func issued(_ verification: PasswordVerification) async -> PasswordVerification {
        let server = server
        switch verification {
        case .verified(var session):
            if let issuer = session.issuer, issuer != server {
                await verifier.endSession(session)
                return .failed(
                    PasswordVerificationFailure(
                        code: .other, message: "The server answered with a session another server issued."))
            }
            session.issuer = server
            return .verified(session)
        case .secondFactorRequired(let challenge):
            return .secondFactorRequired(
                SecondFactorChallenge(methods: challenge.methods) { response in
                    await issued(await challenge.respond(response))
                })
        case .wrongPassword, .unreachable, .failed:
            return verification
        }
    }

    /// Verify password flow: the password does not unwrap the key; the server says whether it is right.
    private func verifyUnopenedPassword(
        email: String?, password: String, eraseOption: EraseOption
    ) async
        -> SignInOutcome
    {
        guard let email else { return .wrongPasswordUnconfirmed }
        let verification = await verify(email: email, password: password)
        return await SecondFactorStep.proceed(verification, database: nil) { answer in
            switch answer {
            case .verified(let session):
                // The password is right but cannot open the cache: this session would be dropped with the
                // popup, so end it now.
                await verifier.endSession(session)
                return .encryptionFailure(
                    EncryptionFailure(
                        code: .passwordDoesNotUnwrapKey,
                        message: "the server accepts the password, but it does not open the account database",
                        eraseOption: eraseOption
                    )
                )
            case .wrongPassword: return .wrongPassword
            case .unreachable: return .wrongPasswordUnconfirmed
            case .failed(let failure): return .verificationFailed(failure)
            }
        }
    }

    // MARK: LOGIN_UNCACHED

    /// The database is open and no session is cached (or a new one is wanted): log in with the password that
    /// opened it, and cache the session.
    private func logInUncached(
        _ database: AccountDatabase, email: String, password: String, closeOnFailure: Bool
    )
        async -> SignInOutcome
    {
        let verification = await verify(email: email, password: password)
        return await SecondFactorStep.proceed(verification, database: database) { answer in
            switch answer {
            case .verified(let session):
                do throws(StoreError) {
                    let replaced = try await database.replaceSession(with: session)
                    // A cached session this one replaces would be dropped: end it (renewSession may replace one).
                    if let replaced, replaced != session { await verifier.endSession(replaced) }
                    return .opened(database, session: .verified(session))
                } catch {
                    await verifier.endSession(session)
                    if closeOnFailure { try? database.close() }
                    return .storageFailure(error)
                }
            case .wrongPassword: return .opened(database, session: .passwordMismatch)
            case .unreachable: return .opened(database, session: .serverUnreachable)
            case .failed(let failure): return .opened(database, session: .verificationFailed(failure))
            }
        }
    }

    /// ``AccountDatabase/renewSession(password:verifier:)``.
    func renewSession(_ database: AccountDatabase, password: String) async -> SignInOutcome {
        let keyring: Keyring
        let email: String
        let dataKey: SymmetricKey
        do throws(StoreError) {
            dataKey = try database.requireKeys().dataKey
            let record = try await database.accountRecord()
            guard record.server == server else {
                if let other = record.server { return .otherServer(other) }
                throw StoreError(code: .otherServer, message: "the account is not bound to a server")
            }
            email = record.email
            let read = try await database.read("the keyring") { db, _ in try Keyring.read(db) }
            guard let read else {
                throw StoreError(code: .encryptionFailure, message: "the keyring has no row")
            }
            keyring = read
        } catch {
            return .storageFailure(error)
        }
        let eraseOption = EraseOption(store: store, account: database.accountID)
        let unwrapped: SymmetricKey?
        do {
            unwrapped = try await keyring.unwrapOnOwnThread(password: password)
        } catch {
            return .encryptionFailure(
                EncryptionFailure(
                    code: .damagedKeyring,
                    message: "the keyring is damaged",
                    cause: error,
                    eraseOption: eraseOption
                )
            )
        }
        if let unwrapped, unwrapped == dataKey {
            return await logInUncached(database, email: email, password: password, closeOnFailure: false)
        }
        // Not this database's password: if the server accepts it, it is the account's new one (changed on
        // another device). The database is already open, so re-key it to the new password with the session.
        let verification = await verify(email: email, password: password)
        return await SecondFactorStep.proceed(verification, database: database) { answer in
            switch answer {
            case .verified(let session):
                do throws(StoreError) {
                    let keyring = try await database.wrapDataKey(password: password)
                    let replaced = try await database.replaceSession(with: session, keyring: keyring)
                    if let replaced, replaced != session { await verifier.endSession(replaced) }
                    return .opened(database, session: .verified(session))
                } catch {
                    await verifier.endSession(session)
                    return .storageFailure(error)
                }
            case .wrongPassword: return .wrongPassword
            case .unreachable: return .wrongPasswordUnconfirmed
            case .failed(let failure): return .verificationFailed(failure)
            }
        }
    }
}
