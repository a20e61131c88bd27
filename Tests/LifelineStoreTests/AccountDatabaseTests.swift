import Foundation
import GRDB
import LifelineCore
import Testing

@testable import LifelineStore

@Suite("Account database contents")
struct AccountDatabaseTests {
    let directory: TemporaryDirectory
    let database: AccountDatabase

    init() async throws {
        directory = try TemporaryDirectory()
        database = try await directory.store()
            .signIn(email: testEmail, password: testPassword, verifier: FakeServer()).requireDatabase
    }

    @Test("The first screen gets the 10 most recent chats, newest first, then the rest in order")
    func recentThenRest() async throws {
        let chats = sampleChats(count: 37)
        try await database.saveChats(chats)
        let expected = chats.sorted { $0.lastActivity > $1.lastActivity }

        let first = try await database.recentChats(limit: 10)
        #expect(first == Array(expected.prefix(10)))
        let last = try #require(first.last)
        let rest = try await database.chats(olderThan: last)
        #expect(rest == Array(expected.dropFirst(10)))
        #expect(try await database.allChats() == expected)
        #expect(try await database.chats(olderThan: last, limit: 5) == Array(expected.dropFirst(10).prefix(5)))
    }

    @Test("Chats with the same last activity are neither lost nor repeated across pages")
    func equalActivityPaging() async throws {
        let moment = Date(timeIntervalSince1970: 1_700_000_000)
        let chats = (0..<15).map { CachedChat(id: "same-\($0)", name: "Same \($0)", lastActivity: moment) }
        try await database.saveChats(chats)
        let first = try await database.recentChats(limit: 10)
        let rest = try await database.chats(olderThan: try #require(first.last))
        #expect(Set(first + rest) == Set(chats))
        #expect(first.count + rest.count == chats.count)
    }

    @Test("The recent chats query reads the activity index and sorts nothing")
    func recentChatsUsesIndex() async throws {
        let plan = try await database.queue.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + AccountDatabase.recentChatsSQL, arguments: [10])
                .map { $0["detail"] as String }
                .joined(separator: "\n")
        }
        #expect(plan.contains("chat_by_activity"))
        #expect(!plan.contains("TEMP B-TREE"))
    }

    @Test("Saving a chat again replaces it")
    func upsertChat() async throws {
        let chat = CachedChat(id: "c", name: "Old", lastActivity: Date(timeIntervalSince1970: 100), unreadCount: 1)
        try await database.saveChats([chat])
        var renamed = chat
        renamed.name = "New"
        renamed.lastActivity = Date(timeIntervalSince1970: 200)
        renamed.unreadCount = 0
        try await database.saveChats([renamed])
        #expect(try await database.allChats() == [renamed])
    }

    @Test("A chat's messages come newest first, only that chat's; deleting the chat deletes them")
    func messagesPerChat() async throws {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let messages = (0..<20).map { index in
            CachedMessage(
                id: "m\(index)",
                chatID: index.isMultiple(of: 2) ? "even" : "odd",
                authorID: "author-\(index % 3)",
                body: "message \(index) ✉️",
                sentAt: start.addingTimeInterval(Double(index))
            )
        }
        try await database.saveMessages(messages.shuffled())
        let even = try await database.messages(inChat: "even", limit: 4)
        #expect(even == messages.filter { $0.chatID == "even" }.reversed().prefix(4).map { $0 })

        try await database.apply([.deleteChat(id: "even")])
        #expect(try await database.messages(inChat: "even", limit: 100).isEmpty)
        #expect(try await database.messages(inChat: "odd", limit: 100).count == 10)
    }

    @Test("The replay record keeps its entries in order through appends and replacement")
    func replayRecord() async throws {
        #expect(try await database.replayRecord().isEmpty)
        let entries = (0..<12).map { Data("entry \($0)".utf8) }
        for entry in entries {
            try await database.appendToReplayRecord(entry)
        }
        #expect(try await database.replayRecord() == entries)
        let replacement = [Data([0, 1, 2]), Data(), Data("last".utf8)]
        try await database.replaceReplayRecord(replacement)
        #expect(try await database.replayRecord() == replacement)
    }

    @Test("The cached session can be replaced and forgotten, and survives a reopen")
    func sessionReplacement() async throws {
        let renewed = SessionCredentials(token: "renewed-token", userID: "user", sessionID: nil, issuer: testServer)
        try await database.storeSession(renewed)
        #expect(try await database.cachedSession() == renewed)
        try database.close()
        let store = directory.store()
        let reopened = await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
        #expect(reopened.cachedSession == renewed)
        let again = try reopened.requireDatabase
        try await again.storeSession(nil)
        #expect(try await again.cachedSession() == nil)
        #expect(try await again.email() == testEmail)
    }

    @Test("A closed database drops its key: every later call throws closed, none crashes")
    func closedDatabase() async throws {
        try await database.saveChats(sampleChats(count: 3))
        try database.close()
        try database.close()  // Closing again does nothing.
        let keyError = #expect(throws: StoreError.self) { try database.requireKeys() }
        #expect(keyError?.code == .closed)
        let calls: [(String, @Sendable () async throws -> Void)] = [
            ("recentChats", { _ = try await database.recentChats() }),
            ("allChats", { _ = try await database.allChats() }),
            ("chat", { _ = try await database.chat(id: "chat-1") }),
            ("messages", { _ = try await database.messages(inChat: "chat-1", limit: 5) }),
            ("members", { _ = try await database.members(inSpace: "s") }),
            ("users", { _ = try await database.users(ids: ["u"]) }),
            ("apply", { try await database.apply([.deleteUser(id: "u")]) }),
            ("storeSession", { try await database.storeSession(nil) }),
            ("cachedSession", { _ = try await database.cachedSession() }),
            ("setLabel", { try await database.setLabel("x") }),
            ("replayRecord", { _ = try await database.replayRecord() }),
            ("rekey", { try await database.rekey(newPassword: "p") }),
        ]
        for (name, call) in calls {
            let error = await #expect(throws: StoreError.self, "\(name)") { try await call() }
            #expect(error?.code == .closed, "\(name)")
        }
        let renewed = await database.renewSession(password: testPassword, verifier: FakeServer())
        guard case .storageFailure(let error) = renewed else {
            Issue.record("expected storageFailure, got \(renewed.code)")
            return
        }
        #expect(error.code == .closed)
    }
}
