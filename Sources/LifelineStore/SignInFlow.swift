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

    // MARK: Main flow

    func signIn(account: StoredAccount.ID, email: String?, password: String) async -> SignInOutcome {
        let url = store.databaseURL(account: account)
        if FileManager.default.fileExists(atPath: url.path) {
            return await openExisting(account: account, email: email, password: password)
        }
        guard let email else {
            return .storageFailure(StoreError(code: .noSuchAccount, message: "the store has no such account"))
        }
        // Empty DB flow: verify the password, then create the database with it.
        let verification = await verifier.verifyPassword(email: email, password: password)
        return await SecondFactorStep.proceed(verification, database: nil) { answer in
            switch answer {
            case .wrongPassword: return .wrongPassword
            case .unreachable: return .serverUnreachable
            case .failed(let failure): return .verificationFailed(failure)
            case .verified(let session):
                do throws(StoreError) {
                    guard
                        let database = try store.createDatabase(
                            account: account,
                            email: email,
                            password: password,
                            session: session
                        )
                    else {
                        // Another sign-in created the database while the server answered: open that one. This
                        // session will not be kept.
                        await verifier.endSession(session)
                        return await openExisting(account: account, email: email, password: password)
                    }
                    return .created(database, session: session)
                } catch {
                    await verifier.endSession(session)
                    return .storageFailure(error)
                }
            }
        }
    }

    private func openExisting(account: StoredAccount.ID, email: String?, password: String) async -> SignInOutcome {
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
            guard let unwrapped = try keyring.unwrap(password: password) else {
                return await verifyUnopenedPassword(email: email, password: password, eraseOption: eraseOption)
            }
            dataKey = unwrapped
        } catch .unsupported {
            return encryptionFailure(.unsupportedKeyring, "the keyring's format or key derivation is not supported")
        } catch {
            return encryptionFailure(.damagedKeyring, "the keyring is damaged", cause: error)
        }

        // The password is right: from here on the file may be written.
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
            if let session = record.session {
                return .opened(database, session: .cached(session))
            }
            return await logInUncached(database, email: record.email, password: password, closeOnFailure: true)
        }
    }

    /// Verify password flow: the password does not unwrap the key; the server says whether it is right.
    private func verifyUnopenedPassword(
        email: String?, password: String, eraseOption: EraseOption
    ) async
        -> SignInOutcome
    {
        guard let email else { return .wrongPasswordUnconfirmed }
        let verification = await verifier.verifyPassword(email: email, password: password)
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
        let verification = await verifier.verifyPassword(email: email, password: password)
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
            email = try await database.email()
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
            unwrapped = try keyring.unwrap(password: password)
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
        let verification = await verifier.verifyPassword(email: email, password: password)
        return await SecondFactorStep.proceed(verification, database: database) { answer in
            switch answer {
            case .verified(let session):
                do throws(StoreError) {
                    let keyring = try database.wrapDataKey(password: password)
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
