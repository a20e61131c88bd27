import Foundation
import LifelineStoat
import StoatReferenceServer

/// `ready-decode`: decoding a realistic ~5 MB `Ready` frame, Lifeline's ``BonfireDecoder`` against
/// `JSONDecoder().decode(Ready.self, from:)` on the same bytes (goal: at most half its time); and
/// `ready-decode-msgpack`, Lifeline decoding the same `Ready` as bonfire's MessagePack (`format=msgpack`)
/// against the same baseline, on the JSON bytes, so that the two lines compare the formats.
///
/// The frame is the one the reference server sends after seeding a dataset of that size, generated in this
/// process. Runs alternate between the decoders and each keeps its best, so that a burst of load on the
/// machine slows all rather than one.
enum ReadyDecodeBenchmark {
    @Sendable
    static func runMessagePack(quick: Bool) async throws -> BenchmarkResult {
        let (frame, packed) = try await readyFrames(approximateBytes: 5_000_000)
        let rounds = quick ? 3 : 9
        let expected = try JSONDecoder().decode(Ready.self, from: frame)
        guard BonfireDecoder().decode(messagePack: packed) == .event(.ready(expected)) else {
            throw BenchmarkFailure(message: "the MessagePack and JSON frames of the benchmark's Ready disagree")
        }
        var lifeline = Duration.seconds(Int64.max)
        var json = Duration.seconds(Int64.max)
        var baseline = Duration.seconds(Int64.max)
        for _ in 0..<rounds {
            lifeline = min(lifeline, try time { BonfireDecoder().decode(messagePack: packed) })
            json = min(json, try time { BonfireDecoder().decode(frame) })
            baseline = min(baseline, try time { try JSONDecoder().decode(Ready.self, from: frame) })
        }
        let megabytes = Double(frame.count) / 1_000_000
        return BenchmarkResult(
            name: "ready-decode-msgpack", unit: "MB/s", lifeline: megabytes / lifeline.secondsValue,
            baseline: megabytes / baseline.secondsValue, goal: .ratioAtMost(0.5), ratioOfTimes: true,
            detail: "best of \(rounds), \(packed.count.formatted()) B of MessagePack for \(frame.count.formatted()) B "
                + "of JSON (rates per JSON MB); Lifeline on the JSON: "
                + String(format: "%.1f", json.secondsValue * 1000) + " ms, on the MessagePack: "
                + String(format: "%.1f", lifeline.secondsValue * 1000) + " ms; ratio = its time / JSONDecoder's")
    }

    @Sendable
    static func run(quick: Bool) async throws -> BenchmarkResult {
        let frame = try await readyFrames(approximateBytes: 5_000_000).json
        let rounds = quick ? 3 : 9
        let expected = try JSONDecoder().decode(Ready.self, from: frame)
        guard BonfireDecoder().decode(frame) == .event(.ready(expected)) else {
            throw BenchmarkFailure(message: "Lifeline's decoder and JSONDecoder disagree on the benchmark's frame")
        }
        var lifeline = Duration.seconds(Int64.max)
        var baseline = Duration.seconds(Int64.max)
        for _ in 0..<rounds {
            lifeline = min(lifeline, try time { BonfireDecoder().decode(frame) })
            baseline = min(baseline, try time { try JSONDecoder().decode(Ready.self, from: frame) })
        }
        let megabytes = Double(frame.count) / 1_000_000
        return BenchmarkResult(
            name: "ready-decode", unit: "MB/s", lifeline: megabytes / lifeline.secondsValue,
            baseline: megabytes / baseline.secondsValue, goal: .ratioAtMost(0.5), ratioOfTimes: true,
            detail: "best of \(rounds), \(frame.count.formatted()) B, \(expected.users.count.formatted()) users; "
                + "ratio = Lifeline's time / JSONDecoder's")
    }

    /// The Ready frame of the reference server's default user after seeding about `approximateBytes` of data,
    /// as JSON and as MessagePack.
    static func readyFrames(approximateBytes: Int) async throws -> (json: Data, messagePack: Data) {
        let server = try await ReferenceServer.start()
        do {
            try await server.seedDataset(.approximateReadyBytes(approximateBytes))
            let frame = try await server.readyFrame(for: server.defaultAccount.userID)
            let packed = try await server.readyFrame(for: server.defaultAccount.userID, messagePack: true)
            await server.stop()
            return (frame, packed)
        } catch {
            await server.stop()
            throw error
        }
    }

    /// How long `body` takes once.
    private static func time<T>(_ body: () throws -> T) throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        let result = try body()
        let elapsed = start.duration(to: clock.now)
        withExtendedLifetime(result) {}
        return elapsed
    }
}

/// A benchmark whose own checks failed, so its figures would mean nothing.
struct BenchmarkFailure: Error, CustomStringConvertible {
    /// What went wrong.
    var message: String

    var description: String { message }
}
