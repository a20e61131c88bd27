import Foundation
import LifelineCore
import LifelineStoat
import LifelineStore
import StoatReferenceServer

/// `first-screen`: with 10 000 chats and 100 000 messages stored through the cache's batch write, the 10 most
/// recent chats with their last messages after unlock, against loading every chat with its last message (goal:
/// ratio ≤ 0.1). Both are measured after the same unlock, whose time (the KDF) is reported apart: it is the same
/// for both and would hide the difference.
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

        guard
            case .created(let database, _) = await store.signIn(
                email: account.email, password: account.password, verifier: verifier)
        else { throw BenchmarkError("the store could not be created") }
        let chats = 10_000
        let messages = quick ? 20_000 : 100_000
        let now = Date()
        // Filled as a client fills it: chats from the server's list, then messages in batches.
        for batch in stride(from: 0, to: chats, by: 1_000) {
            try await database.apply((batch..<batch + 1_000).map { .upsertChat(chat($0, now: now)) })
        }
        for batch in stride(from: 0, to: messages, by: 1_000) {
            try await database.apply(
                (batch..<batch + 1_000).map { .upsertMessage(message($0, chats: chats, now: now)) })
        }
        try database.close()

        let rounds = quick ? 3 : 9
        var recent: [Duration] = []
        var all: [Duration] = []
        var unlock: [Duration] = []
        let clock = ContinuousClock()
        for round in 0..<rounds {
            let start = clock.now
            guard
                case .opened(let opened, _) = await store.signIn(
                    email: account.email, password: account.password, verifier: verifier)
            else { throw BenchmarkError("the store did not open") }
            let unlocked = clock.now
            unlock.append(start.duration(to: unlocked))
            // Interleave which goes first, so neither always meets a cold cache.
            let firstScreen: @Sendable () async throws -> Bool = {
                let shown = try await opened.recentChats(limit: 10)
                return shown.count == 10 && shown.allSatisfy { $0.lastMessage != nil }
            }
            let everything: @Sendable () async throws -> Bool = {
                let shown = try await opened.allChats()
                return shown.count == chats && shown.filter { $0.lastMessage != nil }.count == min(chats, messages)
            }
            if round % 2 == 0 {
                recent.append(try await measure(clock, firstScreen))
                all.append(try await measure(clock, everything))
            } else {
                all.append(try await measure(clock, everything))
                recent.append(try await measure(clock, firstScreen))
            }
            try opened.close()
        }
        return BenchmarkResult(
            name: "first-screen", unit: "ms", lifeline: median(recent).milliseconds, baseline: median(all).milliseconds,
            goal: .ratioAtMost(0.1),
            detail:
                "\(chats) chats, \(messages) messages, last messages included; unlock (KDF) \(String(format: "%.0f", median(unlock).milliseconds)) ms apart"
        )
    }

    private static func chat(_ index: Int, now: Date) -> CachedChat {
        let isDirect = index % 5 == 0
        return CachedChat(
            id: "chat-\(index)", kind: isDirect ? .directMessage : .channel, name: "Chat number \(index)",
            parentID: isDirect ? nil : "space-\(index % 40)", lastActivity: now.addingTimeInterval(-Double(index) * 37),
            lastMessageID: "m\(index)")
    }

    private static func message(_ index: Int, chats: Int, now: Date) -> CachedMessage {
        CachedMessage(
            id: "m\(index)", chatID: "chat-\(index % chats)", authorID: "u\(index % 50)",
            body: "Message \(index) with some text in it", sentAt: now.addingTimeInterval(-Double(index)))
    }

    private static func measure(_ clock: ContinuousClock, _ body: () async throws -> Bool) async throws -> Duration {
        let start = clock.now
        guard try await body() else { throw BenchmarkError("the store returned the wrong chats") }
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
