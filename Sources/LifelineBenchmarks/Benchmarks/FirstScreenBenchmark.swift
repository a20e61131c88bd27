import Foundation
import Lifeline
import LifelineCore
import LifelineStoat
import LifelineStoatStore
import LifelineStore

/// `first-screen`: with 10 000 chats and 100 000 messages stored through the account cache's own write path
/// (a `StoatClient` given `Ready` and the messages as its socket would give them, its writer storing them in
/// batches), the 10 most recent chats with their last messages as the client reads them after unlock, against
/// loading every chat the same way (goal: ratio ≤ 0.1). Both are measured after the same unlock, whose time
/// (the KDF) is reported apart: it is the same for both and would hide the difference.
enum FirstScreenBenchmark {
    @Sendable
    static func run(quick: Bool) async throws -> BenchmarkResult {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lifeline-bench-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = AccountStore(directory: directory)
        let email = "bench@example.com"
        let password = "bench password"
        guard
            case .created(let database, _) = await store.signIn(
                email: email, password: password, verifier: AnyPassword())
        else { throw BenchmarkError("the store could not be created") }
        let chats = 10_000
        let messages = quick ? 20_000 : 100_000
        try await fill(database, chats: chats, messages: messages)
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
                    email: email, password: password, verifier: AnyPassword())
            else { throw BenchmarkError("the store did not open") }
            let unlocked = clock.now
            unlock.append(start.duration(to: unlocked))
            let cache = AccountDatabaseCache(database: opened, messagesPerChat: 100)
            // Interleave which goes first, so neither always meets a cold cache.
            let firstScreen: @Sendable () async throws -> Bool = {
                let shown = try await cache.recentChats(limit: 10)
                return shown.count == 10 && shown.allSatisfy { $0.lastMessage != nil }
            }
            let everything: @Sendable () async throws -> Bool = {
                let shown = try await cache.allChats()
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
                "\(chats) chats, \(messages) messages stored by the client's cache, last messages included; unlock (KDF) \(String(format: "%.0f", median(unlock).milliseconds)) ms apart"
        )
    }

    /// Fills the store as a client does: `Ready` with the chats, then the messages as events, the cache's
    /// writer storing them in batches.
    private static func fill(_ database: AccountDatabase, chats: Int, messages: Int) async throws {
        let client = StoatClient(apiURL: URL(string: "http://127.0.0.1:9")!, network: ManualNetworkMonitor(.online))
        await client.attach(database)
        let me = User(id: ulid(1, 0), username: "bench", discriminator: "0001")
        let start: Int64 = 1_700_000_000_000
        let channels = (0..<chats).map { index in
            index % 5 == 0
                ? Channel(
                    id: ulid(start, index), kind: .directMessage, recipients: [me.id, ulid(2, index)], active: true)
                : Channel(
                    id: ulid(start, index), kind: .textChannel, name: "Chat number \(index)",
                    server: ulid(3, index % 40))
        }
        client.receive(.ready(Ready(users: [me], channels: channels)))
        for index in 0..<messages {
            let message = Message(
                id: ulid(start + 1_000 + Int64(index), index), channel: channels[index % chats].id,
                author: ulid(4, index % 50), content: "Message \(index) with some text in it")
            client.receive(.message(message))
            // The writer wakes on changes; here it is driven by hand, a batch per thousand events.
            if index % 1_000 == 999 { await client.flushCache() }
        }
        await client.flushCache()
        guard client.cacheStatistics.failedWrites == 0 else { throw BenchmarkError("the cache could not be stored") }
    }

    /// A ULID at `milliseconds` with `suffix` as its random part.
    private static func ulid(_ milliseconds: Int64, _ suffix: Int) -> String {
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        var text = ""
        var time = milliseconds
        for _ in 0..<10 {
            text.insert(alphabet[Int(time & 31)], at: text.startIndex)
            time >>= 5
        }
        var random = ""
        var rest = suffix
        for _ in 0..<16 {
            random.insert(alphabet[rest & 31], at: random.startIndex)
            rest >>= 5
        }
        return text + random
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
