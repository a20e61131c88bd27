import Crypto
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
/// The server the fake verifier stands for: every account the tests make is its.
let testServer = ServerIdentity("https://api.example.com")!
let testSession = SessionCredentials(
    token: "TOKEN-7f3a9c21-secret-session-token",
    userID: "01USERID7K5M2Q9ZXW8B4N6R3T",
    sessionID: "01SESSIONID6H2J8K4L0P",
    issuer: testServer
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

/// A stand-in for the server's login: knows one account's current password, can be made unreachable or to ask
/// for a second factor, counts how often it was asked, and records the sessions the flow ended.
final class FakeServer: PasswordVerifier {
    private struct State {
        var password: String
        var answerOverride: PasswordVerification?
        var secondFactorCode: String?
        var calls = 0
        var sessionsCreated: [SessionCredentials] = []
        var sessionsEnded: [SessionCredentials] = []
    }

    private let state: Mutex<State>
    let session: SessionCredentials
    let server: ServerIdentity

    init(
        password: String = testPassword, session: SessionCredentials = testSession, server: ServerIdentity = testServer
    ) {
        state = Mutex(State(password: password))
        self.session = session
        self.server = server
    }

    /// The account's password changes, as on another device.
    func changePassword(to password: String) {
        state.withLock { $0.password = password }
    }

    /// Every later verification answers this, whatever the password.
    func alwaysAnswer(_ answer: PasswordVerification?) {
        state.withLock { $0.answerOverride = answer }
    }

    /// The account needs a second factor: a right password is answered with a challenge that `code` passes.
    func requireSecondFactor(code: String?) {
        state.withLock { $0.secondFactorCode = code }
    }

    var calls: Int { state.withLock { $0.calls } }

    /// Every session a verification created, in order.
    var sessionsCreated: [SessionCredentials] { state.withLock { $0.sessionsCreated } }

    /// Every session the flow ended, in order.
    var sessionsEnded: [SessionCredentials] { state.withLock { $0.sessionsEnded } }

    func verifyPassword(email: String, password: String) async -> PasswordVerification {
        enum Step {
            case answer(PasswordVerification)
            case challenge(code: String)
        }
        let step: Step = state.withLock { state in
            state.calls += 1
            if let answer = state.answerOverride { return .answer(answer) }
            guard email == testEmail, password == state.password else { return .answer(.wrongPassword) }
            if let code = state.secondFactorCode { return .challenge(code: code) }
            state.sessionsCreated.append(session)
            return .answer(.verified(session))
        }
        switch step {
        case .answer(let answer):
            return answer
        case .challenge(let code):
            return .secondFactorRequired(
                SecondFactorChallenge(methods: [.totp, .recoveryCode]) { response in
                    self.state.withLock { state in
                        guard response.method == .totp, response.code == code else {
                            return .failed(
                                PasswordVerificationFailure(code: .secondFactorRefused, message: "wrong code")
                            )
                        }
                        state.sessionsCreated.append(self.session)
                        return .verified(self.session)
                    }
                }
            )
        }
    }

    func endSession(_ session: SessionCredentials) async {
        state.withLock { $0.sessionsEnded.append(session) }
    }
}

extension SignInOutcome {
    /// Signs in and requires `.created` or `.opened`, returning the database.
    var requireDatabase: AccountDatabase {
        get throws {
            try #require(database, "expected an open database, got \(code)")
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

    /// The cached session an opened database started with (LOGIN_CACHED); nil otherwise.
    var cachedSession: SessionCredentials? {
        if case .opened(_, .cached(let session)) = self { return session }
        return nil
    }

    /// The session the server verified for an opened database (LOGIN_UNCACHED); nil otherwise.
    var verifiedSession: SessionCredentials? {
        if case .opened(_, .verified(let session)) = self { return session }
        return nil
    }

    /// The server of an ``SignInOutcome/otherServer(_:)`` outcome; nil otherwise.
    var otherServer: ServerIdentity? {
        if case .otherServer(let server) = self { return server }
        return nil
    }

    /// The name of the opened outcome's session, or nil.
    var openedSessionName: String? {
        if case .opened(_, let session) = self { return session.name }
        return nil
    }
}

/// Creates an account database holding `testSession`, closes it, and returns its file.
@discardableResult
func createAccount(in store: AccountStore, server: FakeServer = FakeServer()) async throws -> URL {
    let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
    let database = try #require(outcome.database, "expected created, got \(outcome.code)")
    try database.close()
    return store.databaseURL(email: testEmail, server: testServer)
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
            kind: index.isMultiple(of: 3) ? .directMessage : .channel,
            name: "Chat number \(index)",
            parentID: index.isMultiple(of: 3) ? nil : "space-\(index % 4)",
            // Shuffled activity, so insertion order is not the answer.
            lastActivity: start.addingTimeInterval(Double((index * 7_919) % count) * 60),
            lastMessageID: "last-\(index)",
            unreadCount: index % 5,
            details: Data([UInt8(index % 256), 0, 7])
        )
    }
}

/// `count` messages in one chat, one second apart from `start`, oldest first.
func sampleMessages(
    chat: String, count: Int, start: Date = Date(timeIntervalSince1970: 1_700_000_000)
)
    -> [CachedMessage]
{
    (0..<count).map { index in
        CachedMessage(
            id: "\(chat)-m\(index)",
            chatID: chat,
            authorID: "author-\(index % 3)",
            body: "message \(index) in \(chat) ✉️",
            sentAt: start.addingTimeInterval(Double(index)),
            editedAt: index.isMultiple(of: 4) ? start.addingTimeInterval(Double(index) + 0.5) : nil,
            details: Data("attachments-\(index)".utf8)
        )
    }
}

extension AccountDatabase {
    /// Upserts chats through the batch write.
    func saveChats(_ chats: [CachedChat]) async throws {
        try await apply(chats.map { .upsertChat($0) })
    }

    /// Upserts messages through the batch write.
    func saveMessages(
        _ messages: [CachedMessage], perChat: Int = AccountDatabase.defaultMessagesPerChat
    )
        async throws
    {
        try await apply(messages.map { .upsertMessage($0) }, messagesPerChat: perChat)
    }
}

/// An account database exactly as the release before accounts were bound to a server wrote it (schema `v2`,
/// or `v1` when asked): named by the email alone (`accountID(email:)`), account payload 1 (email, token, user
/// id, session id: no server), no `server` table.
struct UnboundFile {
    let url: URL
    let sealer: RecordSealer

    @discardableResult
    init(
        store: AccountStore, email: String = testEmail, password: String = testPassword,
        session: SessionCredentials? = testSession, label: String? = nil, schema: StoreSchema = .version2
    ) throws {
        try FileManager.default.createDirectory(at: store.directory, withIntermediateDirectories: true)
        url = store.databaseURL(email: email)
        let dataKey = SymmetricKey(size: .bits256)
        sealer = RecordSealer(dataKey: dataKey)
        let keyring = try Keyring.wrap(dataKey, password: password, using: store.configuration.keyDerivation)
        let queue = try DatabaseQueue(path: url.path)
        try schema.migrator.migrate(queue)
        try queue.write { [sealer] db in
            try keyring.write(db)
            var payload = ByteWriter()
            payload.append(1)
            payload.append(email)
            payload.append(session?.token)
            payload.append(session?.userID)
            payload.append(session?.sessionID)
            let sealed = try sealer.seal(payload.bytes, AccountDatabase.accountContext)
            try db.execute(sql: "INSERT INTO account (id, payload) VALUES (1, ?)", arguments: [sealed])
            if let label {
                try db.execute(sql: "INSERT INTO label (id, text) VALUES (1, ?)", arguments: [label])
            }
        }
        try queue.close()
    }

    /// Writes rows with the file's data key, as the old code did.
    func write(_ body: @escaping @Sendable (Database, RecordSealer) throws -> Void) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { [sealer] db in try body(db, sealer) }
        try queue.close()
    }

    /// Writes a message row as the `v2` code did (payload version 1), and returns the message it reads back as.
    @discardableResult
    func writeMessage(
        id: String, chatID: String, authorID: String, body: String, sentAt: Date
    ) throws
        -> CachedMessage
    {
        try write { db, sealer in
            let tag = sealer.rowTag("message", id)
            let chatTag = sealer.rowTag("chat", chatID)
            let milliseconds = sentAt.storedMilliseconds
            var payload = ByteWriter()
            payload.append(1)
            payload.append(id)
            payload.append(chatID)
            payload.append(authorID)
            payload.append(body)
            let sealed = try sealer.seal(
                payload.bytes, AccountDatabase.messageContext(tag: tag, chatTag: chatTag, sentAt: milliseconds))
            try db.execute(
                sql: "INSERT INTO message (tag, chatTag, sentAt, payload) VALUES (?, ?, ?, ?)",
                arguments: [tag, chatTag, milliseconds, sealed])
        }
        return CachedMessage(id: id, chatID: chatID, authorID: authorID, body: body, sentAt: sentAt)
    }

    /// The file's bytes, to show a sign-in left it untouched.
    func bytes() throws -> Data {
        try Data(contentsOf: url)
    }
}
