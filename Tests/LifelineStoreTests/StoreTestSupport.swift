import Foundation
import GRDB
import LifelineCore
import Synchronization
import Testing

@testable import LifelineStore

/// A cheap key derivation so each sign-in costs microseconds, not 30 ms. Never use outside tests.
let testKeyDerivation = KeyDerivation.unsafeUncheckedPBKDF2SHA512(rounds: 1_000)

let testEmail = "ada@example.com"
let testPassword = "correct horse battery staple"
let testSession = SessionCredentials(
    token: "TOKEN-7f3a9c21-secret-session-token",
    userID: "01USERID7K5M2Q9ZXW8B4N6R3T",
    sessionID: "01SESSIONID6H2J8K4L0P"
)

/// A fresh directory under the system's temporary directory, removed when the test ends.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("lifeline-store-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// A store in a subdirectory that does not exist yet, so the store creates it.
    func store(schema: StoreSchema = .current, keyDerivation: KeyDerivation = testKeyDerivation) -> AccountStore {
        var configuration = AccountStore.Configuration(keyDerivation: keyDerivation)
        configuration.schema = schema
        return AccountStore(directory: url.appendingPathComponent("accounts"), configuration: configuration)
    }
}

/// A stand-in for the server's login: knows one account's current password, can be made unreachable, and
/// counts how often it was asked.
final class FakeServer: PasswordVerifier {
    private struct State {
        var password: String
        var answerOverride: PasswordVerification?
        var calls = 0
    }

    private let state: Mutex<State>
    let session: SessionCredentials

    init(password: String = testPassword, session: SessionCredentials = testSession) {
        state = Mutex(State(password: password))
        self.session = session
    }

    /// The account's password changes, as on another device.
    func changePassword(to password: String) {
        state.withLock { $0.password = password }
    }

    /// Every later verification answers this, whatever the password.
    func alwaysAnswer(_ answer: PasswordVerification?) {
        state.withLock { $0.answerOverride = answer }
    }

    var calls: Int { state.withLock { $0.calls } }

    func verifyPassword(email: String, password: String) async -> PasswordVerification {
        state.withLock { state in
            state.calls += 1
            if let answer = state.answerOverride { return answer }
            return email == testEmail && password == state.password ? .verified(session) : .wrongPassword
        }
    }
}

extension SignInOutcome {
    /// Signs in and requires `.created` or `.opened`, returning the database.
    var requireDatabase: AccountDatabase {
        get throws {
            try #require(database, "expected an open database, got \(name)")
        }
    }

    var encryptionFailure: EncryptionFailure? {
        if case .encryptionFailure(let failure) = self { return failure }
        return nil
    }

    var migrationFailure: MigrationFailure? {
        if case .migrationFailure(let failure) = self { return failure }
        return nil
    }

    var cachedSession: SessionCredentials? {
        if case .opened(_, let session) = self { return session }
        return nil
    }
}

/// Creates an account database holding `testSession`, closes it, and returns its file.
@discardableResult
func createAccount(in store: AccountStore, server: FakeServer = FakeServer()) async throws -> URL {
    let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
    let database = try #require(outcome.database, "expected created, got \(outcome.name)")
    try database.close()
    return store.databaseURL(email: testEmail)
}

/// The bytes of a database file and every SQLite side file next to it, by suffix.
func fileBytes(_ url: URL) -> [String: Data] {
    var files: [String: Data] = [:]
    for suffix in ["", "-journal", "-wal", "-shm"] {
        if let data = FileManager.default.contents(atPath: url.path + suffix) {
            files[suffix] = data
        }
    }
    return files
}

/// Reads values straight from the file, without keys, as an attacker with the file would.
func rawValue<T: DatabaseValueConvertible>(_ url: URL, _ sql: String) throws -> T? {
    var configuration = Configuration()
    configuration.readonly = true
    let queue = try DatabaseQueue(path: url.path, configuration: configuration)
    defer { try? queue.close() }
    return try queue.read { try T.fetchOne($0, sql: sql) }
}

/// Runs SQL straight on the file, without keys, as an attacker with the file would.
func rawExecute(_ url: URL, _ sql: String) throws {
    let queue = try DatabaseQueue(path: url.path)
    defer { try? queue.close() }
    try queue.write { try $0.execute(sql: sql) }
}

/// Flips one bit in the middle of `value` where it lies in the database file.
func flipByte(of value: Data, in url: URL) throws {
    var file = try Data(contentsOf: url)
    let range = try #require(file.range(of: value), "value not found in the file")
    #expect(file.range(of: value, in: range.upperBound..<file.endIndex) == nil, "value is not unique in the file")
    let index = range.lowerBound + value.count / 2
    file[index] ^= 0x01
    try file.write(to: url)
}

func sampleChats(count: Int, start: Date = Date(timeIntervalSince1970: 1_700_000_000)) -> [CachedChat] {
    (0..<count).map { index in
        CachedChat(
            id: "chat-\(index)",
            name: "Chat number \(index)",
            // Shuffled activity, so insertion order is not the answer.
            lastActivity: start.addingTimeInterval(Double((index * 7_919) % count) * 60),
            unreadCount: index % 5
        )
    }
}
