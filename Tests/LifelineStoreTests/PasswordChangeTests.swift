import Foundation
import GRDB
import LifelineCore
import Testing

@testable import LifelineStore

@Suite("Password changed on another device: the mismatch outcome and re-keying")
struct PasswordChangeTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test("The server refuses the password the database opened with: the spec's mismatch, the database kept open")
    func mismatch() async throws {
        let server = FakeServer()
        let database = try await directory.store()
            .signIn(email: testEmail, password: testPassword, verifier: server).requireDatabase
        try await database.saveChats(sampleChats(count: 3))
        server.changePassword(to: "changed elsewhere")
        let outcome = await database.renewSession(password: testPassword, verifier: server)
        guard case .opened(let opened, .passwordMismatch) = outcome else {
            Issue.record("expected opened with passwordMismatch, got \(outcome.code)")
            return
        }
        #expect(opened === database)
        #expect(StoreError.passwordMismatch.message == "passwords used for db encryption and for account do not match")
        #expect(try await database.cachedSession() == testSession)
        #expect(try await database.recentChats().count == 3)
    }

    @Test("Renewing the session caches the new session and ends the one it replaces")
    func renewStoresSession() async throws {
        let renewed = SessionCredentials(
            token: "second-token", userID: testSession.userID, sessionID: "s2", issuer: testServer)
        let database = try await directory.store()
            .signIn(email: testEmail, password: testPassword, verifier: FakeServer()).requireDatabase
        let server = FakeServer(session: renewed)
        let outcome = await database.renewSession(password: testPassword, verifier: server)
        #expect(server.sessionsEnded == [testSession])
        guard case .opened(_, .verified(let session)) = outcome else {
            Issue.record("expected opened with verified, got \(outcome.code)")
            return
        }
        #expect(session == renewed)
        #expect(try await database.cachedSession() == renewed)
    }

    @Test("Renewing with a password the server refuses and that does not open the database: wrongPassword")
    func renewWithWrongPassword() async throws {
        let server = FakeServer()
        let store = directory.store()
        let database = try await store.signIn(email: testEmail, password: testPassword, verifier: server)
            .requireDatabase
        let keyringBefore: Data? = try await database.queue.read {
            try Data.fetchOne($0, sql: "SELECT wrappedKey FROM keyring")
        }
        let outcome = await database.renewSession(password: "something else", verifier: server)
        #expect(outcome.code == .wrongPassword)
        let keyringAfter: Data? = try await database.queue.read {
            try Data.fetchOne($0, sql: "SELECT wrappedKey FROM keyring")
        }
        #expect(keyringAfter == keyringBefore)
        server.alwaysAnswer(.unreachable)
        #expect(
            await database.renewSession(password: "something else", verifier: server).code == .wrongPasswordUnconfirmed
        )
    }

    @Test("After the mismatch, the new password verified by the server re-keys the database and caches the session")
    func newPasswordRekeysAndCaches() async throws {
        let server = FakeServer()
        let store = directory.store()
        var database = try await store.signIn(email: testEmail, password: testPassword, verifier: server)
            .requireDatabase
        try await database.storeSession(nil)
        server.changePassword(to: "new password")
        let renewed = await database.renewSession(password: "new password", verifier: server)
        #expect(renewed.openedSessionName == "verified")
        #expect(try await database.cachedSession() == testSession)
        try database.close()

        let old = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        #expect(old.code == .wrongPassword)
        let outcome = await store.signIn(email: testEmail, password: "new password", verifier: server)
        #expect(outcome.cachedSession == testSession)
        database = try outcome.requireDatabase
        #expect(try await database.email() == testEmail)
    }

    @Test("A session the store cannot keep after renewing is ended, and the failure is a typed storage failure")
    func renewWriteFailsEndsSession() async throws {
        let server = FakeServer()
        let database = try await directory.store()
            .signIn(email: testEmail, password: testPassword, verifier: server).requireDatabase
        // Every write on this connection now fails for real in SQLite.
        try await database.queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA query_only = ON") }
        let outcome = await database.renewSession(password: testPassword, verifier: server)
        guard case .storageFailure(let error) = outcome else {
            Issue.record("expected storageFailure, got \(outcome.code)")
            return
        }
        #expect(error.code == .storage)
        #expect(server.sessionsCreated.count == 2)  // The creation's and the renewal's.
        #expect(server.sessionsEnded == [testSession])
        #expect(try await database.cachedSession() == testSession)
    }

    @Test("Re-keying keeps every record readable, re-encrypts none, and the old password stops working")
    func rekey() async throws {
        let store = directory.store()
        let url = store.databaseURL(email: testEmail, server: testServer)
        let server = FakeServer()
        var database = try await store.signIn(email: testEmail, password: testPassword, verifier: server)
            .requireDatabase
        var chats = sampleChats(count: 30)
        let messages = chats.prefix(5).enumerated().map { index, chat in
            CachedMessage(
                id: "m\(index)",
                chatID: chat.id,
                authorID: "u",
                body: "body \(index)",
                sentAt: chat.lastActivity
            )
        }
        let replay = [Data("subscribe".utf8), Data("typing".utf8)]
        try await database.saveChats(chats)
        try await database.saveMessages(messages)
        try await database.replaceReplayRecord(replay)
        let sealedBefore = try await sealedPayloads(database)

        server.changePassword(to: "new password")
        try await database.rekey(newPassword: "new password")
        #expect(try await sealedPayloads(database) == sealedBefore)
        try database.close()

        let old = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        #expect(old.code == .wrongPassword)
        let outcome = await store.signIn(email: testEmail, password: "new password", verifier: server)
        #expect(outcome.cachedSession == testSession)
        database = try outcome.requireDatabase
        for (index, message) in messages.enumerated() {
            chats[index].lastMessage = message
        }
        #expect(try await database.allChats() == chats.sorted { $0.lastActivity > $1.lastActivity })
        for message in messages {
            #expect(try await database.messages(inChat: message.chatID, limit: 10) == [message])
        }
        #expect(try await database.replayRecord() == replay)
        #expect(FileManager.default.fileExists(atPath: url.path))
    }

    /// Every sealed value in the file except the keyring.
    private func sealedPayloads(_ database: AccountDatabase) async throws -> [Data] {
        try await database.queue.read { db in
            try ["account", "chat", "message", "replay"].flatMap { table in
                try Data.fetchAll(db, sql: "SELECT payload FROM \(table) ORDER BY payload")
            }
        }
    }
}
