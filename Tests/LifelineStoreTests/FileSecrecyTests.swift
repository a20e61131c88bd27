import Foundation
import LifelineCore
import Testing

@testable import LifelineStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("What reaches the disk")
struct FileSecrecyTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test("The token, user id, session id, email, chat names, ids and message text never appear in the files")
    func noPlaintext() async throws {
        let store = directory.store()
        let database = try await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
        let chat = CachedChat(
            id: "01CHANNELQ8W2E4R6T",
            name: "Secret Garden Club",
            lastActivity: Date(),
            unreadCount: 3
        )
        let message = CachedMessage(
            id: "01MESSAGEZ1X3C5V7B",
            chatID: chat.id,
            authorID: "01AUTHORM9N8B7V6C",
            body: "the eagle lands at midnight",
            sentAt: Date()
        )
        try await database.saveChats([chat])
        try await database.saveMessages([message])
        try await database.appendToReplayRecord(Data("replayed-subscription-frame".utf8))

        let secrets = [
            testSession.token, try #require(testSession.userID), try #require(testSession.sessionID), testEmail,
            testPassword, chat.id, chat.name, message.id, message.authorID, message.body,
            "replayed-subscription-frame",
        ]
        func scan(_ moment: String) throws {
            let files = fileBytes(store.databaseURL(email: testEmail))
            #expect(files[""] != nil)
            for (suffix, bytes) in files {
                for secret in secrets {
                    #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(moment): '\(secret)' in file\(suffix)")
                }
            }
        }
        try scan("while open")
        try database.close()
        try scan("after close")
    }

    @Test("The store creates its directory 0700 and database files 0600")
    func permissions() async throws {
        let store = directory.store()
        let url = try await createAccount(in: store)
        #expect(try mode(store.directory.path) == 0o700)
        #expect(try mode(url.path) == 0o600)
    }

    @Test("A journal written during a transaction gets the database file's permissions")
    func journalPermissions() async throws {
        let store = directory.store()
        let database = try await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
        let journal = store.databaseURL(email: testEmail).path + "-journal"
        let journalMode = try await database.queue.write { db in
            try db.execute(sql: "INSERT INTO replay (position, payload) VALUES (1000, x'00')")
            return try self.mode(journal)
        }
        #expect(journalMode == 0o600)
    }

    private func mode(_ path: String) throws -> mode_t {
        var info = stat()
        try #require(stat(path, &info) == 0, "stat \(path)")
        return info.st_mode & 0o777
    }
}
