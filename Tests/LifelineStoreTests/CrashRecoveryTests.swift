import Foundation
import GRDB
import LifelineCore
import TestProcess
import Testing

@testable import LifelineStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("A crash in the middle of a write never locks the store")
struct CrashRecoveryTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// What the user types after the crash, and what the server would say.
    enum Attempt: String, CaseIterable, Sendable {
        case rightPassword, wrongPassword, rightPasswordOffline
    }

    /// The shell the kill tests drive; where it is missing, the in-process crash image below still runs.
    static let sqliteShell = "/usr/bin/sqlite3"
    static let hasSQLiteShell = FileManager.default.isExecutableFile(atPath: sqliteShell)

    @Test(
        "A process killed mid-transaction leaves a hot journal; every sign-in still works and sees the last commit",
        .enabled(if: hasSQLiteShell, "needs the sqlite3 shell at /usr/bin/sqlite3"),
        arguments: Attempt.allCases
    )
    func killedWriter(attempt: Attempt) async throws {
        let store = directory.store()
        let url = try await createAccount(in: store)
        var database = try await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
        let chats = sampleChats(count: 40)
        try await database.saveChats(chats)
        try await database.setLabel("ada")
        try database.close()
        let committed = try rawChatRows(url)
        let committedBytes = try #require(FileManager.default.contents(atPath: url.path))

        // A writer that destroys every chat, spills its changes into the database file (a one-page cache), and
        // is killed before it commits: the file holds half a transaction and the journal is hot.
        try await killWriterMidTransaction(
            url,
            sql: """
                PRAGMA cache_size = 1;
                BEGIN;
                UPDATE chat SET payload = zeroblob(length(payload)), lastActivity = 0;
                DELETE FROM keyring;
                INSERT INTO replay (position, payload) SELECT 1000 + rowid, randomblob(2000) FROM chat;
                """
        )
        #expect(FileManager.default.fileExists(atPath: url.path + "-journal"), "the writer left no journal")
        #expect(
            FileManager.default.contents(atPath: url.path) != committedBytes,
            "the writer's changes did not reach the file"
        )

        let server = FakeServer()
        switch attempt {
        case .rightPassword:
            let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
            database = try outcome.requireDatabase
            #expect(outcome.cachedSession == testSession)
            #expect(try await database.allChats() == chats.sorted { $0.lastActivity > $1.lastActivity })
            #expect(try await database.replayRecord().isEmpty)
            try database.close()
        case .wrongPassword:
            let outcome = await store.signIn(email: testEmail, password: "wrong password", verifier: server)
            #expect(outcome.code == .wrongPassword)
        case .rightPasswordOffline:
            server.alwaysAnswer(.unreachable)
            let outcome = await store.signIn(email: testEmail, password: testPassword, verifier: server)
            #expect(outcome.cachedSession == testSession)
            try outcome.database?.close()
        }
        // Whatever was typed, the file is back at its last commit and the journal is gone.
        #expect(try rawChatRows(url) == committed)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-journal"))
        #expect(try store.accounts().map(\.label) == ["ada"])
    }

    @Test(
        "The login screen lists an account whose last write was interrupted, with its label",
        .enabled(if: hasSQLiteShell, "needs the sqlite3 shell at /usr/bin/sqlite3")
    )
    func listingAfterCrash() async throws {
        let store = directory.store()
        let url = try await createAccount(in: store)
        let database = try await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
        try await database.setLabel("ada")
        try database.close()
        try await killWriterMidTransaction(
            url,
            sql: """
                PRAGMA cache_size = 1;
                BEGIN;
                UPDATE label SET text = 'mallory';
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
                INSERT INTO replay (position, payload) SELECT i, randomblob(2000) FROM n;
                """
        )
        #expect(FileManager.default.fileExists(atPath: url.path + "-journal"))
        #expect(try store.accounts().map(\.label) == ["ada"])
    }

    @Test("A crash image (the file and its journal copied mid-transaction) opens at its last commit")
    func crashImage() async throws {
        let store = directory.store()
        let url = try await createAccount(in: store)
        let database = try await store.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
            .requireDatabase
        let chats = sampleChats(count: 40)
        try await database.saveChats(chats)
        try database.close()

        // Another store directory receives the image: the same file name, as after a crash and a restart.
        let image = directory.url.appendingPathComponent("image", isDirectory: true)
        try FileManager.default.createDirectory(at: image, withIntermediateDirectories: true)
        let imageStore = AccountStore(
            directory: image,
            configuration: AccountStore.Configuration(keyDerivation: testKeyDerivation)
        )
        let imageURL = imageStore.databaseURL(email: testEmail, server: testServer)
        let writer = try DatabaseQueue(path: url.path)
        try await writer.writeWithoutTransaction { db in
            // A one-page cache spills the transaction's changes into the file before it commits.
            try db.execute(sql: "PRAGMA cache_size = 1")
            try db.inTransaction {
                try db.execute(sql: "UPDATE chat SET payload = zeroblob(length(payload)), lastActivity = 0")
                try db.execute(sql: "DELETE FROM keyring")
                try db.execute(
                    sql: """
                        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
                        INSERT INTO replay (position, payload) SELECT i, randomblob(2000) FROM n
                        """
                )
                try FileManager.default.copyItem(atPath: url.path, toPath: imageURL.path)
                try FileManager.default.copyItem(atPath: url.path + "-journal", toPath: imageURL.path + "-journal")
                return .rollback
            }
        }
        try writer.close()
        #expect(try Data(contentsOf: imageURL) != Data(contentsOf: url), "the image holds no uncommitted change")

        let outcome = await imageStore.signIn(email: testEmail, password: testPassword, verifier: FakeServer())
        let opened = try outcome.requireDatabase
        #expect(outcome.cachedSession == testSession)
        #expect(try await opened.allChats() == chats.sorted { $0.lastActivity > $1.lastActivity })
        #expect(try await opened.replayRecord().isEmpty)
        try opened.close()
        #expect(!FileManager.default.fileExists(atPath: imageURL.path + "-journal"))
    }

    /// The chat rows as stored, without keys.
    private func rawChatRows(_ url: URL) throws -> [[Data]] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT tag, lastActivity, payload FROM chat ORDER BY tag").map { row in
                [row["tag"], Data("\(row["lastActivity"] as Int64)".utf8), row["payload"]]
            }
        }
    }

    /// Runs `sql` in the `sqlite3` command-line shell on the database, waits until the shell has executed it,
    /// then kills the shell with SIGKILL: a real process dying in the middle of its transaction.
    ///
    /// The shell is driven and waited for on a thread of its own: a test that blocks a thread of Swift's
    /// cooperative pool (two on a 2-core machine) stalls every other test of the run with it.
    private func killWriterMidTransaction(_ url: URL, sql: String) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread {
                continuation.resume(with: Result { try Self.killWriterMidTransactionBlocking(url, sql: sql) })
            }.start()
        }
    }

    private static func killWriterMidTransactionBlocking(_ url: URL, sql: String) throws {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: Self.sqliteShell)
        process.arguments = [url.path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // The shell answers each statement as it finishes and flushes its output: once it prints the marker,
        // every statement before it has run, and the transaction is still open.
        input.fileHandleForWriting.write(Data((sql + "\nSELECT 'mid-transaction';\n").utf8))
        var printed = Data()
        while printed.range(of: Data("mid-transaction".utf8)) == nil {
            let chunk = output.fileHandleForReading.availableData
            try #require(!chunk.isEmpty, "sqlite3 ended early: \(String(decoding: printed, as: UTF8.self))")
            printed.append(chunk)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        #expect(process.terminationReason == .uncaughtSignal)
    }
}
