import Foundation
import GRDB
import LifelineCore
import Testing

@testable import LifelineStore

@Suite("Damage and tampering are encryption failures, never a wrong password, never a crash")
struct TamperingTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// Every answer the server could give to the right password.
    static let serverAnswers: [PasswordVerification?] = [nil, .wrongPassword, .unreachable]

    @Test("A flipped byte in the wrapped key: encryption failure whatever the server says", arguments: serverAnswers)
    func flippedWrappedKey(answer: PasswordVerification?) async throws {
        let store = directory.store()
        let url = try await createAccount(in: store)
        let wrappedKey: Data = try #require(try rawValue(url, "SELECT wrappedKey FROM keyring"))
        try flipByte(of: wrappedKey, in: url)

        let server = FakeServer()
        server.alwaysAnswer(answer)
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        let failure = try #require(outcome.encryptionFailure, "got \(outcome.code)")
        #expect(failure.code == .damagedKeyring)
        #expect(store.hasDatabase(email: testEmail, server: testServer))
    }

    @Test("A flipped byte in the salt: encryption failure")
    func flippedSalt() async throws {
        let store = directory.store()
        let url = try await createAccount(in: store)
        let salt: Data = try #require(try rawValue(url, "SELECT salt FROM keyring"))
        try flipByte(of: salt, in: url)
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
        #expect(outcome.encryptionFailure?.code == .damagedKeyring)
    }

    @Test("Lowered KDF rounds with a recomputed checksum: the right password is an encryption failure")
    func loweredRoundsWithValidChecksum() async throws {
        // An attacker who rewrites the parameters and recomputes the unkeyed checksum: the key no longer
        // unwraps (the parameters are bound to the wrapped key), the server says the password is right.
        let store = directory.store()
        let url = try await createAccount(in: store)
        let queue = try DatabaseQueue(path: url.path)
        try await queue.write { db in
            var keyring = try #require(try Keyring.read(db))
            keyring.kdfParameters = "rounds=999"
            keyring = Keyring.withRecomputedChecksum(keyring)
            try keyring.write(db)
        }
        try queue.close()
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
        #expect(outcome.encryptionFailure?.code == .passwordDoesNotUnwrapKey)
    }

    @Test("A flipped byte in the account record: encryption failure at sign-in")
    func flippedAccountRecord() async throws {
        let store = directory.store()
        let url = try await createAccount(in: store)
        let payload: Data = try #require(try rawValue(url, "SELECT payload FROM account"))
        try flipByte(of: payload, in: url)
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
        #expect(outcome.encryptionFailure?.code == .damagedRecord)
        #expect(store.hasDatabase(email: testEmail, server: testServer))
    }

    @Test(
        "A flipped byte in a chat or a message: reading it throws encryption failure",
        arguments: ["chat", "message"]
    )
    func flippedRecord(table: String) async throws {
        let store = directory.store()
        let url = try await createAccount(in: store)
        var database = try await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
        try await database.saveChats([CachedChat(id: "c1", name: "Chat", lastActivity: Date(), unreadCount: 1)])
        try await database.saveMessages([
            CachedMessage(id: "m1", chatID: "c1", authorID: "u1", body: "hello", sentAt: Date())
        ])
        try database.close()
        let payload: Data = try #require(try rawValue(url, "SELECT payload FROM \(table)"))
        try flipByte(of: payload, in: url)

        database = try await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
        let error = await #expect(throws: StoreError.self) {
            _ = try await database.recentChats()
            _ = try await database.messages(inChat: "c1", limit: 10)
        }
        #expect(error?.code == .encryptionFailure)
    }

    @Test("A sealed payload copied into another chat's row is detected")
    func movedPayload() async throws {
        let store = directory.store()
        let url = try await createAccount(in: store)
        var database = try await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
        try await database.saveChats(sampleChats(count: 2))
        try database.close()
        try rawExecute(
            url,
            """
            UPDATE chat SET payload = CASE rowid
                WHEN (SELECT MIN(rowid) FROM chat) THEN (SELECT payload FROM chat ORDER BY rowid DESC LIMIT 1)
                ELSE (SELECT payload FROM chat ORDER BY rowid LIMIT 1) END
            """
        )
        database = try await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
        let error = await #expect(throws: StoreError.self) { try await database.allChats() }
        #expect(error?.code == .encryptionFailure)
    }

    @Test("Editing a chat's plaintext ordering key is detected")
    func editedOrderingKey() async throws {
        let store = directory.store()
        let url = try await createAccount(in: store)
        var database = try await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
        try await database.saveChats(sampleChats(count: 1))
        try database.close()
        try rawExecute(url, "UPDATE chat SET lastActivity = lastActivity + 1")
        database = try await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
        let error = await #expect(throws: StoreError.self) { try await database.recentChats() }
        #expect(error?.code == .encryptionFailure)
    }

    @Test("A file that is not a database: encryption failure with an erase option, the file kept")
    func notADatabase() async throws {
        let store = directory.store()
        let url = try await createAccount(in: store)
        let garbage = Data(repeating: 0x5A, count: 8_192)
        try garbage.write(to: url)
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
        #expect(outcome.encryptionFailure?.code == .damagedFile)
        #expect(outcome.eraseOption != nil)
        #expect(try Data(contentsOf: url) == garbage)
    }
}
