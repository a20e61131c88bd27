import Foundation
import Testing

@Suite("lifeline soak")
struct SoakCommandTests {
    @Test(
        "100 sessions through 20 s of seeded faults: every line JSON, nothing lost, every session back, exit status 0",
        .hangBound)
    func shortRun() async throws {
        let run = try await Executable.run([
            "soak", "--sessions", "100", "--seconds", "20", "--seed", "20260518", "--json",
        ])
        let objects = try run.lines.map { line in
            try #require(
                JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON line: \(line)")
        }
        let violations = objects.filter { $0["type"] as? String == "violation" }
        #expect(violations.isEmpty, "\(violations.prefix(20))")
        #expect(objects.dropLast().allSatisfy { ["progress", "violation"].contains($0["type"] as? String) })
        let summary = try #require(objects.last, "\(run.standardError)")
        #expect(summary["type"] as? String == "soak")
        #expect(summary["sessions"] as? Int == 100)
        #expect(summary["seconds"] as? Double == 20)
        #expect(summary["seed"] as? String == "20260518")
        // The schedule of that seed: about one fault every 0.4 s.
        #expect((20...80).contains(summary["faults"] as? Int ?? 0))
        #expect(summary["violations"] as? Int == 0)
        #expect(summary["lost_messages"] as? Int == 0)
        #expect(summary["duplicate_messages"] as? Int == 0)
        #expect(summary["reconnected"] as? Int == 100)
        #expect((summary["messages"] as? Int ?? 0) > 0)
        // Sends through the outboxes, through lost answers and deafened sockets: each sent once, or failed.
        #expect((summary["outbox_sent"] as? Int ?? 0) > 20)
        #expect(summary["outbox_lost"] as? Int == 0)
        #expect(summary["outbox_duplicated"] as? Int == 0)
        #expect((summary["lost_answers"] as? Int ?? 0) > 0, "the seed's plan loses answers")
        #expect((summary["delivery_stalls"] as? Int ?? 0) > 0, "the seed's plan deafens sockets, and they are noticed")
        #expect(
            (summary["session_restarts"] as? Int ?? 0) > 0,
            "the seed's plan restarts gateway sessions, and a second Ready reconnects them")
        #expect((summary["transitions"] as? Int ?? 0) > 200)
        let memory = try #require(summary["memory_growth"] as? Double)
        let tasks = try #require(summary["task_growth"] as? Double)
        #expect(memory <= 0.10)
        #expect(tasks <= 0.10)
        #if os(Linux)
            // The live heap beside the resident memory: reported, not judged.
            #expect(summary["heap_growth"] is Double)
            #expect((summary["heap_mb"] as? Double ?? 0) > 1)
            #expect(objects.contains { ($0["detail"] as? String)?.contains("live heap") == true })
        #endif
        #expect(run.status == 0, "\(run.standardError.suffix(2000))")
    }

    @Test("Arguments out of range are refused before anything runs")
    func validation() async throws {
        let run = try await Executable.run(["soak", "--sessions", "0"])
        #expect(run.status != 0)
        #expect(run.standardError.contains("--sessions"))
    }
}
