import Foundation
import TestProcess
import Testing

/// Runs the built `lifeline` executable, as a user would, and collects what it printed.
enum Executable {
    struct Run {
        var status: Int32
        var standardOutput: String
        var standardError: String

        /// Standard output's lines.
        var lines: [String] { standardOutput.split(separator: "\n").map(String.init) }
    }

    /// The `lifeline` binary beside the test bundle in the build folder.
    static var url: URL {
        get throws {
            var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            for _ in 0..<3 where !FileManager.default.fileExists(atPath: folder.appendingPathComponent("lifeline").path)
            {
                folder.deleteLastPathComponent()
            }
            let binary = folder.appendingPathComponent("lifeline")
            try #require(
                FileManager.default.isExecutableFile(atPath: binary.path), "no lifeline binary near \(folder.path)")
            return binary
        }
    }

    /// Runs `lifeline` with `arguments` to its end, waiting on a thread of its own: there is deliberately no
    /// blocking variant. A test that waits for a child on a thread of Swift's cooperative pool holds that thread
    /// (there are two on a 2-core machine) for as long as the child runs: two such tests are the whole pool, and
    /// every other test of the run, and the in-process servers they talk to, stall with them — the "time limit
    /// exceeded" of tests that had nothing to do with the child.
    static func run(_ arguments: [String]) async throws -> Run {
        let url = try url
        return try await onOwnThread { try run(arguments, executable: url) }
    }

    /// Runs `work`, which blocks its thread (a child process, a pipe read to its end), on a thread of its own,
    /// never on one of the cooperative pool's (see ``run(_:)``).
    static func onOwnThread<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    private static func run(_ arguments: [String], executable: URL) throws -> Run {
        let process = ChildProcess()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, standardOutput: String(decoding: out, as: UTF8.self),
            standardError: String(decoding: err, as: UTF8.self))
    }
}
