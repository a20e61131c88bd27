import Foundation
import GRDB
import LifelineCore
import Testing

@testable import LifelineStore

/// A second server with the same email and password as ``testServer``'s account, and its own user.
let otherServer = ServerIdentity("http://127.0.0.1:8081")!
let otherSession = SessionCredentials(
    token: "OTHER-TOKEN-b81d-secret", userID: "01OTHERUSER5V7X9Z1B3D5F7H9", sessionID: "01OTHERSESSION",
    issuer: otherServer)

@Suite("An account file belongs to one server")
struct ServerBindingTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test("The same email on two servers is two accounts: B's sign-in creates B's file and never sees A's session")
    func sameEmailTwoServers() async throws {
        let store = directory.store()
        let serverA = FakeServer()
        let a = try await store.signIn(email: testEmail, password: testPassword, verifier: serverA).requireDatabase
        try await a.setLabel("ada")
        try a.close()

        let serverB = FakeServer(session: otherSession, server: otherServer)
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: serverB)
        guard case .created(let b, let session) = outcome else {
            Issue.record("expected created on the second server, got \(outcome.code)")
            return
        }
        #expect(session == otherSession)
        #expect(serverB.calls == 1, "B verified the password: A's cached session was not resumed")
        #expect(b.accountID == store.accountID(email: testEmail, server: otherServer))
        #expect(b.accountID != store.accountID(email: testEmail, server: testServer))
        #expect(try await b.server() == otherServer)
        try await b.setLabel("ada")
        try b.close()

        let listed = try store.accounts().sorted { ($0.server?.description ?? "") < ($1.server?.description ?? "") }
        #expect(listed.map(\.server) == [otherServer, testServer])
        #expect(listed.map(\.label) == ["ada", "ada"])

        // Each server opens its own file, with its own cached session.
        let againA = await store.signIn(email: testEmail, password: testPassword, verifier: serverA)
        #expect(againA.cachedSession == testSession)
        #expect(againA.cachedSession?.issuer == testServer)
        try againA.requireDatabase.close()
        let againB = await store.signIn(email: testEmail, password: testPassword, verifier: serverB)
        #expect(againB.cachedSession == otherSession)
        try againB.requireDatabase.close()
        #expect(serverA.calls == 1 && serverB.calls == 1, "cached sessions ask no server")
    }

    @Test("By account, another server's file is refused before the password is used, and nothing is sent")
    func byAccountOtherServer() async throws {
        let store = directory.store()
        let url = try await createAccount(in: store)
        let before = fileBytes(url)
        let serverB = FakeServer(session: otherSession, server: otherServer)
        let id = store.accountID(email: testEmail, server: testServer)
        let outcome = await store.signIn(account: id, password: testPassword, email: testEmail, verifier: serverB)
        #expect(outcome.otherServer == testServer, "got \(outcome.code)")
        #expect(serverB.calls == 0)
        #expect(fileBytes(url) == before)
    }

    @Test("A plaintext server edited to the verifier's is caught by the sealed copy: nothing is resumed or sent")
    func editedPlaintextServer() async throws {
        let store = directory.store()
        let url = try await createAccount(in: store)
        try rawExecute(url, "UPDATE server SET url = '\(otherServer)'")
        #expect(try store.accounts().map(\.server) == [otherServer])
        let serverB = FakeServer(session: otherSession, server: otherServer)
        let id = store.accountID(email: testEmail, server: testServer)
        let outcome = await store.signIn(account: id, password: testPassword, verifier: serverB)
        #expect(outcome.otherServer == testServer, "got \(outcome.code)")
        #expect(serverB.calls == 0)
        #expect(serverB.sessionsEnded.isEmpty)
    }

    @Test("A removed plaintext server row is written again from the sealed record at the next sign-in")
    func removedPlaintextServer() async throws {
        let store = directory.store()
        let url = try await createAccount(in: store)
        try rawExecute(url, "DELETE FROM server")
        #expect(try store.accounts().map(\.server) == [nil])
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
        #expect(outcome.cachedSession == testSession)
        try outcome.requireDatabase.close()
        #expect(try store.accounts().map(\.server) == [testServer])
    }

    @Test("A session another server issued is not stored, and one from the verifier without an issuer gets its")
    func sessionIssuers() async throws {
        let store = directory.store()
        let database = try await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
        await #expect(throws: StoreError.self) { try await database.storeSession(otherSession) }
        #expect(try await database.cachedSession() == testSession, "the refused session changed nothing")
        try await database.storeSession(SessionCredentials(token: "bare", userID: testSession.userID))
        #expect(try await database.cachedSession()?.issuer == testServer)
        try database.close()

        // A verifier that answers with a session another server issued: the flow ends it and refuses it.
        let confused = FakeServer(server: testServer)
        confused.alwaysAnswer(.verified(otherSession))
        let refused = await directory.store().signIn(email: "bob@example.com", password: "pw", verifier: confused)
        #expect(refused.code == .verificationFailed)
        #expect(confused.sessionsEnded == [otherSession])
        #expect(!directory.store().hasDatabase(email: "bob@example.com", server: testServer))
    }

    @Test("renewSession with another server's verifier is refused, and the database stays as it is")
    func renewOnOtherServer() async throws {
        let store = directory.store()
        let database = try await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
        let serverB = FakeServer(session: otherSession, server: otherServer)
        let outcome = await database.renewSession(password: testPassword, verifier: serverB)
        #expect(outcome.otherServer == testServer)
        #expect(serverB.calls == 0)
        #expect(try await database.cachedSession() == testSession)
        try database.close()
    }

    @Test("Erasing by email and server erases that server's account only")
    func eraseByServer() async throws {
        let store = directory.store()
        try await createAccount(in: store)
        let serverB = FakeServer(session: otherSession, server: otherServer)
        try await store.signIn(email: testEmail, password: testPassword, verifier: serverB).requireDatabase.close()
        #expect(try store.accounts().count == 2)
        try store.erase(email: testEmail, server: otherServer)
        #expect(try store.accounts().map(\.server) == [testServer])
        #expect(store.hasDatabase(email: testEmail, server: testServer))
        #expect(!store.hasDatabase(email: testEmail, server: otherServer))
    }
}

@Suite("Files written before accounts had a server")
struct UnboundFileTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test("A v2 file is listed without a server, and a sign-in on it binds it: same user, never resumed first")
    func bindsWhenTheUserMatches() async throws {
        let store = directory.store()
        try UnboundFile(store: store, label: "ada")
        let listed = try store.accounts()
        #expect(listed.map(\.label) == ["ada"])
        #expect(listed.map(\.server) == [nil])
        #expect(listed.map(\.id) == [store.accountID(email: testEmail)])

        // The server verifies the password (the cached token is never handed out) and names the file's user.
        let fresh = SessionCredentials(
            token: "FRESH-TOKEN", userID: testSession.userID, sessionID: "01FRESH", issuer: testServer)
        let server = FakeServer(session: fresh)
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        #expect(outcome.verifiedSession == fresh, "got \(outcome.code)")
        #expect(outcome.cachedSession == nil)
        #expect(server.calls == 1)
        #expect(server.sessionsEnded.isEmpty, "the old token is dropped, never sent anywhere")
        let database = try outcome.requireDatabase
        #expect(database.accountID == store.accountID(email: testEmail), "bound in place: the file keeps its name")
        #expect(try await database.server() == testServer)
        #expect(try await database.cachedSession() == fresh)
        #expect(try await database.label() == "ada")
        try database.close()
        #expect(try store.accounts().map(\.server) == [testServer])

        // Bound: the next sign-in resumes the cached session without asking.
        let again = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        #expect(again.cachedSession == fresh)
        #expect(server.calls == 1)
        try again.requireDatabase.close()
        #expect(try store.accounts().count == 1)
    }

    @Test("A sign-in by account on a v2 file binds it the same way, the email read from the sealed record")
    func bindsByAccount() async throws {
        let store = directory.store()
        try UnboundFile(store: store, label: "ada")
        let server = FakeServer()
        let outcome = await store.signIn(
            account: store.accountID(email: testEmail), password: testPassword, verifier: server)
        #expect(outcome.verifiedSession == testSession, "got \(outcome.code)")
        #expect(server.calls == 1)
        try outcome.requireDatabase.close()
        #expect(try store.accounts().map(\.server) == [testServer])
    }

    @Test("Another user on this server: a new file is created, and the old one stays untouched and listed")
    func newFileWhenTheUserDiffers() async throws {
        let store = directory.store()
        let file = try UnboundFile(store: store, label: "ada")
        let before = try file.bytes()
        let server = FakeServer(session: otherSession, server: otherServer)
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        guard case .created(let database, let session) = outcome else {
            Issue.record("expected a new account file, got \(outcome.code)")
            return
        }
        #expect(session == otherSession)
        #expect(database.accountID == store.accountID(email: testEmail, server: otherServer))
        try database.close()
        #expect(try file.bytes() == before, "the old file is untouched")
        let listed = try store.accounts()
        #expect(listed.count == 2)
        #expect(Set(listed.map(\.server)) == [nil, otherServer])
        // The old file is still what it was: unbound, and still not resumed by anyone.
        #expect(try rawValue(file.url, "SELECT name FROM sqlite_master WHERE name = 'server'") as String? == nil)
    }

    @Test("A v2 file without a user id (logged out) is not bound: a new file is created")
    func newFileWithoutAUserID() async throws {
        let store = directory.store()
        let file = try UnboundFile(store: store, session: nil)
        let before = try file.bytes()
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
        #expect(outcome.code == .created)
        try outcome.requireDatabase.close()
        #expect(try file.bytes() == before)
    }

    @Test("Before the server answers nothing is resumed or written: wrong, unreachable, second factor, refused")
    func neverResumedBeforeVerification() async throws {
        let store = directory.store()
        let file = try UnboundFile(store: store)
        let before = try file.bytes()
        let server = FakeServer()
        for (answer, expected) in [
            (PasswordVerification.wrongPassword, SignInOutcome.Code.wrongPassword),
            (.unreachable, .serverUnreachable),
            (.failed(PasswordVerificationFailure(code: .rateLimited, message: "later")), .verificationFailed),
        ] {
            server.alwaysAnswer(answer)
            let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
            #expect(outcome.code == expected)
            #expect(outcome.database == nil)
            #expect(try file.bytes() == before)
        }
        server.alwaysAnswer(nil)
        server.requireSecondFactor(code: "123456")
        let step = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        guard case .secondFactorRequired(let challenge) = step else {
            Issue.record("expected a second factor, got \(step.code)")
            return
        }
        #expect(challenge.database == nil, "the file is not opened before the server answers")
        #expect(try file.bytes() == before)
        let bound = await challenge.submit(SecondFactorResponse(method: .totp, code: "123456"))
        #expect(bound.verifiedSession == testSession, "got \(bound.code)")
        try bound.requireDatabase.close()
        #expect(try store.accounts().map(\.server) == [testServer])
    }

    @Test("A v2 file the password does not open is another account for a sign-in by email: a new file")
    func passwordDoesNotOpenTheOldFile() async throws {
        let store = directory.store()
        let file = try UnboundFile(store: store, password: "an older password")
        let before = try file.bytes()
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
        #expect(outcome.code == .created)
        try outcome.requireDatabase.close()
        #expect(try file.bytes() == before)
        #expect(try store.accounts().count == 2)
    }

    @Test("A v2 file already bound to another server is left alone: this server's account is a new file")
    func boundElsewhere() async throws {
        let store = directory.store()
        try UnboundFile(store: store)
        let first = await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
        try first.requireDatabase.close()
        let url = store.databaseURL(email: testEmail)
        let bound = fileBytes(url)
        let serverB = FakeServer(session: otherSession, server: otherServer)
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: serverB)
        #expect(outcome.code == .created)
        try outcome.requireDatabase.close()
        #expect(fileBytes(url) == bound)
        #expect(Set(try store.accounts().map(\.server)) == [testServer, otherServer])
    }
}
