import Foundation
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

    /// Runs `lifeline` with `arguments` to its end and returns its output.
    static func run(_ arguments: [String]) throws -> Run {
        let process = Process()
        process.executableURL = try url
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
