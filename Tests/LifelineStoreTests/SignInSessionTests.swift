import Foundation
import LifelineCore
import Testing

@testable import LifelineStore

@Suite("Sign-in: the login without a cached session, second factors, and no orphaned sessions")
struct SignInSessionTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// An account whose database holds chats but no cached session (the user logged out).
    private func loggedOutAccount(_ store: AccountStore) async throws {
        let database = try await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
        try await database.saveChats(sampleChats(count: 12))
        try await database.storeSession(nil)
        try database.close()
    }

    // MARK: LOGIN_UNCACHED

    @Test("No cached session: the flow verifies the password, caches the new session and opens with it")
    func uncachedVerified() async throws {
        let store = directory.store()
        try await loggedOutAccount(store)
        let fresh = SessionCredentials(token: "fresh-token", userID: "u", sessionID: "s", issuer: testServer)
        let server = FakeServer(session: fresh)
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        guard case .opened(let database, .verified(let session)) = outcome else {
            Issue.record("expected opened with verified, got \(outcome.code) \(outcome.openedSessionName ?? "")")
            return
        }
        #expect(session == fresh)
        #expect(outcome.session == fresh)
        #expect(server.calls == 1)
        #expect(server.sessionsEnded.isEmpty)
        #expect(try await database.cachedSession() == fresh)
        try database.close()
        // The next sign-in is LOGIN_CACHED, without the server.
        server.alwaysAnswer(.unreachable)
        let again = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        #expect(again.cachedSession == fresh)
        #expect(server.calls == 1)
    }

    @Test("No cached session, the server refuses the password that opened the database: mismatch, first screen works")
    func uncachedMismatch() async throws {
        let store = directory.store()
        try await loggedOutAccount(store)
        let server = FakeServer()
        server.changePassword(to: "changed elsewhere")
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        guard case .opened(let database, .passwordMismatch) = outcome else {
            Issue.record("expected opened with passwordMismatch, got \(outcome.code)")
            return
        }
        #expect(outcome.session == nil)
        #expect(try await database.recentChats().count == 10)
        #expect(try await database.cachedSession() == nil)
    }

    @Test("No cached session, server unreachable: opened offline, the first screen works")
    func uncachedUnreachable() async throws {
        let store = directory.store()
        try await loggedOutAccount(store)
        let server = FakeServer()
        server.alwaysAnswer(.unreachable)
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        #expect(outcome.openedSessionName == "serverUnreachable")
        let database = try outcome.requireDatabase
        #expect(try await database.recentChats().count == 10)
        // Later, with the network back, the same step logs in.
        server.alwaysAnswer(nil)
        let renewed = await database.renewSession(password: testPassword, verifier: server)
        #expect(renewed.openedSessionName == "verified")
        #expect(try await database.cachedSession() == testSession)
    }

    @Test("No cached session, the server refuses otherwise: opened with the failure and its support link")
    func uncachedFailure() async throws {
        let store = directory.store()
        try await loggedOutAccount(store)
        let server = FakeServer()
        let link = URL(string: "https://support.example.com/kb/blocked")
        server.alwaysAnswer(.failed(PasswordVerificationFailure(code: .blocked, message: "blocked", supportURL: link)))
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        guard case .opened(_, .verificationFailed(let failure)) = outcome else {
            Issue.record("expected opened with verificationFailed, got \(outcome.code)")
            return
        }
        #expect(failure.code == .blocked)
        #expect(failure.supportURL == link)
        #expect(failure.description == "blocked: blocked")
    }

    // MARK: Second factor

    @Test("A first sign-in that needs a second factor: a wrong code creates nothing, the right one creates")
    func secondFactorOnCreation() async throws {
        let store = directory.store()
        let server = FakeServer()
        server.requireSecondFactor(code: "123456")
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        guard case .secondFactorRequired(let step) = outcome else {
            Issue.record("expected secondFactorRequired, got \(outcome.code)")
            return
        }
        #expect(step.methods == [.totp, .recoveryCode])
        #expect(step.database == nil)
        #expect(!store.hasDatabase(email: testEmail, server: testServer))

        let wrong = await step.submit(SecondFactorResponse(method: .totp, code: "000000"))
        guard case .verificationFailed(let failure) = wrong else {
            Issue.record("expected verificationFailed, got \(wrong.code)")
            return
        }
        #expect(failure.code == .secondFactorRefused)
        #expect(!store.hasDatabase(email: testEmail, server: testServer))

        let right = await step.submit(SecondFactorResponse(method: .totp, code: "123456"))
        guard case .created(let database, let session) = right else {
            Issue.record("expected created, got \(right.code)")
            return
        }
        #expect(session == testSession)
        #expect(try await database.cachedSession() == testSession)
    }

    @Test("No cached session and a second factor: the database is open meanwhile, and the code finishes the login")
    func secondFactorWhileOpen() async throws {
        let store = directory.store()
        try await loggedOutAccount(store)
        let server = FakeServer()
        server.requireSecondFactor(code: "654321")
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        guard case .secondFactorRequired(let step) = outcome else {
            Issue.record("expected secondFactorRequired, got \(outcome.code)")
            return
        }
        let database = try #require(step.database)
        #expect(outcome.database === database)
        #expect(try await database.recentChats().count == 10)
        let finished = await step.submit(SecondFactorResponse(method: .totp, code: "654321"))
        guard case .opened(let opened, .verified(let session)) = finished else {
            Issue.record("expected opened with verified, got \(finished.code)")
            return
        }
        #expect(opened === database)
        #expect(session == testSession)
        #expect(try await database.cachedSession() == testSession)
    }

    @Test("A second factor after a password that does not unwrap: the session it creates is ended")
    func secondFactorEncryptionFailure() async throws {
        let store = directory.store()
        try await createAccount(in: store)
        let server = FakeServer()
        server.changePassword(to: "new password")
        server.requireSecondFactor(code: "111111")
        let outcome = await store.signIn(email: testEmail, password: "new password", verifier: server)
        guard case .secondFactorRequired(let step) = outcome else {
            Issue.record("expected secondFactorRequired, got \(outcome.code)")
            return
        }
        let finished = await step.submit(SecondFactorResponse(method: .totp, code: "111111"))
        #expect(finished.encryptionFailure?.code == .passwordDoesNotUnwrapKey)
        #expect(server.sessionsCreated == [testSession])
        #expect(server.sessionsEnded == [testSession])
    }

    // MARK: Orphaned sessions

    @Test("A verified session the store cannot create a database for is ended, and the failure is typed")
    func creationFailureEndsSession() async throws {
        // The store's directory is a file: no database can be created in it.
        let path = directory.url.appendingPathComponent("not-a-directory")
        try Data("x".utf8).write(to: path)
        let store = AccountStore(
            directory: path,
            configuration: AccountStore.Configuration(keyDerivation: testKeyDerivation)
        )
        let server = FakeServer()
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        guard case .storageFailure(let error) = outcome else {
            Issue.record("expected storageFailure, got \(outcome.code)")
            return
        }
        #expect(error.code == .storage)
        #expect(server.sessionsCreated == [testSession])
        #expect(server.sessionsEnded == [testSession])
    }

    @Test("Every session a verification creates is in the outcome or ended, across the flow's branches")
    func noOrphans() async throws {
        let store = directory.store()
        let server = FakeServer()
        var handedOver: [SessionCredentials] = []

        // Created: the session is in the outcome.
        var outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        handedOver += [outcome.session].compactMap { $0 }
        try await outcome.requireDatabase.storeSession(nil)
        try outcome.database?.close()
        // Opened without a cached session: verified, the new session is in the outcome.
        outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        #expect(outcome.openedSessionName == "verified")
        handedOver += [outcome.session].compactMap { $0 }
        try outcome.database?.close()
        // Opened with the cached session: no verification at all.
        outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        #expect(outcome.openedSessionName == "cached")
        try outcome.database?.close()
        // Encryption failure: the verification's session is ended.
        server.changePassword(to: "new")
        outcome = await store.signIn(email: testEmail, password: "new", verifier: server)
        #expect(outcome.code == .encryptionFailure)

        #expect(server.sessionsCreated.count == 3)
        #expect(handedOver.count == 2)
        #expect(server.sessionsEnded.count == 1)
    }

    // MARK: Accounts for the login screen

    @Test("The login screen lists accounts with their labels, most recently written first, nothing secret")
    func listing() async throws {
        let store = directory.store()
        #expect(try store.accounts().isEmpty)
        let ada = try await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
        #expect(
            try store.accounts() == [
                StoredAccount(id: ada.accountID, label: nil, server: testServer, lastModified: try modified(ada))
            ])
        try await ada.setLabel("ada")
        #expect(try await ada.label() == "ada")
        try ada.close()

        struct Bob: PasswordVerifier {
            var server: ServerIdentity { testServer }
            func verifyPassword(email: String, password: String) async -> PasswordVerification {
                .verified(SessionCredentials(token: "bob-token"))
            }
            func endSession(_ session: SessionCredentials) async {}
        }
        let bob = try await store.signIn(email: "bob@example.com", password: "pw", verifier: Bob()).requireDatabase
        try await bob.setLabel("bob")
        // Make the order independent of the clock's resolution: Ada's file is older.
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: 1_000)],
            ofItemAtPath: ada.path
        )
        let accounts = try store.accounts()
        #expect(accounts.map(\.label) == ["bob", "ada"])
        #expect(
            accounts.map(\.id) == [
                store.accountID(email: "bob@example.com", server: testServer),
                store.accountID(email: testEmail, server: testServer),
            ])
        #expect(accounts[1].lastModified == Date(timeIntervalSince1970: 1_000))
        try await bob.setLabel(nil)
        #expect(try store.accounts().map(\.label) == [nil, "ada"])
        try bob.close()
        // Files the store did not make are not accounts.
        try Data().write(to: store.directory.appendingPathComponent("account-notahash.sqlite"))
        try Data().write(to: store.directory.appendingPathComponent("notes.txt"))
        #expect(try store.accounts().count == 2)
    }

    private func modified(_ database: AccountDatabase) throws -> Date? {
        try FileManager.default.attributesOfItem(atPath: database.path)[.modificationDate] as? Date
    }

    @Test("Signing in by account with the password alone reads the email from the sealed record")
    func byAccount() async throws {
        let store = directory.store()
        try await createAccount(in: store)
        let account = try #require(try store.accounts().first)
        let server = FakeServer()
        let outcome = await store.signIn(account: account.id, password: testPassword, verifier: server)
        #expect(outcome.cachedSession == testSession)
        #expect(try await outcome.requireDatabase.email() == testEmail)
        #expect(server.calls == 0)
    }

    @Test("By account, a password that does not unwrap: unconfirmed without an email, checked online with one")
    func byAccountWrongPassword() async throws {
        let store = directory.store()
        let url = try await createAccount(in: store)
        let before = fileBytes(url)
        let account = store.accountID(email: testEmail, server: testServer)
        let server = FakeServer()

        var outcome = await store.signIn(account: account, password: "typo", verifier: server)
        #expect(outcome.code == .wrongPasswordUnconfirmed)
        #expect(server.calls == 0)
        // An email that is not this account's is not used to ask the server.
        outcome = await store.signIn(account: account, password: "typo", email: "eve@example.com", verifier: server)
        #expect(outcome.code == .wrongPasswordUnconfirmed)
        #expect(server.calls == 0)
        outcome = await store.signIn(account: account, password: "typo", email: " ADA@example.com", verifier: server)
        #expect(outcome.code == .wrongPassword)
        #expect(server.calls == 1)
        #expect(fileBytes(url) == before)
    }

    @Test("By account, an account that is gone or an identifier the store did not make: noSuchAccount")
    func byAccountMissing() async throws {
        let store = directory.store()
        try await createAccount(in: store)
        let account = store.accountID(email: testEmail, server: testServer)
        try store.erase(account: account)
        for id in [account, "../../etc/passwd", "ABCDEF", String(repeating: "g", count: 32)] {
            let outcome = await store.signIn(account: id, password: testPassword, verifier: FakeServer())
            guard case .storageFailure(let error) = outcome else {
                Issue.record("expected storageFailure for \(id), got \(outcome.code)")
                continue
            }
            #expect(error.code == .noSuchAccount)
        }
        let error = #expect(throws: StoreError.self) { try store.erase(account: "../x") }
        #expect(error?.code == .noSuchAccount)
        // With the account's email, an erased account is created again.
        let outcome = await store.signIn(
            account: account, password: testPassword, email: testEmail, verifier: FakeServer())
        #expect(outcome.code == .created)
    }
}
