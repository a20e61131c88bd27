import Foundation
import LifelineCore
import Testing

@testable import LifelineStore

@Suite("Sign-in flow (LifelineStore.docc: The sign-in flow)")
struct SignInFlowTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    // MARK: Empty DB flow

    @Test("No database, server says wrong password: wrongPassword, and no file is created")
    func emptyDatabaseWrongPassword() async throws {
        let store = directory.store()
        let outcome = await store.signIn(email: testEmail, password: "typo", verifier: FakeServer())
        #expect(outcome.code == .wrongPassword)
        #expect(!store.hasDatabase(email: testEmail, server: testServer))
    }

    @Test("No database, server verifies the password: the database is created holding the session")
    func emptyDatabaseCreates() async throws {
        let store = directory.store()
        let server = FakeServer()
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        guard case .created(let database, let session) = outcome else {
            Issue.record("expected created, got \(outcome.code)")
            return
        }
        #expect(session == testSession)
        #expect(try await database.cachedSession() == testSession)
        #expect(try await database.email() == testEmail)
        #expect(server.calls == 1)
        #expect(store.hasDatabase(email: testEmail, server: testServer))
        // Only the database itself is left in the directory: no temporary file, no journal.
        let files = try FileManager.default.contentsOfDirectory(atPath: store.directory.path)
        #expect(files == [store.databaseURL(email: testEmail, server: testServer).lastPathComponent])
    }

    @Test("No database, server unreachable: serverUnreachable, and no file is created")
    func emptyDatabaseUnreachable() async throws {
        let store = directory.store()
        let server = FakeServer()
        server.alwaysAnswer(.unreachable)
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        #expect(outcome.code == .serverUnreachable)
        #expect(!store.hasDatabase(email: testEmail, server: testServer))
    }

    @Test("No database, server answers another failure: verificationFailed carries it")
    func emptyDatabaseOtherFailure() async throws {
        let store = directory.store()
        let server = FakeServer()
        let blocked = URL(string: "https://support.example.com/blocked")
        server.alwaysAnswer(
            .failed(PasswordVerificationFailure(code: .blocked, message: "blocked by the shield", supportURL: blocked))
        )
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        guard case .verificationFailed(let failure) = outcome else {
            Issue.record("expected verificationFailed, got \(outcome.code)")
            return
        }
        #expect(failure.code == .blocked)
        #expect(failure.supportURL == blocked)
        #expect(!store.hasDatabase(email: testEmail, server: testServer))
    }

    // MARK: Main flow

    @Test("Database present, password unwraps the key: opened with the cached session, the server is not asked")
    func opensWithoutNetwork() async throws {
        let store = directory.store()
        try await createAccount(in: store)
        let server = FakeServer()
        server.alwaysAnswer(.unreachable)
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        #expect(outcome.openedSessionName == "cached")
        #expect(outcome.cachedSession == testSession)
        #expect(outcome.session == testSession)
        #expect(server.calls == 0)
    }

    @Test("Email case and surrounding spaces name the same account file")
    func emailNormalised() async throws {
        let store = directory.store()
        #expect(
            store.databaseURL(email: " Ada@Example.COM ", server: testServer)
                == store.databaseURL(email: testEmail, server: testServer))
        #expect(
            store.databaseURL(email: "bob@example.com", server: testServer)
                != store.databaseURL(email: testEmail, server: testServer))
    }

    // MARK: Verify password flow

    @Test("Database present, server says wrong: wrongPassword, and the files are byte-for-byte unchanged")
    func wrongPasswordLeavesFileUnchanged() async throws {
        let store = directory.store()
        let url = try await createAccount(in: store)
        let before = fileBytes(url)
        let listingBefore = try FileManager.default.contentsOfDirectory(atPath: store.directory.path)
        let server = FakeServer()
        let outcome = await store.signIn(email: testEmail, password: "wrong password", verifier: server)
        #expect(outcome.code == .wrongPassword)
        #expect(server.calls == 1)
        #expect(fileBytes(url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.directory.path) == listingBefore)
    }

    @Test("Database present, password does not unwrap, server says right: encryption failure, the session ended")
    func rightPasswordThatDoesNotUnwrap() async throws {
        let store = directory.store()
        let url = try await createAccount(in: store)
        let before = fileBytes(url)
        // The password was changed on another device; the user types the new one.
        let server = FakeServer()
        server.changePassword(to: "new password")
        let outcome = await store.signIn(email: testEmail, password: "new password", verifier: server)
        let failure = try #require(outcome.encryptionFailure, "got \(outcome.code)")
        #expect(failure.code == .passwordDoesNotUnwrapKey)
        #expect(outcome.eraseOption?.account == store.accountID(email: testEmail, server: testServer))
        // The session the check created is not orphaned: the flow ended it.
        #expect(server.sessionsCreated == [testSession])
        #expect(server.sessionsEnded == [testSession])
        // Offering the erase erases nothing.
        #expect(fileBytes(url) == before)
    }

    @Test("Database present, password does not unwrap, server unreachable: wrongPasswordUnconfirmed, no erase")
    func wrongPasswordUnreachable() async throws {
        let store = directory.store()
        let url = try await createAccount(in: store)
        let before = fileBytes(url)
        let server = FakeServer()
        server.alwaysAnswer(.unreachable)
        let outcome = await store.signIn(email: testEmail, password: "wrong password", verifier: server)
        #expect(outcome.code == .wrongPasswordUnconfirmed)
        #expect(outcome.eraseOption == nil)
        #expect(fileBytes(url) == before)
    }

    @Test("Database present, password does not unwrap, server answers another failure: verificationFailed")
    func wrongPasswordOtherFailure() async throws {
        let store = directory.store()
        try await createAccount(in: store)
        let server = FakeServer()
        server.alwaysAnswer(.failed(PasswordVerificationFailure(code: .rateLimited, message: "slow down")))
        let outcome = await store.signIn(email: testEmail, password: "wrong password", verifier: server)
        guard case .verificationFailed(let failure) = outcome else {
            Issue.record("expected verificationFailed, got \(outcome.code)")
            return
        }
        #expect(failure.code == .rateLimited)
    }

    // MARK: Erase

    @Test("Erase happens only by the explicit call, and only for that account")
    func eraseOnlyExplicitly() async throws {
        let store = directory.store()
        try await createAccount(in: store)
        let other = FakeServer()
        let otherOutcome = await store.signIn(email: "bob@example.com", password: "pw", verifier: other)
        #expect(otherOutcome.code == .wrongPassword)  // FakeServer knows only Ada.
        let bob = store.databaseURL(email: "bob@example.com", server: testServer)
        try await createOtherAccount(store, bob)

        let server = FakeServer()
        server.changePassword(to: "new password")
        let outcome = await store.signIn(email: testEmail, password: "new password", verifier: server)
        let eraseOption = try #require(outcome.eraseOption)
        #expect(store.hasDatabase(email: testEmail, server: testServer))

        let leftover = store.directory.appendingPathComponent(
            ".\(store.databaseURL(email: testEmail, server: testServer).lastPathComponent).creating-crashed"
        )
        try Data("half-created".utf8).write(to: leftover)

        try eraseOption.erase()
        #expect(!store.hasDatabase(email: testEmail, server: testServer))
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
        #expect(FileManager.default.fileExists(atPath: bob.path))
        // After the erase, the empty DB flow creates a fresh database with the account's current password.
        let again = await store.signIn(email: testEmail, password: "new password", verifier: server)
        #expect(again.code == .created)
    }

    private func createOtherAccount(_ store: AccountStore, _ url: URL) async throws {
        struct Always: PasswordVerifier {
            var server: ServerIdentity { testServer }
            func verifyPassword(email: String, password: String) async -> PasswordVerification {
                .verified(SessionCredentials(token: "bob-token"))
            }
            func endSession(_ session: SessionCredentials) async {}
        }
        let outcome = await store.signIn(email: "bob@example.com", password: "pw", verifier: Always())
        try outcome.requireDatabase.close()
        #expect(FileManager.default.fileExists(atPath: url.path))
    }
}
