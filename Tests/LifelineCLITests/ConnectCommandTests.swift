import Foundation
import StoatReferenceServer
import TestProcess
import Testing

/// `lifeline connect --json` running as a process against an in-process reference server.
final class ConnectRun: Sendable {
    let process = ChildProcess()
    let input = Pipe()
    let lines: LineReader
    let seen = LockedLines()
    private let exits: AsyncStream<Int32>

    /// Starts `lifeline connect` with `arguments`. Unless they set them, the connect, Pong and request deadlines
    /// are a patient 120 s: on a slow, loaded machine the spec's 10 s and a request's 30 s are a guess of speed,
    /// not what these tests check (a test of a deadline passes its own).
    init(_ arguments: [String], environment: [String: String] = [:], json: Bool = true) throws {
        process.executableURL = try Executable.url
        var patience: [String] = []
        if !arguments.contains(where: { $0.hasPrefix("--connect-timeout") }) {
            patience += ["--connect-timeout", "120"]
        }
        if !arguments.contains(where: { $0.hasPrefix("--pong-timeout") }) { patience += ["--pong-timeout", "120"] }
        if !arguments.contains(where: { $0.hasPrefix("--request-timeout") }) {
            patience += ["--request-timeout", "120"]
        }
        process.arguments = ["connect"] + (json ? ["--json"] : []) + arguments + patience
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = input
        lines = LineReader(output.fileHandleForReading)
        let (exits, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.exits = exits
        process.terminationHandler = { process in
            continuation.yield(
                process.terminationReason == .exit ? process.terminationStatus : -process.terminationStatus)
            continuation.finish()
        }
        try process.run()
    }

    /// Waits for the process to exit, without blocking a thread; a signal gives its negated number.
    func exitStatus() async -> Int32? {
        for await status in exits { return status }
        return nil
    }

    /// Every line read so far, as printed.
    var printed: [String] { seen.all }

    /// Reads the next line as printed (human output), or `nil` when output ends.
    func nextLine() async -> String? {
        var iterator = seen.iterator(lines)
        return await iterator.next()
    }

    /// Reads JSON lines until one matches, and returns it; `nil` when output ends first.
    func next(_ predicate: ([String: Any]) -> Bool) async -> [String: Any]? {
        var iterator = seen.iterator(lines)
        while let line = await iterator.next() {
            guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
                Issue.record("not a JSON line: \(line)")
                continue
            }
            if predicate(object) { return object }
        }
        return nil
    }

    /// Reads until a transition into `state`.
    ///
    /// Waiting for CONNECTED, a transition to ERROR ends the wait at once with an issue naming it: nothing leaves
    /// ERROR without a `dismiss`, so the test would otherwise wait for its time limit.
    func transition(to state: String) async -> [String: Any]? {
        var stuck: [String: Any]?
        let found = await next { line in
            guard line["type"] as? String == "transition" else { return false }
            if state == "CONNECTED", line["to"] as? String == "ERROR" {
                stuck = line
                return true
            }
            return line["to"] as? String == state
        }
        if let stuck {
            Issue.record("reached ERROR while waiting for CONNECTED: \(stuck)")
            return nil
        }
        return found
    }

    /// Writes one line to standard input; a process that has already exited is not an error here (the
    /// test's expectations on its output and exit status say what went wrong).
    func send(_ command: String) {
        try? input.fileHandleForWriting.write(contentsOf: Data((command + "\n").utf8))
    }

    deinit {
        // A test that ends early (a failed #require, a time limit) must not leave the process behind: it
        // holds the test run's standard error open.
        if process.isRunning { process.terminate() }
    }

    /// Sends `quit` and returns the exit status.
    func quit() async -> Int32? {
        send("quit")
        return await exitStatus()
    }
}

/// Shares one iterator of the lines between calls.
final class LockedLines: @unchecked Sendable {
    // Only the test's own task reads, one call at a time.
    private var iterator: AsyncStream<String>.Iterator?
    private(set) var all: [String] = []
    func iterator(_ reader: LineReader) -> Cursor { Cursor(owner: self, reader: reader) }

    struct Cursor {
        let owner: LockedLines
        let reader: LineReader
        mutating func next() async -> String? {
            var iterator = owner.iterator ?? reader.lines.makeAsyncIterator()
            let line = await iterator.next()
            owner.iterator = iterator
            if let line { owner.all.append(line) }
            return line
        }
    }
}

@Suite("lifeline connect", .hangBound)
struct ConnectCommandTests {
    /// Quick retries, and deadlines generous enough that a loaded machine never misses one by accident (the
    /// in-process server may be starved of CPU for many seconds; a connect timeout missed in LOGGING_IN is an
    /// ERROR the test would wait on for ever): a test that wants a deadline to pass makes the server cause it
    /// (refused upgrades, ignored pings), or sets a short one after these.
    static let fast = ["--retry-unit", "0.05", "--connect-timeout", "120", "--pong-timeout", "120"]
    /// A heartbeat quick enough to watch a silent server being noticed within seconds.
    static let quickHeartbeat = ["--heartbeat-interval", "0.4", "--pong-timeout", "2"]

    @Test(
        "cached login, refused upgrades with the backoff, heartbeat timeout, offline and online by stdin, user logout")
    func cachedSession() async throws {
        let server = try await ReferenceServer.start()
        await server.refuseNextUpgrades(2)
        let account = server.defaultAccount
        let run = try ConnectRun(
            ["--api", server.apiURL.absoluteString, "--token=\(account.token)", "--network", "manual"] + Self.fast
                + Self.quickHeartbeat)

        let first = await run.transition(to: "CONNECTING")
        #expect(first?["event"] as? String == "LOGIN_CACHED")
        for failures in 1...2 {
            let disconnected = try #require(await run.transition(to: "DISCONNECTED"))
            #expect(disconnected["failures"] as? Int == failures)
            let retry = try #require(disconnected["retry_in"] as? Double)
            let nominal = 0.05 * Double((1 << failures) - 1)
            #expect(retry >= nominal * 0.8 - 0.002 && retry <= nominal * 1.2 + 0.002, "retry in \(retry)")
            let cause = try #require(disconnected["cause"] as? [String: Any])
            #expect(cause["code"] as? String == "connectFailed")
            #expect(cause["message"] is String)
        }
        #expect(await run.transition(to: "CONNECTED") != nil)

        await server.setIgnoresPings(true)
        let silent = try #require(await run.transition(to: "DISCONNECTED"))
        #expect((silent["cause"] as? [String: Any])?["code"] as? String == "heartbeatTimeout")
        #expect((silent["cause"] as? [String: Any])?["message"] as? String == "no Pong within 2.0 seconds")
        await server.setIgnoresPings(false)
        #expect(await run.transition(to: "CONNECTED") != nil)

        run.send("offline")
        _ = await run.next { $0["type"] as? String == "command" && $0["command"] as? String == "offline" }
        _ = await server.dropAllSockets()
        let offline = try #require(await run.transition(to: "OFFLINE"))
        #expect(offline["event"] as? String == "DEVICE_OFFLINE")
        run.send("online")
        let back = try #require(await run.transition(to: "RECONNECTING"))
        #expect(back["event"] as? String == "DEVICE_ONLINE")
        #expect(await run.transition(to: "CONNECTED") != nil)

        run.send("logout")
        #expect(await run.transition(to: "DISPOSE") != nil)
        #expect(await run.transition(to: "READY") != nil)
        #expect(await run.quit() == 0)
        await server.stop()
    }

    @Test("a fresh login with --username answers onboarding and connects")
    func onboarding() async throws {
        let server = try await ReferenceServer.start()
        let account = server.pendingAccount
        let run = try ConnectRun([
            "--api", server.apiURL.absoluteString, "--email", account.email, "--password", account.password,
            "--username", "connect_user",
        ])
        #expect(await run.transition(to: "ONBOARDING") != nil)
        let created = try #require(await run.transition(to: "LOGGING_IN"))
        #expect(created["event"] as? String == "USER_CREATED")
        #expect(await run.transition(to: "CONNECTED") != nil)
        #expect(await run.quit() == 0)
        await server.stop()
    }

    @Test("an external logout prints its notice; a revoked session of a suspended account prints the tailored reason")
    func loggedOutAndSuspended() async throws {
        let server = try await ReferenceServer.start()
        let account = server.defaultAccount
        let first = try ConnectRun(["--api", server.apiURL.absoluteString, "--token=\(account.token)"] + Self.fast)
        #expect(await first.transition(to: "CONNECTED") != nil)
        _ = await server.revokeSession(token: account.token)
        let logout = try #require(await first.transition(to: "DISPOSE"))
        #expect(logout["event"] as? String == "LOGOUT")
        let notice = await first.next { $0["type"] as? String == "notice" }
        #expect(notice?["text"] as? String == "You were logged out.")
        #expect(await first.quit() == 0)

        let token = await server.createSession(userID: account.userID)
        let second = try ConnectRun(["--api", server.apiURL.absoluteString, "--token=\(token)"] + Self.fast)
        #expect(await second.transition(to: "CONNECTED") != nil)
        _ = await server.setUserFlags(1, userID: account.userID)
        _ = await server.dropAllSockets()
        _ = await server.revokeSession(token: token)
        #expect(await second.transition(to: "ERROR") != nil)
        let tailored = await second.next { $0["type"] as? String == "error" && $0["reason"] as? String == "suspended" }
        #expect(tailored?["message"] as? String == "Your account has been suspended.")
        second.send("dismiss")
        #expect(await second.transition(to: "READY") != nil)
        #expect(await second.quit() == 0)
        await server.stop()
    }

    @Test(
        "a retry ceiling below the retry unit (0 included) is refused before anything connects",
        arguments: ["0", "0.5"])
    func retryCeilingBelowUnit(ceiling: String) async throws {
        let run = try await Executable.run([
            "connect", "--api", "http://127.0.0.1:1", "--token", "t", "--retry-ceiling", ceiling,
        ])
        #expect(run.status != 0)
        #expect(run.standardError.contains("must be at least the unit"), "\(run.standardError)")
    }

    @Test("a token that begins with - is read in the --token=TOKEN form (tokens are base64url: 1 in 64 does)")
    func tokenWithLeadingDash() async throws {
        // Validation runs after parsing: reaching the ceiling's refusal means the token was read.
        let run = try await Executable.run([
            "connect", "--api", "http://127.0.0.1:1", "--token=-starts-with-a-dash", "--retry-ceiling", "0",
        ])
        #expect(run.standardError.contains("must be at least the unit"), "\(run.standardError)")
        #expect(!run.standardError.contains("starts-with-a-dash"), "the token is not echoed")
    }

    @Test("a refused login prints why — with the support link for BlockedByShield — and exits 1")
    func refusedLogin() async throws {
        let server = try await ReferenceServer.start()
        let account = server.defaultAccount
        let wrong = try ConnectRun([
            "--api", server.apiURL.absoluteString, "--email", account.email, "--password", "nope",
        ])
        let failure = await wrong.next { $0["type"] as? String == "login_failed" }
        #expect(failure?["code"] as? String == "InvalidCredentials")
        #expect(await wrong.exitStatus() == 1)

        await server.answerNextLogins(with: .blockedByShield)
        let blocked = try ConnectRun([
            "--api", server.apiURL.absoluteString, "--email", account.email, "--password", account.password,
        ])
        let shield = await blocked.next { $0["type"] as? String == "login_failed" }
        #expect(shield?["support_url"] as? String == "https://support.stoat.chat/kb/safety/blocked-for-spam")
        #expect(await blocked.exitStatus() == 1)
        await server.stop()
    }

    @Test("SIGTERM ends the session cleanly with exit 0")
    func sigterm() async throws {
        let server = try await ReferenceServer.start()
        let run = try ConnectRun(["--api", server.apiURL.absoluteString, "--token=\(server.defaultAccount.token)"])
        #expect(await run.transition(to: "CONNECTED") != nil)
        run.process.terminate()
        #expect(await run.exitStatus() == 0)
        await server.stop()
    }
}

@Suite("lifeline connect --store", .hangBound)
struct ConnectStoreTests {
    @Test(
        "created on first use, then opened from the cached session (even with the server gone), wrong password refused, erased only on request"
    )
    func store() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-store-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await ReferenceServer.start()
        let account = server.defaultAccount
        let base =
            ["--api", server.apiURL.absoluteString, "--store", directory, "--email", account.email]
            + ConnectCommandTests.fast

        let first = try ConnectRun(base + ["--password", account.password])
        #expect(await first.next { $0["type"] as? String == "signin" }?["outcome"] as? String == "created")
        #expect(await first.transition(to: "LOGGING_IN")?["event"] as? String == "LOGIN_UNCACHED")
        #expect(await first.transition(to: "CONNECTED") != nil)
        #expect(await first.quit() == 0)

        let second = try ConnectRun(base + ["--password", account.password])
        #expect(await second.next { $0["type"] as? String == "signin" }?["outcome"] as? String == "opened")
        #expect(await second.next { $0["type"] as? String == "chats" } != nil, "the first screen comes from the store")
        #expect(await second.transition(to: "CONNECTING")?["event"] as? String == "LOGIN_CACHED")
        #expect(await second.transition(to: "CONNECTED") != nil)
        #expect(await second.quit() == 0)

        let wrong = try ConnectRun(base + ["--password", "not the password"])
        #expect(await wrong.next { $0["type"] as? String == "signin" }?["outcome"] as? String == "wrongPassword")
        #expect(await wrong.exitStatus() == 1)

        await server.stop()
        let offline = try ConnectRun(base + ["--password", account.password])
        #expect(await offline.next { $0["type"] as? String == "signin" }?["outcome"] as? String == "opened")
        #expect(await offline.transition(to: "CONNECTING") != nil, "starts from the cache with the server unreachable")
        #expect(await offline.transition(to: "DISCONNECTED") != nil)
        #expect(await offline.quit() == 0)

        // The account of that email on another server: there is none, and nothing is erased.
        let elsewhere = try ConnectRun([
            "--api", "http://127.0.0.1:1", "--store", directory, "--email", account.email, "--erase-store",
        ])
        #expect(await elsewhere.exitStatus() != 0)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".sqlite") }.count
                == 1)
        // The email on the server it was made on (which need not be reachable).
        let erase = try ConnectRun([
            "--api", server.apiURL.absoluteString, "--store", directory, "--email", account.email, "--erase-store",
        ])
        #expect(await erase.next { $0["type"] as? String == "signin" }?["outcome"] as? String == "erased")
        #expect(await erase.exitStatus() == 0)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".sqlite") }.isEmpty)
    }
}
