import Foundation
import TestProcess
import Testing

/// Two network namespaces joined by a veth pair: the monitor runs in one, whose only interface besides
/// loopback is its end of the pair. No traffic is sent; the addresses are from the benchmarking range
/// (RFC 2544) and exist only inside the namespaces.
struct NamespacePair {
    let watched: String
    let peer: String

    /// Whether this machine lets the tests make namespaces (root and iproute2, on Linux).
    static let available: Bool = {
        #if os(Linux)
            let probe = "lifeline-probe-\(getpid())"
            guard (try? ip(["netns", "add", probe])) == 0 else { return false }
            _ = try? ip(["netns", "del", probe])
            return true
        #else
            return false
        #endif
    }()

    init() throws {
        let suffix = "\(getpid())-\(UInt16.random(in: 0...9999))"
        watched = "lifeline-watched-\(suffix)"
        peer = "lifeline-peer-\(suffix)"
        for arguments in [
            ["netns", "add", watched],
            ["netns", "add", peer],
            ["-n", watched, "link", "add", "veth-w", "type", "veth", "peer", "name", "veth-p", "netns", peer],
            ["-n", watched, "addr", "add", "198.18.0.1/30", "dev", "veth-w"],
            ["-n", peer, "addr", "add", "198.18.0.2/30", "dev", "veth-p"],
            ["-n", peer, "link", "set", "veth-p", "up"],
        ] {
            try #require(try Self.ip(arguments) == 0, "ip \(arguments.joined(separator: " ")) failed")
        }
    }

    func setWatchedLink(up: Bool) throws {
        try #require(try Self.ip(["-n", watched, "link", "set", "veth-w", up ? "up" : "down"]) == 0)
    }

    func remove() {
        _ = try? Self.ip(["netns", "del", watched])
        _ = try? Self.ip(["netns", "del", peer])
    }

    @discardableResult
    static func ip(_ arguments: [String]) throws -> Int32 {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ip"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// The lines a running process prints, as they come.
final class LineReader: Sendable {
    let lines: AsyncStream<String>

    init(_ handle: FileHandle) {
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        self.lines = lines
        let buffer = LockedBuffer()
        handle.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                continuation.finish()
                return
            }
            for line in buffer.append(data) { continuation.yield(line) }
        }
    }
}

final class LockedBuffer: @unchecked Sendable {
    // Only the file handle's readability handler touches it, one call at a time; the lock makes that explicit.
    private let lock = NSLock()
    private var pending = Data()

    func append(_ data: Data) -> [String] {
        lock.lock()
        defer { lock.unlock() }
        pending.append(data)
        var lines: [String] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
            pending.removeSubrange(pending.startIndex...newline)
        }
        return lines
    }
}

@Suite("lifeline network", .hangBound)
struct NetworkCommandTests {
    @Test(
        "the Linux monitor, run in a network namespace, sees offline when the last link goes down and online when it returns",
        .enabled(if: NamespacePair.available, "network namespaces need root and iproute2 on Linux"))
    func watchesRealLinks() async throws {
        let namespaces = try NamespacePair()
        defer { namespaces.remove() }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "ip", "netns", "exec", namespaces.watched, try Executable.url.path, "network", "--watch", "--json",
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        defer { process.terminate() }
        var lines = LineReader(output.fileHandleForReading).lines.makeAsyncIterator()
        #expect(await lines.next() == #"{"status":"offline","type":"network"}"#, "the link starts down")
        try namespaces.setWatchedLink(up: true)
        #expect(await lines.next() == #"{"status":"online","type":"network"}"#)
        try namespaces.setWatchedLink(up: false)
        #expect(await lines.next() == #"{"status":"offline","type":"network"}"#)
        try namespaces.setWatchedLink(up: true)
        #expect(await lines.next() == #"{"status":"online","type":"network"}"#)
    }

    @Test("without --watch, prints the current status once and exits")
    func once() async throws {
        let run = try await Executable.run(["network", "--json"])
        #expect(run.status == 0)
        #expect(run.lines.count == 1)
        #expect(
            run.lines.first == #"{"status":"online","type":"network"}"#
                || run.lines.first == #"{"status":"offline","type":"network"}"#)
    }
}
