package import ArgumentParser
import Foundation
import Lifeline
import LifelineCLIOutput
import LifelineCore
import LifelineStoat
import Synchronization

/// `idle-sessions`: N connected sessions idling in one process — memory per session and CPU per idle
/// minute — against the same number of bare WSClient WebSocket connections (goal: memory ratio ≤ 1.2). A session
/// runs on the channel-handler socket; that socket is also measured bare, against the same baseline, to tell
/// what the socket holds from what the session adds.
///
/// Each side runs in a fresh child process (`lifeline bench-idle`), so one cannot reuse the memory the
/// other freed, and the server runs in a third (`lifeline serve`), so its sockets are not counted.
/// Every connection shares the seeded account's session token: the server allows many sockets per
/// session, and the client does the same work for each.
enum IdleSessionsBenchmark {
    @Sendable
    static func run(quick: Bool) async throws -> BenchmarkResult {
        let count = quick ? 1_000 : 10_000
        let idle = quick ? 5.0 : 30.0
        let server = Process()
        server.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        server.arguments = ["serve", "--port", "0", "--json"]
        let output = Pipe()
        server.standardOutput = output
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer { server.terminate() }
        let line = try readLine(from: output.fileHandleForReading)
        // Every key but `servers` (the seeded world) is a string.
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let events = object["events"] as? String, let token = object["token"] as? String,
            let api = object["api"] as? String
        else { throw BenchmarkError("lifeline serve did not say where it is") }
        let bare = try measure(kind: "bare", count: count, idle: idle, api: api, events: events, token: token)
        let lifeline = try measure(kind: "lifeline", count: count, idle: idle, api: api, events: events, token: token)
        // The channel-handler socket (NIOWebSocket) alone, which a session runs on, against the same baseline.
        let channel = try measure(kind: "nio-bare", count: count, idle: idle, api: api, events: events, token: token)
        let perSession = { (figures: IdleFigures) in Double(figures.rssAfter - figures.rssBefore) / Double(count) / 1024
        }
        let cpuPerMinute = { (figures: IdleFigures) in figures.cpuSeconds / idle * 60 }
        // What the sessions hold once freed memory is given back: the setup's garbage (decoding Ready,
        // the connection's handshake) is not theirs.
        let trimmed = { (figures: IdleFigures) in
            Double((figures.rssTrimmed ?? figures.rssAfter) - figures.rssBefore) / Double(count) / 1024
        }
        var result = BenchmarkResult(
            name: "idle-sessions", unit: "KiB/session", lifeline: perSession(lifeline), baseline: perSession(bare),
            goal: .ratioAtMost(1.2),
            detail: String(
                format: "%d sessions; the channel-handler socket alone: %.1f KiB (ratio %.2f); "
                    + "CPU per idle minute: %.2f s Lifeline, %.2f s bare WSClient, %.2f s channel socket alone "
                    + "(over %.0f s, Ping every 30 s)",
                count, perSession(channel), perSession(channel) / perSession(bare), cpuPerMinute(lifeline),
                cpuPerMinute(bare), cpuPerMinute(channel), idle))
        result.detail += String(
            format:
                "; once freed memory is given back: %.1f KiB Lifeline, %.1f bare WSClient, %.1f channel socket alone",
            trimmed(lifeline), trimmed(bare), trimmed(channel))
        result.extra = [
            "channel_socket": .number(perSession(channel)), "lifeline_trimmed": .number(trimmed(lifeline)),
            "bare_trimmed": .number(trimmed(bare)), "channel_socket_trimmed": .number(trimmed(channel)),
            "channel_socket_ratio": .number(perSession(channel) / perSession(bare)),
        ]
        return result
    }

    struct IdleFigures: Codable {
        var rssBefore: Int
        var rssAfter: Int
        var cpuSeconds: Double
        /// The resident memory after the idle time once the allocator gave freed memory back (glibc's
        /// `malloc_trim`; `nil` elsewhere): what the sessions hold, without what their setup freed.
        var rssTrimmed: Int?
    }

    private static func measure(
        kind: String, count: Int, idle: Double, api: String, events: String, token: String
    ) throws -> IdleFigures {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        child.arguments = [
            "bench-idle", "--kind", kind, "--count", "\(count)", "--idle", "\(idle)", "--api", api, "--events", events,
            "--token", token,
        ]
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        guard child.terminationStatus == 0 else { throw BenchmarkError("bench-idle --kind \(kind) failed") }
        return try JSONDecoder().decode(IdleFigures.self, from: data)
    }

    private static func readLine(from handle: FileHandle) throws -> String {
        var bytes: [UInt8] = []
        while true {
            let chunk = handle.readData(ofLength: 1)
            guard let byte = chunk.first else { throw BenchmarkError("lifeline serve ended early") }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }
}

/// `lifeline bench-idle` (hidden): one side of `idle-sessions`, in a process of its own.
package struct BenchIdle: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "bench-idle", abstract: "One side of the idle-sessions benchmark.", shouldDisplay: false)

    /// `bare` (a WSClient socket, the baseline), `lifeline` (a session, on the channel-handler socket),
    /// `nio-bare` (a channel-handler socket alone) or `nio-bare-decoding` (the same, decoding and dropping Ready).
    @Option var kind: String
    @Option var count: Int
    @Option var idle: Double
    @Option var api: String
    @Option var events: String
    @Option var token: String
    /// Create and run the sessions without logging in: what a session costs before its connection.
    @Flag var withoutConnecting = false
    /// Create the sessions without running them: what a session object costs before `run()`.
    @Flag var withoutRunning = false

    package init() {}

    package func run() async throws {
        raiseDescriptorLimit()
        let before = residentBytes()
        var keepAlive: [Task<Void, Never>] = []
        let connected = Counter()
        let credentials = SessionCredentials(token: token)
        var sessions: [Session] = []
        var channelSockets: [WebSocketTransport] = []
        if kind == "lifeline" {
            let eventsURL = events
            let authenticator = StoatAuthenticator(api: StoatAPI(baseURL: URL(string: api)!))
            let factory = StoatConnectionFactory(eventsURL: { eventsURL })
            for _ in 0..<count {
                let session = Session(
                    connections: factory, authenticator: authenticator, network: ManualNetworkMonitor(.online))
                sessions.append(session)
                if !withoutRunning { keepAlive.append(Task { await session.run() }) }
            }
            for batch in stride(from: 0, to: withoutConnecting || withoutRunning ? 0 : count, by: 200) {
                for session in sessions[batch..<min(count, batch + 200)] {
                    await session.logIn(credentials, cached: true)
                }
                while sessions[batch..<min(count, batch + 200)].contains(where: { $0.snapshot.state != .connected }) {
                    try await Task.sleep(for: .milliseconds(5))
                }
            }
        } else if kind == "nio-bare" || kind == "nio-bare-decoding" {
            let connector = WebSocketConnector(configuration: .init(maximumMessageSize: 64 << 20))
            let url = URL(string: events + "?version=1&format=json")!
            for batch in stride(from: 0, to: count, by: 200) {
                for _ in batch..<min(count, batch + 200) {
                    let client = BareChannelSocket(
                        token: token, decodesReady: kind == "nio-bare-decoding", onReady: { connected.increment() })
                    channelSockets.append(connector.connect(to: url, delegate: client))
                }
                while connected.value < min(count, batch + 200) { try await Task.sleep(for: .milliseconds(5)) }
            }
        } else {
            for batch in stride(from: 0, to: count, by: 200) {
                for _ in batch..<min(count, batch + 200) {
                    let events = events
                    let token = token
                    keepAlive.append(
                        Task {
                            _ = try? await BareSocket.run(url: events, token: token) { _ in
                                connected.increment()
                                await untilCancelled()
                            }
                        })
                }
                while connected.value < min(count, batch + 200) { try await Task.sleep(for: .milliseconds(5)) }
            }
        }
        let after = residentBytes()
        let cpuStart = cpuSeconds()
        try await Task.sleep(for: .seconds(idle))
        let cpu = cpuSeconds() - cpuStart
        if kind == "lifeline" && !withoutConnecting && !withoutRunning {
            precondition(sessions.allSatisfy { $0.snapshot.state == .connected }, "a session dropped while idle")
        }
        let figures = IdleSessionsBenchmark.IdleFigures(
            rssBefore: before, rssAfter: after, cpuSeconds: cpu, rssTrimmed: trimmedResidentBytes())
        emit(String(decoding: try JSONEncoder().encode(figures), as: UTF8.self))
        if kind.hasPrefix("nio-bare") {
            precondition(channelSockets.allSatisfy(\.isOpen), "a socket dropped while idle")
        }
        for task in keepAlive { task.cancel() }
        Foundation.exit(0)  // tearing down 10 000 sockets politely would only measure the teardown
    }
}

/// A counter shared between tasks.
final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}

/// The process's resident memory in bytes, from /proc/self/status (0 where that does not exist).
func residentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
    else { return 0 }
    let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
    return kilobytes * 1024
}

/// The resident memory once glibc's allocator has given back what is free (`malloc_trim(0)`, looked up at
/// run time, as Swift's Glibc module does not declare it); `nil` where there is no such function.
func trimmedResidentBytes() -> Int? {
    #if os(Linux)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        let trim = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        _ = trim(0)
        return residentBytes()
    #else
        return nil
    #endif
}

/// The CPU time (user + system) the process has used, in seconds.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(
        usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// Raises the soft limit on open files to the hard limit, for thousands of sockets.
func raiseDescriptorLimit() {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    limit.rlim_cur = limit.rlim_max
    setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}
