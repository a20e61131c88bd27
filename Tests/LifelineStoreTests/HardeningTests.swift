import Crypto
import Foundation
import GRDB
import LifelineCore
import Testing

@testable import LifelineStore

@Suite("Hardening: one set of KDF bounds, key material, error shapes, deleted bytes")
struct HardeningTests {
    // MARK: Key derivation bounds

    @Test(
        "Every setting the checked constructors accept is one the unlock reads back",
        arguments: [
            try KeyDerivation.pbkdf2SHA512(rounds: KeyDerivation.minimumPBKDF2Rounds),
            try KeyDerivation.pbkdf2SHA512(rounds: KeyDerivation.maximumPBKDF2Rounds),
            try KeyDerivation.scrypt(),
            try KeyDerivation.scrypt(logN: 20, blockSize: 8, parallelism: 1),
            try KeyDerivation.scrypt(logN: 17, blockSize: 16, parallelism: 1),
            try KeyDerivation.scrypt(logN: 17, blockSize: 8, parallelism: 2),
            try KeyDerivation.unsafeUncheckedScrypt(logN: 10, blockSize: 1, parallelism: 16),
            KeyDerivation.unsafeUncheckedPBKDF2SHA512(rounds: 1),
        ]
    )
    func writableIsReadable(setting: KeyDerivation) {
        #expect(KeyDerivation(name: setting.name, parameters: setting.parameters) == setting)
    }

    @Test("The checked constructors refuse costs above the ceilings the unlock enforces")
    func ceilingsRefused() {
        func expectRefused(_ make: () throws -> KeyDerivation, sourceLocation: SourceLocation = #_sourceLocation) {
            let error = #expect(throws: StoreError.self, sourceLocation: sourceLocation) { try make() }
            #expect(error?.code == .invalidParameter, sourceLocation: sourceLocation)
        }
        expectRefused { try .pbkdf2SHA512(rounds: KeyDerivation.maximumPBKDF2Rounds + 1) }
        expectRefused { try .pbkdf2SHA512(rounds: 50_000_000) }
        expectRefused { try .scrypt(logN: 21) }
        expectRefused { try .scrypt(logN: 17, blockSize: 8, parallelism: 3) }
        expectRefused { try .scrypt(logN: 20, blockSize: 16, parallelism: 1) }
        expectRefused { try .unsafeUncheckedScrypt(logN: 10, blockSize: 8, parallelism: 4) }
        // The unchecked PBKDF2 clamps to the ceiling rather than write what it could not read.
        #expect(KeyDerivation.unsafeUncheckedPBKDF2SHA512(rounds: 80_000_000).parameters == "rounds=10000000")
    }

    @Test("A keyring is never written with a derivation outside the bounds")
    func wrapRefusesOutOfBounds() throws {
        let outOfBounds = KeyDerivation(algorithm: .scrypt(logN: 22, blockSize: 8, parallelism: 1))
        let error = #expect(throws: StoreError.self) {
            try Keyring.wrap(SymmetricKey(size: .bits256), password: "pw", using: outOfBounds)
        }
        #expect((error)?.code == .invalidParameter)
    }

    @Test(
        "A planted keyring asking for too much memory or time is unsupported at once, whatever the server says",
        arguments: [
            ("scrypt", "logN=21,r=8,p=1"),
            ("scrypt", "logN=20,r=16,p=1"),
            ("scrypt", "logN=18,r=8,p=4"),
            ("scrypt", "logN=10,r=1,p=17"),
            ("pbkdf2-sha512", "rounds=10000001"),
        ]
    )
    func plantedKeyring(kdf: String, parameters: String) async throws {
        let directory = try TemporaryDirectory()
        let store = directory.store()
        let url = try await createAccount(in: store)
        let queue = try DatabaseQueue(path: url.path)
        try await queue.write { db in
            var keyring = try #require(try Keyring.read(db))
            keyring.kdfName = kdf
            keyring.kdfParameters = parameters
            try Keyring.withRecomputedChecksum(keyring).write(db)
        }
        try queue.close()
        let server = FakeServer()
        let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
        #expect(outcome.encryptionFailure?.code == .unsupportedKeyring)
        #expect(server.calls == 0)
    }

    // MARK: Key material

    @Test("zeroize overwrites every byte")
    func zeroizes() {
        var bytes = [UInt8](repeating: 0xA5, count: 77)
        bytes.withUnsafeMutableBytes { zeroize($0) }
        #expect(bytes == [UInt8](repeating: 0, count: 77))
    }

    // MARK: Error shapes

    @Test("Errors have one shape: a raw-value code, a message, a cause; described as code: message")
    func errorShape() {
        let cause = POSIXError(.EIO)
        let store = StoreError(code: .diskFull, message: "no room", cause: cause)
        #expect(store.description == "diskFull: no room")
        #expect(StoreError.Code(rawValue: "diskFull") == .diskFull)
        #expect(store.cause is POSIXError)
        let failure = PasswordVerificationFailure(code: .rateLimited, message: "slow down", cause: cause)
        #expect(failure.description == "rateLimited: slow down")
        #expect(PasswordVerificationFailure.Code(rawValue: "blocked") == .blocked)
        #expect(failure.supportURL == nil)
        #expect(EncryptionFailure.Code(rawValue: "damagedKeyring") == .damagedKeyring)
        let encryption = EncryptionFailure(
            code: .damagedFile,
            message: "not a database",
            eraseOption: EraseOption(store: AccountStore(directory: URL(fileURLWithPath: "/nowhere")), account: "x")
        )
        #expect(encryption.description == "damagedFile: not a database")
        #expect(SecondFactorResponse(method: .totp, code: "123456").description.contains("123456") == false)
    }

    // MARK: Deleted bytes

    @Test("Clearing the cached session leaves no copy of its sealed bytes anywhere in the files")
    func loggedOutSessionErased() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.store()
        let database = try await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
        let url = store.databaseURL(email: testEmail, server: testServer)
        let sealed: Data = try #require(
            try await database.queue.read { try Data.fetchOne($0, sql: "SELECT payload FROM account") }
        )
        try await database.storeSession(nil)
        try database.close()
        expectAbsent(sealed, in: url, "the logged-out session's sealed record")
    }

    @Test("After a re-key, the old wrapped key is gone from the file: the old password opens nothing")
    func oldWrappedKeyErased() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.store()
        let database = try await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
        let url = store.databaseURL(email: testEmail, server: testServer)
        let oldKey: Data = try #require(
            try await database.queue.read { try Data.fetchOne($0, sql: "SELECT wrappedKey FROM keyring") }
        )
        try await database.rekey(newPassword: "new password")
        try database.close()
        expectAbsent(oldKey, in: url, "the old wrapped key")
    }

    @Test("Trimmed messages leave no sealed bytes behind")
    func trimmedMessagesErased() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.store()
        let database = try await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
        let url = store.databaseURL(email: testEmail, server: testServer)
        let messages = sampleMessages(chat: "c", count: 60)
        try await database.saveMessages(messages)
        let oldest: [Data] = try await database.queue.read {
            try Data.fetchAll($0, sql: "SELECT payload FROM message ORDER BY sentAt LIMIT 10")
        }
        // One more message, and a bound of 50: the 11 oldest are trimmed.
        let newer = CachedMessage(id: "newer", chatID: "c", authorID: "u", body: "newer", sentAt: Date())
        try await database.saveMessages([newer], perChat: 50)
        #expect(try await database.messages(inChat: "c", limit: 100).count == 50)
        try database.close()
        for value in oldest {
            expectAbsent(value, in: url, "a trimmed message")
        }
    }

    @Test("A deleted chat's messages leave no sealed bytes behind")
    func deletedMessagesErased() async throws {
        let directory = try TemporaryDirectory()
        let store = directory.store()
        let database = try await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
        let url = store.databaseURL(email: testEmail, server: testServer)
        try await database.saveMessages(sampleMessages(chat: "c", count: 60))
        let sealed: [Data] = try await database.queue.read { try Data.fetchAll($0, sql: "SELECT payload FROM message") }
        try await database.apply([.deleteChat(id: "c")])
        try database.close()
        for value in sealed {
            expectAbsent(value, in: url, "a deleted message")
        }
    }

    /// Expects no 24-byte run of `value` (past its nonce) in the database file or its side files.
    private func expectAbsent(_ value: Data, in url: URL, _ what: String) {
        // The ciphertext after the 12-byte nonce: a run this long cannot occur by chance.
        let probe = value.dropFirst(12).prefix(24)
        for (suffix, bytes) in fileBytes(url) {
            #expect(bytes.range(of: probe) == nil, "\(what) is still in file\(suffix)")
        }
    }
}
