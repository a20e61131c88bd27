import Foundation
import LifelineCore
import Testing

@Suite("lifeline demo", .hangBound)
struct DemoCommandTests {
    @Test("the demo passes, visits every state of the specification and reports every edge")
    func demo() async throws {
        let run = try await Executable.run(["demo", "--json"])
        #expect(run.status == 0, "\(run.standardOutput.suffix(2000))")
        let objects = try run.lines.map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let transitions = objects.filter { $0["type"] as? String == "transition" }
        let visited = Set(transitions.compactMap { $0["to"] as? String })
        #expect(visited == Set(SessionState.allCases.map(\.rawValue)))
        let edges = objects.filter { $0["type"] as? String == "edge" }
        #expect(edges.count == SessionTransitionTable.edges.count)
        for edge in edges where edge["taken"] as? Bool == true {
            #expect(
                transitions.contains {
                    $0["from"] as? String == edge["from"] as? String
                        && $0["event"] as? String == edge["event"] as? String
                })
        }
        let summary = try #require(objects.last)
        #expect(summary["type"] as? String == "demo")
        #expect(summary["passed"] as? Bool == true)
        let reasons = objects.filter { $0["type"] as? String == "error" }.compactMap { $0["reason"] as? String }
        #expect(reasons.contains("suspended"))
        #expect(
            objects.contains { $0["type"] as? String == "notice" && $0["text"] as? String == "You were logged out." })
    }
}
