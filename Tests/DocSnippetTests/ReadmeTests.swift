import Foundation
import Testing

/// The README as the chat issue asks for it: a product page a newcomer reads in five minutes, opening with the two
/// commands and a screen of `lifeline chat` that a test draws.
@Suite("The README", .hangBound)
struct ReadmeTests {
    /// The package's root, from this file's path.
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appending(path: path), encoding: .utf8)
    }

    @Test("it is at most 300 lines, and opens with the command that runs lifeline chat and the one that runs the tests")
    func shortAndOpensWithTheTwoCommands() throws {
        let text = try Self.read("README.md")
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0)
        #expect(
            lines.count <= 300, "README.md has \(lines.count) lines; the benchmark narrative belongs in Performance.md")
        let opening = lines.prefix(6).joined(separator: "\n")
        #expect(opening.contains("swift run lifeline chat"))
        #expect(opening.contains("swift test"))
    }

    @Test("its screen is the snapshot the chat's tests draw, character for character")
    func screenIsTheSnapshot() throws {
        let readme = try Self.read("README.md")
        let start = try #require(readme.range(of: "```text\n"))
        let end = try #require(readme.range(of: "\n```", range: start.upperBound..<readme.endIndex))
        let screen = String(readme[start.upperBound..<end.lowerBound])
        let path = "Tests/LifelineChatTests/Snapshots/state-DISCONNECTED-80x24.txt"
        #expect(readme.contains(path), "the README names the snapshot it shows")
        let snapshot = try Self.read(path)
        #expect(screen == snapshot.trimmingCharacters(in: .newlines))
    }
}
