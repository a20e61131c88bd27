import Foundation
import LifelineCore
import LifelineStore

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// `cache-ingest`: messages per second sealed and stored through the account cache's batch write
/// (`AccountDatabase.apply`: a keyed tag per row, AES-GCM per payload, upsert, trim each chat to its newest
/// 100), against plain unsealed GRDB inserts of the same rows in the same batches (goal: ratio ≥ 0.5).
///
/// 500 chats receive 200 messages each, in send order and in batches of 500, so the second half of the run
/// trims every batch's chats as a full cache does. Rounds alternate between the two, each on a new file. The
/// figures are wall-clock rates, where this machine's `fsync`s weigh; the note adds the process's CPU time per
/// message, the cost where storage is fast (a phone's flash, or `TMPDIR=/dev/shm`).
enum CacheIngestBenchmark {
    static let chats = 500
    static let batchSize = 500

    @Sendable
    static func run(quick: Bool) async throws -> BenchmarkResult {
        let messages = makeMessages(count: quick ? 40_000 : 100_000)
        let batches = stride(from: 0, to: messages.count, by: batchSize).map {
            Array(messages[$0..<min($0 + batchSize, messages.count)])
        }
        let rounds = quick ? 3 : 5
        var lifeline: [Measurement] = []
        var baseline: [Measurement] = []
        for _ in 0..<rounds {
            lifeline.append(try await measureStore(batches, total: messages.count))
            baseline.append(try measureBaseline(batches, total: messages.count))
        }
        let (store, plain) = (Measurement.median(lifeline), Measurement.median(baseline))
        let cpu = String(format: "CPU %.1f vs %.1f µs/message", store.cpuMicroseconds, plain.cpuMicroseconds)
        return BenchmarkResult(
            name: "cache-ingest", unit: "messages/s", lifeline: store.rate, baseline: plain.rate,
            goal: .ratioAtLeast(0.5),
            detail:
                "\(messages.count) messages, \(chats) chats, batches of \(batchSize), 100 kept per chat; \(cpu); median of \(rounds)"
        )
    }

    static func makeMessages(count: Int) -> [CachedMessage] {
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        return (0..<count).map { index in
            CachedMessage(
                id: String(format: "01J%023d", index), chatID: "channel-\(index % chats)",
                authorID: "user-\(index % 97)",
                body: "Message \(index): a line of chat of an ordinary length, with a few words in it.",
                sentAt: start.addingTimeInterval(Double(index) * 0.25))
        }
    }

    /// A round's rate (messages per second, wall clock) and the process's CPU time per message.
    struct Measurement {
        var rate: Double
        var cpuMicroseconds: Double

        static func median(_ rounds: [Measurement]) -> Measurement {
            Measurement(
                rate: rounds.map(\.rate).sorted()[rounds.count / 2],
                cpuMicroseconds: rounds.map(\.cpuMicroseconds).sorted()[rounds.count / 2])
        }

        init(messages: Int, elapsed: Duration, cpuSeconds: Double) {
            rate = Double(messages) / elapsed.secondsValue
            cpuMicroseconds = cpuSeconds / Double(messages) * 1e6
        }

        init(rate: Double, cpuMicroseconds: Double) {
            self.rate = rate
            self.cpuMicroseconds = cpuMicroseconds
        }
    }

    /// The process's CPU time (all threads), in seconds.
    static func processCPUTime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Messages through `AccountDatabase.apply`, sealed, on a new account database.
    private static func measureStore(_ batches: [[CachedMessage]], total: Int) async throws -> Measurement {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-bench-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = AccountStore(
            directory: directory, configuration: .init(keyDerivation: .unsafeUncheckedPBKDF2SHA512(rounds: 1_000)))
        guard
            let database = await store.signIn(email: "bench@example.com", password: "bench", verifier: AnyPassword())
                .database
        else { throw BenchmarkError("the store could not be created") }
        defer { try? database.close() }
        let clock = ContinuousClock()
        let start = clock.now
        let cpuStart = processCPUTime()
        for batch in batches {
            try await database.apply(batch.map { .upsertMessage($0) })
        }
        let measurement = Measurement(
            messages: total, elapsed: start.duration(to: clock.now), cpuSeconds: processCPUTime() - cpuStart)
        let kept = try await database.messages(inChat: "channel-0", limit: 1_000).count
        let sent = batches.joined().filter { $0.chatID == "channel-0" }.count
        guard kept == min(100, sent) else { throw BenchmarkError("the cache kept \(kept) of channel-0's messages") }
        return measurement
    }

    /// The same messages through plain GRDB inserts, on a new file.
    private static func measureBaseline(_ batches: [[CachedMessage]], total: Int) throws -> Measurement {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-bench-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let table = try UnsealedMessageTable(path: directory.appendingPathComponent("plain.sqlite").path)
        defer { try? table.close() }
        let clock = ContinuousClock()
        let start = clock.now
        let cpuStart = processCPUTime()
        for batch in batches {
            try table.insert(batch)
        }
        let measurement = Measurement(
            messages: total, elapsed: start.duration(to: clock.now), cpuSeconds: processCPUTime() - cpuStart)
        guard try table.count() == total else { throw BenchmarkError("the baseline lost messages") }
        return measurement
    }
}

/// A verifier that accepts any password: benchmarks measure the store, not a login.
struct AnyPassword: PasswordVerifier {
    var server: ServerIdentity { ServerIdentity("https://bench.invalid")! }

    func verifyPassword(email: String, password: String) async -> PasswordVerification {
        .verified(SessionCredentials(token: "bench-token", userID: "bench-user"))
    }

    func endSession(_ session: SessionCredentials) async {}
}
