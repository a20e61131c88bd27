import Foundation
import GRDB
import LifelineCore
import Testing

@testable import LifelineStore

@Suite("Key derivation")
struct KeyDerivationTests {
    @Test("The default is PBKDF2-SHA512 with at least 210 000 rounds, and a real sign-in stores it")
    func defaultMeetsMinimum() async throws {
        #expect(KeyDerivation.default == (try KeyDerivation.pbkdf2SHA512(rounds: 210_000)))
        #expect(KeyDerivation.default.meetsRecommendedMinimum)
        #expect(AccountStore.Configuration().keyDerivation == .default)

        let directory = try TemporaryDirectory()
        let store = AccountStore(directory: directory.url.appendingPathComponent("accounts"))
        let database = try await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
        try database.close()
        let url = store.databaseURL(email: testEmail, server: testServer)
        #expect(try rawValue(url, "SELECT kdf FROM keyring") == "pbkdf2-sha512")
        let parameters: String = try #require(try rawValue(url, "SELECT kdfParameters FROM keyring"))
        let rounds = try #require(Int(parameters.replacingOccurrences(of: "rounds=", with: "")))
        #expect(rounds >= 210_000)
    }

    @Test("The checked constructors refuse parameters below the recommended minimum")
    func minimumsEnforced() {
        #expect(throws: StoreError.self) { try KeyDerivation.pbkdf2SHA512(rounds: 209_999) }
        #expect(throws: StoreError.self) { try KeyDerivation.scrypt(logN: 16) }
        #expect(throws: StoreError.self) { try KeyDerivation.scrypt(blockSize: 4) }
        #expect(!KeyDerivation.unsafeUncheckedPBKDF2SHA512(rounds: 1_000).meetsRecommendedMinimum)
        #expect((try? KeyDerivation.scrypt())?.meetsRecommendedMinimum == true)
    }

    @Test("Stored parameters below the configured ones are raised at unlock, and the password still opens")
    func rewrapOnUnlock() async throws {
        let directory = try TemporaryDirectory()
        let weak = directory.store(keyDerivation: .unsafeUncheckedPBKDF2SHA512(rounds: 1_000))
        let url = try await createAccount(in: weak)
        #expect(try rawValue(url, "SELECT kdfParameters FROM keyring") == "rounds=1000")

        let stronger = directory.store(keyDerivation: .unsafeUncheckedPBKDF2SHA512(rounds: 2_000))
        var outcome = await stronger.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
        try outcome.requireDatabase.close()
        #expect(try rawValue(url, "SELECT kdfParameters FROM keyring") == "rounds=2000")

        // Stored parameters above the configured ones are left alone.
        outcome = await weak.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
        #expect(outcome.cachedSession == testSession)
        try outcome.requireDatabase.close()
        #expect(try rawValue(url, "SELECT kdfParameters FROM keyring") == "rounds=2000")
    }

    @Test("Switching the configured function to scrypt re-wraps with scrypt")
    func switchToScrypt() async throws {
        let directory = try TemporaryDirectory()
        let url = try await createAccount(in: directory.store())
        let scrypt = directory.store(keyDerivation: try .unsafeUncheckedScrypt(logN: 10, blockSize: 8, parallelism: 1))
        var outcome = await scrypt.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
        try outcome.requireDatabase.close()
        #expect(try rawValue(url, "SELECT kdf FROM keyring") == "scrypt")
        #expect(try rawValue(url, "SELECT kdfParameters FROM keyring") == "logN=10,r=8,p=1")
        outcome = await scrypt.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
        #expect(outcome.cachedSession == testSession)
    }

    @Test(
        "Stored parameters are parsed strictly and capped",
        arguments: [
            ("pbkdf2-sha512", "rounds=1000", true),
            ("pbkdf2-sha512", "rounds=999999999", false),
            ("pbkdf2-sha512", "rounds=0", false),
            ("pbkdf2-sha512", "rounds=1000,extra=1", false),
            ("scrypt", "logN=10,r=8,p=1", true),
            ("scrypt", "logN=40,r=8,p=1", false),
            ("argon2id", "m=65536,t=3,p=1", false),
        ]
    )
    func parsing(name: String, parameters: String, valid: Bool) {
        #expect((KeyDerivation(name: name, parameters: parameters) != nil) == valid)
    }
}
