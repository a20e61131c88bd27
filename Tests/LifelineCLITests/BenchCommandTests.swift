import Foundation
import Testing

@Suite("lifeline bench")
struct BenchCommandTests {
    @Test("--json prints the machine benchmark in the documented shape, with a figure that is not made up")
    func machineJSON() async throws {
        let run = try await Executable.run(["bench", "--quick", "--json", "--only", "machine"])
        #expect(run.status == 0)
        let line = try #require(run.lines.last)
        let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["name", "unit", "lifeline", "baseline", "ratio", "goal", "met"])
        #expect(object["name"] as? String == "machine")
        #expect((object["lifeline"] as? Double ?? 0) > 0)
        #expect(object["baseline"] is NSNull)
        #expect(object["met"] as? Bool == ((object["lifeline"] as? Double ?? 0) >= 10_000_000))
    }

    @Test("--only expiry measures the watcher and the one-task-per-operation baseline in the same run")
    func expiryJSON() async throws {
        let run = try await Executable.run([
            "bench", "--quick", "--json", "--only", "expiry", "--only", "expiry-reschedule",
        ])
        #expect(run.status == 0)
        let objects = try run.lines.map { line in
            try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(objects.map { $0["name"] as? String } == ["expiry", "expiry-reschedule"])
        for object in objects {
            #expect((object["lifeline"] as? Double ?? 0) > 0)
            #expect((object["baseline"] as? Double ?? 0) > 0)
        }
        #expect(objects.first?["goal"] as? String == "ratio ≥ 10")
    }

    @Test("an unknown benchmark name is refused and the known ones are listed")
    func unknown() async throws {
        let run = try await Executable.run(["bench", "--only", "nope"])
        #expect(run.status != 0)
        #expect(run.standardError.contains("machine"))
    }
}
