import Foundation
import LifelineCore
import Testing

@Suite("lifeline spec")
struct SpecCommandTests {
    @Test("--mermaid prints a flowchart with every spec edge solid and every extension dashed")
    func mermaid() async throws {
        let run = try await Executable.run(["spec", "--mermaid"])
        #expect(run.status == 0)
        #expect(run.lines.first == "flowchart TD")
        let lines = Set(run.lines)
        for edge in SessionTransitionTable.edges {
            let arrow = edge.origin == .spec ? "-->" : "-.->"
            #expect(
                lines.contains("\(edge.from.rawValue) \(arrow)|\(edge.event.rawValue)| \(edge.to.rawValue)"), "\(edge)")
        }
        #expect(run.lines.count == SessionTransitionTable.edges.count + 1)
    }

    @Test("--json prints one object per edge with the spec's names")
    func json() async throws {
        let run = try await Executable.run(["spec", "--json"])
        #expect(run.status == 0)
        let objects = try run.lines.map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String])
        }
        let edges = objects.map { "\($0["from"]!) -->|\($0["event"]!)| \($0["to"]!) \($0["origin"]!)" }
        #expect(edges == SessionTransitionTable.edges.map { "\($0) \($0.origin.rawValue)" })
    }

    @Test("the plain table lists every edge and counts them")
    func table() async throws {
        let run = try await Executable.run(["spec"])
        #expect(run.status == 0)
        #expect(run.standardOutput.contains("28 edges: 25 from the specification, 3 extensions."))
        #expect(
            run.lines.contains { $0.hasPrefix("OFFLINE") && $0.contains("RECONNECT_NOW") && $0.hasSuffix("extension") })
    }

    @Test("--mermaid with --json is refused with a usage error")
    func conflictingFlags() async throws {
        let run = try await Executable.run(["spec", "--mermaid", "--json"])
        #expect(run.status != 0)
        #expect(run.standardError.contains("cannot be combined"))
    }
}
