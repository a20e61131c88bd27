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

    @Test("Nothing but the label and ordering keys is in clear: no token, id, email, name, text or role")
    func noPlaintext() async throws {
        let store = directory.store()
        let database = try await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
        let space = CachedSpace(id: "01SPACEIDK3J5H7G9F", name: "Hidden Valley Guild", details: Data("banner-png".utf8))
        let message = CachedMessage(
            id: "01MESSAGEZ1X3C5V7B",
            chatID: "01CHANNELQ8W2E4R6T",
            authorID: "01AUTHORM9N8B7V6C",
            body: "the eagle lands at midnight",
            sentAt: Date(),
            details: Data("attachment-secret-plan.pdf".utf8)
        )
        let chat = CachedChat(
            id: "01CHANNELQ8W2E4R6T",
            kind: .channel,
            name: "Secret Garden Club",
            parentID: space.id,
            lastActivity: Date(),
            lastMessageID: message.id,
            unreadCount: 3,
            details: Data("channel-topic-xyzzy".utf8),
            lastMessage: message
        )
        let member = CachedMember(
            spaceID: space.id,
            userID: "01MEMBERUSERP4O6I8U",
            nickname: "Nightingale",
            roles: ["01ROLEMODERATORZZZ"],
            timeout: Date()
        )
        let user = CachedUser(id: "01MEMBERUSERP4O6I8U", username: "florence_n", displayName: "Florence Lamp")
        try await database.apply([.upsertSpace(space), .upsertChat(chat), .upsertMember(member), .upsertUser(user)])
        try await database.appendToReplayRecord(Data("replayed-subscription-frame".utf8))
        try await database.setLabel("ada_lovelace")

        let secrets = [
            testSession.token, try #require(testSession.userID), try #require(testSession.sessionID), testEmail,
            testPassword, chat.id, chat.name, "channel-topic-xyzzy", message.id, message.authorID, message.body,
            "attachment-secret-plan.pdf", space.id, space.name, "banner-png", member.userID, "Nightingale",
            "01ROLEMODERATORZZZ", user.username, "Florence Lamp", "replayed-subscription-frame",
        ]
        func scan(_ moment: String) throws {
            let files = fileBytes(store.databaseURL(email: testEmail, server: testServer))
            #expect(files[""] != nil)
            for (suffix, bytes) in files {
                for secret in secrets {
                    #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(moment): '\(secret)' in file\(suffix)")
                }
            }
            // The label is in clear by design: the login screen reads it without a password.
            #expect(files[""]?.range(of: Data("ada_lovelace".utf8)) != nil)
        }
        try scan("while open")
        try database.close()
        try scan("after close")
        #expect(try store.accounts().map(\.label) == ["ada_lovelace"])
        // Nor do the directory's names say anything but a hash.
        let names = try FileManager.default.contentsOfDirectory(atPath: store.directory.path)
        #expect(names == ["account-\(store.accountID(email: testEmail, server: testServer)).sqlite"])
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
        let journal = store.databaseURL(email: testEmail, server: testServer).path + "-journal"
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
