import Foundation
import TestProcess
import Testing

/// The children tests start: seen to exit and read to the end whatever descriptors the test process holds, given
/// only their standard streams; and a test process allowed more descriptors than a full run holds.
@Suite("Test children and descriptors", .hangBound)
struct ChildProcessTests {
    /// Runs `script` with `sh`, standard output a pipe; its output and how it ended.
    static func shell(_ script: String) async throws -> (String, ChildProcess.TerminationReason, Int32) {
        let child = ChildProcess()
        child.executableURL = URL(fileURLWithPath: "/bin/sh")
        child.arguments = ["-c", script]
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        let data = try await Executable.onOwnThread { output.fileHandleForReading.readDataToEndOfFile() }
        #expect(await child.exited())
        return (String(decoding: data, as: UTF8.self), child.terminationReason, child.terminationStatus)
    }

    @Test(
        "a child started while the test process holds descriptors above 1 023 is seen to exit, its output read to the end, and it holds only its standard streams"
    )
    func highDescriptors() async throws {
        // Descriptors of the test process up to beyond `select`'s set, as a full run holds at its peak.
        var held: [Int32] = []
        defer { for descriptor in held { close(descriptor) } }
        while (held.last ?? 0) < 1_100 {
            let descriptor = open("/dev/null", O_RDONLY)
            try #require(descriptor >= 0, "the descriptor limit is \(DescriptorLimit.current)")
            held.append(descriptor)
        }
        let (listing, reason, status) = try await Self.shell("ls /proc/$$/fd; exit 3")
        #expect(reason == .exit && status == 3)
        let descriptors = Set(listing.split(separator: "\n").compactMap { Int($0) })
        #expect(descriptors == [0, 1, 2], "the child inherited \(descriptors.sorted())")
    }

    @Test("a child ended by a signal says which; terminate sends SIGTERM")
    func signalled() async throws {
        let child = ChildProcess()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["600"]
        try child.run()
        #expect(child.isRunning)
        child.terminate()
        #expect(await child.exited())
        #expect(!child.isRunning)
        #expect(child.terminationReason == .uncaughtSignal && child.terminationStatus == SIGTERM)
    }

    @Test("a wait for a child is given up when its task is cancelled; the child runs on")
    func cancelledWait() async throws {
        let child = ChildProcess()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["600"]
        try child.run()
        defer { child.terminate() }
        let wait = Task { await child.exited() }
        wait.cancel()
        #expect(await wait.value == false)
        #expect(child.isRunning)
    }

    @Test("the test process may hold more descriptors than a full run's peak (about 1 700), up to the hard limit")
    func descriptorLimit() {
        DescriptorLimit.raise()
        var limit = rlimit()
        #if canImport(Glibc)
            getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        #else
            getrlimit(RLIMIT_NOFILE, &limit)
        #endif
        #expect(DescriptorLimit.current >= min(DescriptorLimit.wanted, Int(clamping: limit.rlim_max)))
    }
}
