package import ArgumentParser
import Foundation
import LifelineCLIOutput

/// `lifeline bench`: measures what Lifeline exists for, each figure against a baseline from the same run.
package struct Bench: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        abstract: "Run Lifeline's benchmarks and compare each with its baseline.",
        discussion: """
            Build in release mode for meaningful figures: swift run -c release lifeline bench. Each benchmark \
            runs Lifeline and its baseline on the same input in this process and reports the ratio; a goal \
            that is not met is reported as not met.
            """
    )

    @Flag(help: "Shorter runs, for a quick look (figures are noisier).")
    var quick = false

    @Flag(help: "Print one JSON object per benchmark.")
    var json = false

    @Option(name: .customLong("only"), help: "Run only the benchmarks with these names.")
    var only: [String] = []

    package init() {}

    package func validate() throws {
        let unknown = Set(only).subtracting(Benchmarks.all.map(\.name))
        if !unknown.isEmpty {
            throw ValidationError(
                "Unknown benchmark \(unknown.sorted().joined(separator: ", ")); known: "
                    + Benchmarks.all.map(\.name).joined(separator: ", "))
        }
    }

    package func run() async throws {
        #if DEBUG
            if !json {
                print("note: this is a debug build; run `swift run -c release lifeline bench` for meaningful figures.")
            }
        #endif
        var results: [BenchmarkResult] = []
        for benchmark in Benchmarks.all where only.isEmpty || only.contains(benchmark.name) {
            let result = try await benchmark.run(quick)
            results.append(result)
            if json { emit(result.jsonLine) }
        }
        if !json { emit(BenchmarkResult.table(results)) }
    }
}

/// One benchmark: a name and a function that measures Lifeline and its baseline.
struct Benchmark: Sendable {
    var name: String
    var run: @Sendable (_ quick: Bool) async throws -> BenchmarkResult
}

/// A benchmark's figures: Lifeline's, the baseline's from the same run, their ratio, and the goal.
struct BenchmarkResult: Sendable {
    /// How the goal compares the figure.
    enum Goal: Sendable {
        /// `ratio` at most this.
        case ratioAtMost(Double)
        /// `ratio` at least this.
        case ratioAtLeast(Double)
        /// Lifeline's figure at least this (no baseline).
        case atLeast(Double)

        var text: String {
            switch self {
            case .ratioAtMost(let r): "ratio ≤ \(r.formatted())"
            case .ratioAtLeast(let r): "ratio ≥ \(r.formatted())"
            case .atLeast(let v): "≥ \(v.formatted())"
            }
        }
    }

    var name: String
    var unit: String
    var lifeline: Double
    var baseline: Double?
    var goal: Goal
    /// Whether the figures are rates (higher is better) and `ratio` compares times instead: Lifeline's time
    /// over the baseline's, which is the baseline's rate over Lifeline's.
    var ratioOfTimes = false
    var detail: String = ""
    /// A benchmark's own figures, added to its `--json` line.
    var extra: [String: JSONLine.Value] = [:]
    /// Whatever else the benchmark requires besides the goal (the storm: every session back in time, one socket
    /// per session).
    var alsoMet = true

    var ratio: Double? { baseline.map { ratioOfTimes ? $0 / lifeline : lifeline / $0 } }

    var met: Bool {
        guard alsoMet else { return false }
        switch goal {
        case .ratioAtMost(let r): return (ratio ?? .infinity) <= r
        case .ratioAtLeast(let r): return (ratio ?? 0) >= r
        case .atLeast(let v): return lifeline >= v
        }
    }

    var jsonLine: String {
        JSONLine.encode(
            extra.merging([
                "name": .string(name), "unit": .string(unit), "lifeline": .number(lifeline),
                "baseline": baseline.map { .number($0) } ?? .null, "ratio": ratio.map { .number($0) } ?? .null,
                "goal": .string(goal.text), "met": .bool(met),
            ]) { $1 })
    }

    static func table(_ results: [BenchmarkResult]) -> String {
        func figure(_ value: Double?) -> String {
            guard let value else { return "—" }
            return value >= 1000
                ? value.formatted(.number.precision(.significantDigits(4)).notation(.compactName))
                : value.formatted(.number.precision(.significantDigits(3)))
        }
        let rows = results.map {
            [
                $0.name, $0.unit, figure($0.lifeline), figure($0.baseline), figure($0.ratio), $0.goal.text,
                $0.met ? "met" : "NOT MET", $0.detail,
            ]
        }
        return TextTable.render(
            header: ["BENCHMARK", "UNIT", "LIFELINE", "BASELINE", "RATIO", "GOAL", "", "NOTE"], rows: rows)
    }
}

/// Every benchmark `lifeline bench` knows, in the order it runs them.
enum Benchmarks {
    static let all: [Benchmark] = [
        Benchmark(name: "time-to-connected", run: TimeToConnectedBenchmark.run),
        Benchmark(name: "time-to-connected-msgpack", run: TimeToConnectedBenchmark.runMessagePack),
        Benchmark(name: "ready-decode", run: ReadyDecodeBenchmark.run),
        Benchmark(name: "ready-decode-msgpack", run: ReadyDecodeBenchmark.runMessagePack),
        Benchmark(name: "reconnect-replay", run: ReconnectReplayBenchmark.run),
        Benchmark(name: "idle-sessions", run: IdleSessionsBenchmark.run),
        Benchmark(name: "machine", run: MachineBenchmark.run),
        Benchmark(name: "first-screen", run: FirstScreenBenchmark.run),
        Benchmark(name: "cache-ingest", run: CacheIngestBenchmark.run),
        Benchmark(name: "expiry", run: ExpiryBenchmark.runAdds),
        Benchmark(name: "expiry-refresh", run: ExpiryBenchmark.runRefreshes),
        Benchmark(name: "expiry-reschedule", run: ExpiryBenchmark.runReschedules),
        Benchmark(name: "storm", run: StormBenchmark.run),
        Benchmark(name: "catch-up", run: CatchUpBenchmark.run),
        Benchmark(name: "chat-frame", run: ChatFrameBenchmark.runTime),
        Benchmark(name: "chat-frame-bytes", run: ChatFrameBenchmark.runBytes),
        Benchmark(name: "attachment-upload", run: AttachmentUploadBenchmark.run),
        Benchmark(name: "wake", run: WakeBenchmark.run),
    ]
}
