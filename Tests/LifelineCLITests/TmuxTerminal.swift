import Foundation
import Synchronization
import TestProcess
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A real terminal for end-to-end tests: a tmux server of the test's own (its own socket), one pane running a
/// shell, keys sent with `send-keys`, the screen read with `capture-pane`.
///
/// Waits are for screen contents: every byte the pane's program writes reaches the test through a FIFO
/// (`pipe-pane`), and each arrival re-reads the screen; the deadline is a failure bound, never a way to let time
/// pass.
final class TmuxTerminal: Sendable {
    let socket = "lifeline-test-\(UUID().uuidString.prefix(8))"
    let target = "chat"
    private let fifo: String
    private let output = OutputSignal()

    /// tmux, when the machine has it.
    static var tmux: String? {
        ["/usr/bin/tmux", "/usr/local/bin/tmux", "/opt/homebrew/bin/tmux"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// A pane of `columns`×`rows` running `sh`, with `environment` set for what it runs.
    init(columns: Int, rows: Int, environment: [String: String] = [:]) async throws {
        let tmux = try #require(Self.tmux, "tmux is not installed (.ci/run installs it)")
        fifo = FileManager.default.temporaryDirectory.appending(path: "\(socket).fifo").path
        guard mkfifo(fifo, 0o600) == 0 else { throw TmuxError("mkfifo failed") }
        let output = output
        let path = fifo
        // The FIFO's reader, on a thread of its own: each read wakes the waits.
        Thread {
            let handle = open(path, O_RDONLY)
            guard handle >= 0 else {
                output.finish()
                return
            }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(handle, &buffer, buffer.count)
                guard count > 0 else { break }
                output.signal(appending: buffer[0..<count])
            }
            close(handle)
            output.finish()
        }.start()
        var arguments = [
            "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", target, "-x", "\(columns)", "-y", "\(rows)",
        ]
        for (name, value) in environment { arguments += ["-e", "\(name)=\(value)"] }
        arguments += ["sh"]
        _ = tmux
        // The server tmux starts here lives on: it must not inherit a pipe whose end this test waits for.
        try await run(arguments, readsOutput: false)
        try await run(["-L", socket, "pipe-pane", "-t", target, "-o", "cat > \(fifo)"])
    }

    /// Runs `body` with a pane of `columns`×`rows` running `sh`, and ends the tmux server (and the program in the
    /// pane) when `body` returns or throws: a `defer` cannot await, and a test process that ends first leaves the
    /// server running.
    static func with<Value: Sendable>(
        columns: Int, rows: Int, environment: [String: String] = [:],
        _ body: (TmuxTerminal) async throws -> Value
    ) async throws -> Value {
        let terminal = try await TmuxTerminal(columns: columns, rows: rows, environment: environment)
        do {
            let value = try await body(terminal)
            await terminal.stop()
            return value
        } catch {
            await terminal.stop()
            throw error
        }
    }

    /// Runs tmux with `arguments` on a thread of its own; its standard output.
    @discardableResult
    func run(_ arguments: [String], readsOutput: Bool = true) async throws -> String {
        let tmux = try #require(Self.tmux)
        return try await Executable.onOwnThread {
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: tmux)
            process.arguments = arguments
            let pipe = Pipe()
            process.standardOutput = readsOutput ? pipe as any Sendable : FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let data = readsOutput ? pipe.fileHandleForReading.readDataToEndOfFile() : Data()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// The screen's text, row by row.
    func screen() async throws -> String {
        try await run(["-L", socket, "capture-pane", "-p", "-t", target])
    }

    /// A format of the pane (`#{alternate_on}`, `#{cursor_flag}`…).
    func display(_ format: String) async throws -> String {
        try await run(["-L", socket, "display-message", "-p", "-t", target, format])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Types text literally.
    func type(_ text: String) async throws {
        try await run(["-L", socket, "send-keys", "-t", target, "-l", text])
    }

    /// Presses keys by tmux's names (`Enter`, `C-q`, `PPage`, `F5`).
    func press(_ keys: String...) async throws {
        try await run(["-L", socket, "send-keys", "-t", target] + keys)
    }

    /// Waits until the screen satisfies `condition`, re-reading it whenever the pane's program writes; fails the
    /// test with the last screen when `timeout` (a failure bound) passes first.
    @discardableResult
    func waitFor(
        _ what: String, timeout: Duration = .failureBound, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: @escaping @Sendable (String) -> Bool
    ) async throws -> String {
        let output = output
        let result = await withTaskGroup(of: String?.self) { group in
            group.addTask {
                var seen = output.count
                while !Task.isCancelled {
                    let screen = (try? await self.screen()) ?? ""
                    if condition(screen) { return screen }
                    guard let next = await output.next(after: seen) else { return nil }
                    seen = next
                }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let result else {
            let last = (try? await screen()) ?? ""
            Issue.record("the screen never showed \(what):\n\(last)", sourceLocation: sourceLocation)
            throw TmuxError("timed out waiting for \(what)")
        }
        return result
    }

    /// How many bytes the pane's program has written so far: a mark for ``waitForOutput(_:since:timeout:containing:)``.
    var outputMark: Int { output.transcriptCount }

    /// Waits until the bytes the pane's program wrote after `mark` contain `text`: for a state that the screen may
    /// show only briefly (a banner before the session is back), which a capture of the screen can miss but the
    /// program's output cannot. Fails the test when `timeout` (a failure bound) passes first.
    func waitForOutput(
        _ what: String, since mark: Int, timeout: Duration = .failureBound,
        sourceLocation: SourceLocation = #_sourceLocation, containing text: String
    ) async throws {
        let output = output
        let found = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                var seen = output.count
                while !Task.isCancelled {
                    if output.transcript(since: mark).contains(text) { return true }
                    guard let next = await output.next(after: seen) else { return false }
                    seen = next
                }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        guard found else {
            Issue.record("the program never wrote \(what)", sourceLocation: sourceLocation)
            throw TmuxError("timed out waiting for \(what)")
        }
    }

    /// Ends the tmux server and everything in it.
    func stop() async {
        // The session first: here `kill-server` alone left the server running (the pane's shell and the
        // pipe-pane job with it); a server with no session left ends.
        _ = try? await run(["-L", socket, "kill-session", "-t", target])
        _ = try? await run(["-L", socket, "kill-server"])
        unlink(fifo)
    }
}

struct TmuxError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Counts the pane's writes and keeps their bytes; a wait resumes at the next one (or when cancelled, or when the
/// output ends).
final class OutputSignal: Sendable {
    private struct State {
        var count = 0
        var transcript: [UInt8] = []
        var finished = false
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Int?, Never>] = [:]
    }

    private let state = Mutex(State())

    var count: Int { state.withLock { $0.count } }

    var transcriptCount: Int { state.withLock { $0.transcript.count } }

    /// The bytes written after the first `mark`, as text.
    func transcript(since mark: Int) -> String {
        state.withLock { String(decoding: $0.transcript[min(mark, $0.transcript.count)...], as: UTF8.self) }
    }

    func signal(appending bytes: ArraySlice<UInt8> = []) {
        let (count, waiters) = state.withLock { state in
            state.transcript.append(contentsOf: bytes)
            state.count += 1
            defer { state.waiters = [:] }
            return (state.count, state.waiters)
        }
        for waiter in waiters.values { waiter.resume(returning: count) }
    }

    func finish() {
        let waiters = state.withLock { state in
            state.finished = true
            defer { state.waiters = [:] }
            return state.waiters
        }
        for waiter in waiters.values { waiter.resume(returning: nil) }
    }

    /// The count once it passes `seen`; nil when the output ended or the task was cancelled.
    func next(after seen: Int) async -> Int? {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Int?, Never>) in
                let now: Int?? = state.withLock { state in
                    if state.count > seen { return .some(state.count) }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    state.waiters[id] = continuation
                    return .none
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(returning: nil)
        }
    }
}
