import Foundation
import StoatReferenceServer
import Synchronization
import TestProcess
import Testing

/// A reader that stopped reading cannot keep the command line alive: with standard output a full pipe nobody
/// reads, SIGTERM still ends `connect` (its store flushed) and `operations`.
@Suite("A stuck standard output", .hangBound)
struct StuckOutputTests {
    /// A pipe already full: every write to it blocks until someone reads, and nobody will.
    static func fullPipe() throws -> Pipe {
        let pipe = Pipe()
        let descriptor = pipe.fileHandleForWriting.fileDescriptor
        let flags = fcntl(descriptor, F_GETFL)
        // Filled without blocking, then made blocking again for the child: its writes must block, not fail.
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 4096)
        var filled = 0
        while true {
            let written = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written <= 0 { break }
            filled += written
        }
        _ = fcntl(descriptor, F_SETFL, flags)
        try #require(errno == EAGAIN || errno == EWOULDBLOCK, "the pipe is full")
        try #require(filled > 0)
        return pipe
    }

    /// Starts `lifeline` with `arguments`, standard output the full pipe and standard error `errors` (when given),
    /// and returns the process and its exit.
    static func start(
        _ arguments: [String], stdout: Pipe, input: Pipe? = nil, errors: ChildErrors? = nil,
        environment: [String: String]
    ) throws -> (ChildProcess, AsyncStream<Int32>) {
        let process = ChildProcess()
        process.executableURL = try Executable.url
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = stdout
        process.standardError = try errors?.handle() ?? FileHandle.nullDevice
        if let input { process.standardInput = input }
        let (exits, continuation) = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = { process in
            continuation.yield(
                process.terminationReason == .exit ? process.terminationStatus : -process.terminationStatus)
            continuation.finish()
        }
        try process.run()
        return (process, exits)
    }

    /// The exit status, or `nil` when the process is still running after `deadline` — a failure bound, not a
    /// wait: a process that exits is seen at once.
    static func exit(_ exits: AsyncStream<Int32>, within deadline: Duration) async -> Int32? {
        await withTaskGroup(of: Int32?.self) { group in
            group.addTask {
                for await status in exits { return status }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: deadline)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// What a child wrote on standard error, kept in a temporary file for a failure's message; removed at the end.
    final class ChildErrors: Sendable {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-stderr-\(UUID())")

        /// A handle writing to the file, created empty.
        func handle() throws -> FileHandle {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
            return try FileHandle(forWritingTo: url)
        }

        /// The file's last lines.
        var tail: String {
            let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").suffix(20).joined(separator: "\n")
        }

        deinit { try? FileManager.default.removeItem(at: url) }
    }

    /// Waits for `condition` on `server` while `process` runs. A child that ends first fails the test at once with
    /// its status and what it said on standard error, instead of leaving the wait to run into its failure bound
    /// (the wait for the child is cancelled when the condition holds first).
    static func waitWhileRunning(
        _ process: ChildProcess, errors: ChildErrors, server: ReferenceServer,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: @escaping @Sendable ([ConnectionRecord], SocketCounters) -> Bool
    ) async throws {
        let ended = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await server.waitUntil(timeout: .failureBound, condition)
                return false
            }
            group.addTask { await process.exited() }
            let first = try await group.next() ?? false
            group.cancelAll()
            return first
        }
        if ended {
            let status = process.terminationStatus
            Issue.record(
                "the child ended (status \(status)) before the server saw what the test waits for; its standard error:\n\(errors.tail)",
                sourceLocation: sourceLocation)
            throw CancellationError()
        }
    }

    @Test("SIGTERM ends connect whose standard output nobody reads, and what it sent is in the store")
    func connect() async throws {
        let server = try await ReferenceServer.start()
        let account = server.defaultAccount
        let channel = server.lobbyChannelID
        let directory = ConnectAccountTests.StoreDirectory()
        let base =
            ["connect", "--json", "--api", server.apiURL.absoluteString, "--store", directory.path]
            + ConnectAccountTests.fast + ["--request-timeout", "120"]
        let stdout = try Self.fullPipe()
        let input = Pipe()
        let errors = ChildErrors()
        let (process, exits) = try Self.start(
            base + ["--email", account.email], stdout: stdout, input: input, errors: errors,
            environment: ["LIFELINE_PASSWORD": account.password])
        defer { if process.isRunning { process.terminate() } }
        // Failure bounds, not waits: in a full run the in-process server answers the child from a crowded pool
        // (25 s to Ready seen at load 4, 0.9 s alone), so the bounds are far above that, within the suite's limit.
        try await Self.waitWhileRunning(process, errors: errors, server: server) { connections, _ in
            connections.contains { $0.isOpen && $0.receivedReady }
        }
        // A message sent, then a typing frame: the frame is written only after the send returned, so when the
        // server sees it, the message is in the account's outbox (kept in the store), or already sent and in the
        // client's cache, not yet necessarily in its store.
        input.fileHandleForWriting.write(Data("send \(channel) written before SIGTERM\ntyping \(channel)\n".utf8))
        try await Self.waitWhileRunning(process, errors: errors, server: server) { connections, _ in
            connections.contains { $0.receivedFrames.contains { $0.contains("BeginTyping") } }
        }
        process.terminate()
        let status = await Self.exit(exits, within: .failureBound)
        #expect(status == 0, "SIGTERM ended it cleanly, though its standard output never moved: \(errors.tail)")
        await server.stop()

        // The server is gone: the next run's history comes from the store alone.
        let offline = try ConnectRun(
            ["--api", server.apiURL.absoluteString, "--store", directory.path] + ConnectAccountTests.fast,
            environment: ["LIFELINE_PASSWORD": account.password])
        // The entries the store gives back are printed as the sign-in opens the store, the history after.
        var pending: [[String: Any]] = []
        func note(_ line: [String: Any]) {
            if line["type"] as? String == "outbox", line["channel"] as? String == channel { pending.append(line) }
        }
        let signin = await offline.next { line in
            note(line)
            return line["type"] as? String == "signin"
        }
        #expect(signin?["outcome"] as? String == "opened")
        offline.send("history \(channel)")
        let history = try #require(
            await offline.next { line in
                note(line)
                return line["type"] as? String == "history"
            })
        let messages = try #require(history["messages"] as? [[String: Any]])
        // Sent before SIGTERM and in the stored history, or still in the stored outbox — queued, or sending when
        // the signal came (given back at sign-in, looked up or sent on the next run that reaches the server):
        // never lost.
        let stored = messages.contains { $0["content"] as? String == "written before SIGTERM" }
        let kept = pending.contains { ["queued", "sending"].contains($0["state"] as? String ?? "") }
        #expect(stored || kept, "\(messages) \(pending)")
        #expect(await offline.quit() == 0)
    }

    @Test("SIGTERM ends operations whose standard output nobody reads")
    func operations() async throws {
        let server = try await ReferenceServer.start()
        let account = server.defaultAccount
        _ = await server.addOperation(kind: "invite", userID: account.userID, expiresIn: .seconds(600))
        let stdout = try Self.fullPipe()
        let errors = ChildErrors()
        let (process, exits) = try Self.start(
            ["operations", "--api", server.apiURL.absoluteString, "--request-timeout", "120"], stdout: stdout,
            errors: errors,
            environment: ["LIFELINE_TOKEN": account.token])
        defer { if process.isRunning { process.terminate() } }
        // Its list is printed (into the full pipe) when it starts, and again when its socket is ready.
        try await Self.waitWhileRunning(process, errors: errors, server: server) { connections, _ in
            connections.contains { $0.isOpen && $0.receivedReady }
        }
        process.terminate()
        #expect(await Self.exit(exits, within: .failureBound) == 0)
        await server.stop()
    }
}

extension StuckOutputTests {
    /// The processes `pid` started that still run, whichever of its threads started them (Linux's `/proc`).
    static func children(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task -> [Int32] in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
    }

    @Test(
        "SIGTERM ends a soak at once and takes its reference server child with it",
        .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/task")))
    func soak() async throws {
        let process = ChildProcess()
        process.executableURL = try Executable.url
        process.arguments = ["soak", "--sessions", "2", "--seconds", "600", "--seed", "7", "--json"]
        process.standardError = FileHandle.nullDevice
        let output = Pipe()
        process.standardOutput = output
        let (exits, continuation) = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = { process in
            continuation.yield(
                process.terminationReason == .exit ? process.terminationStatus : -process.terminationStatus)
            continuation.finish()
        }
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        // The first progress line says the sessions are connected: the server child runs, the faults begin.
        var lines = LineReader(output.fileHandleForReading).lines.makeAsyncIterator()
        let first = try #require(await lines.next())
        #expect(first.contains("progress"))
        let servers = Self.children(of: process.processIdentifier)
        try #require(!servers.isEmpty, "the reference server runs in a child")
        process.terminate()
        let status = await Self.exit(exits, within: .failureBound)
        #expect(status == 1, "a soak cut short proves nothing")
        for server in servers {
            // Gone, or at most a zombie of an exited child, never a server left listening.
            let state = (try? String(contentsOfFile: "/proc/\(server)/stat", encoding: .utf8))?
                .split(separator: " ").dropFirst(2).first
            #expect(state == nil || state == "Z", "the server child \(server) outlived the soak")
        }
    }
}
