import Foundation
import LifelineCore
import LifelineStoat
import LifelineStore
import StoatReferenceServer

/// `first-screen`: with 10 000 chats stored, the 10 most recent chats after unlock, against loading
/// every chat (goal: ratio ≤ 0.1). Both are measured after the same unlock, whose time (the KDF) is
/// reported apart: it is the same for both and would hide the difference.
enum FirstScreenBenchmark {
    @Sendable
    static func run(quick: Bool) async throws -> BenchmarkResult {
        let server = try await ReferenceServer.start()
        defer { Task { await server.stop() } }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-bench-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = AccountStore(directory: directory)
        let verifier = StoatPasswordVerifier(api: StoatAPI(baseURL: server.apiURL), friendlyName: "bench")
        let account = server.defaultAccount

        guard case .created(let database, _) = await store.signIn(
            email: account.email, password: account.password, verifier: verifier)
        else { throw BenchmarkError("the store could not be created") }
        let chats = 10_000
        let now = Date()
        try await database.saveChats((0..<chats).map {
            CachedChat(id: "chat-\($0)", name: "Chat number \($0)", lastActivity: now.addingTimeInterval(-Double($0) * 37))
        })
        let messages = quick ? 0 : 100_000
        for batch in stride(from: 0, to: messages, by: 10_000) {
            try await database.saveMessages((batch..<batch + 10_000).map {
                CachedMessage(id: "m\($0)", chatID: "chat-\($0 % chats)", authorID: "u\($0 % 50)",
                              body: "Message \($0) with some text in it", sentAt: now.addingTimeInterval(-Double($0)))
            })
        }
        try database.close()

        let rounds = quick ? 3 : 9
        var recent: [Duration] = []
        var all: [Duration] = []
        var unlock: [Duration] = []
        let clock = ContinuousClock()
        for round in 0..<rounds {
            let start = clock.now
            guard case .opened(let opened, _) = await store.signIn(email: account.email, password: account.password, verifier: verifier)
            else { throw BenchmarkError("the store did not open") }
            let unlocked = clock.now
            unlock.append(start.duration(to: unlocked))
            // Interleave which goes first, so neither always meets a cold cache.
            if round % 2 == 0 {
                recent.append(try await measure(clock) { try await opened.recentChats(limit: 10).count == 10 })
                all.append(try await measure(clock) { try await opened.allChats().count == chats })
            } else {
                all.append(try await measure(clock) { try await opened.allChats().count == chats })
                recent.append(try await measure(clock) { try await opened.recentChats(limit: 10).count == 10 })
            }
            try opened.close()
        }
        return BenchmarkResult(
            name: "first-screen", unit: "ms", lifeline: median(recent).milliseconds, baseline: median(all).milliseconds,
            goal: .ratioAtMost(0.1),
            detail: "\(chats) chats, \(messages) messages; unlock (KDF) \(String(format: "%.0f", median(unlock).milliseconds)) ms apart")
    }

    private static func measure(_ clock: ContinuousClock, _ body: () async throws -> Bool) async throws -> Duration {
        let start = clock.now
        guard try await body() else { throw BenchmarkError("the store returned the wrong number of chats") }
        return start.duration(to: clock.now)
    }
}

/// A benchmark could not run as written.
struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The median of some durations.
func median(_ values: [Duration]) -> Duration {
    let sorted = values.sorted()
    return sorted.isEmpty ? .zero : sorted[sorted.count / 2]
}

extension Duration {
    /// The duration in milliseconds.
    var milliseconds: Double { secondsValue * 1000 }
}
