import Foundation
import GRDB
import LifelineCore
import Testing

@testable import LifelineStore

@Suite("Password changed on another device: the mismatch error and re-keying")
struct PasswordChangeTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test("The server refuses the password the database opened with: the spec's mismatch error")
    func mismatch() async throws {
        let server = FakeServer()
        let database = try await directory.store()
            .signIn(email: testEmail, password: testPassword, verifier: server).requireDatabase
        server.changePassword(to: "changed elsewhere")
        let error = await #expect(throws: StoreError.self) {
            try await database.renewSession(password: testPassword, verifier: server)
        }
        #expect(error?.code == .passwordMismatch)
        #expect(error?.message == "passwords used for db encryption and for account do not match")
        #expect(try await database.cachedSession() == testSession)
    }

    @Test("Renewing the session with the password the database opened with caches the new session")
    func renewStoresSession() async throws {
        let renewed = SessionCredentials(token: "second-token", userID: testSession.userID, sessionID: "s2")
        let database = try await directory.store()
            .signIn(email: testEmail, password: testPassword, verifier: FakeServer()).requireDatabase
        let session = try await database.renewSession(password: testPassword, verifier: FakeServer(session: renewed))
        #expect(session == renewed)
        #expect(try await database.cachedSession() == renewed)
    }

    @Test("Renewing with a password that does not open the database is refused before asking the server")
    func renewWithOtherPassword() async throws {
        let server = FakeServer()
        let database = try await directory.store()
            .signIn(email: testEmail, password: testPassword, verifier: server).requireDatabase
        let error = await #expect(throws: StoreError.self) {
            try await database.renewSession(password: "something else", verifier: server)
        }
        #expect(error?.code == .wrongPassword)
        #expect(server.calls == 1)  // The creation's verification only.
    }

    @Test("Re-keying keeps every record readable, re-encrypts none, and the old password stops working")
    func rekey() async throws {
        let store = directory.store()
        let url = store.databaseURL(email: testEmail)
        let server = FakeServer()
        var database = try await store.signIn(email: testEmail, password: testPassword, verifier: server)
            .requireDatabase
        let chats = sampleChats(count: 30)
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
        #expect(old.name == "wrongPassword")
        let outcome = await store.signIn(email: testEmail, password: "new password", verifier: server)
        #expect(outcome.cachedSession == testSession)
        database = try outcome.requireDatabase
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
