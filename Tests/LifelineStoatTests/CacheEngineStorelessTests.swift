import Logging
import Synchronization
import Testing

@testable import LifelineStoat

/// A store that keeps the batches it is given, for what the engine hands it; the real store's adapter has its
/// own tests (`AccountDatabaseCacheTests`).
private final class RecordingPersistence: CachePersistence {
    let batches = Mutex<[CacheWriteBatch]>([])

    func write(_ batch: CacheWriteBatch) async throws { batches.withLock { $0.append(batch) } }
    func recentChats(limit: Int) async throws -> [Chat] { [] }
    func chats(olderThan chat: Chat) async throws -> [Chat] { [] }
    func messages(in channel: String, limit: Int) async throws -> [Message] { [] }
    func members(in server: String) async throws -> [Member] { [] }
    func users(_ ids: [String]) async throws -> [User] { [] }
    func chatStates(_ ids: [String]?) async throws -> [AccountCache.ChatState] { [] }

    /// Everything written, as one batch.
    var written: CacheWriteBatch {
        batches.withLock { batches in
            batches.reduce(into: CacheWriteBatch()) { all, batch in
                all.chats += batch.chats
                all.users += batch.users
                all.messages += batch.messages
                all.deletedMessages += batch.deletedMessages
                all.members += batch.members
            }
        }
    }
}

@Suite("A cache without a store")
struct CacheEngineStorelessTests {
    let world = World()

    func engine() -> CacheEngine {
        CacheEngine(historyLimit: 2, eventBufferLimit: 1_000, logger: Logger(label: "test"))
    }

    @Test("a client that keeps no store keeps nothing for one, however many messages pass through")
    func keepsNothingPending() {
        let cache = engine()
        cache.receive(.ready(world.ready))
        for time in 0..<500 { cache.receive(.message(world.message(10_000 + Int64(time), in: world.general, "m"))) }
        #expect(cache.read { $0.histories[world.general]?.messages.count } == 2)
        // Before: every message that left the two-message history stayed in the pending deletions for ever.
        #expect(cache.read { $0.pending.isEmpty })
    }

    @Test("a store attached later receives everything the cache holds")
    func attachedLaterGetsEverything() async {
        let cache = engine()
        cache.receive(.ready(world.ready))
        for time in 0..<5 { cache.receive(.message(world.message(10_000 + Int64(time), in: world.general, "m"))) }
        let store = RecordingPersistence()
        cache.attach(store)
        await cache.flush()
        let written = store.written
        #expect(
            Set(written.messages.map(\.id)) == Set(cache.read { $0.histories[world.general]?.messages.map(\.id) ?? [] })
        )
        #expect(Set(written.users.map(\.id)) == [world.me.id, world.friend.id])
        #expect(Set(written.chats.map(\.id)) == Set(cache.read { $0.chats.keys }))
        #expect(!written.chats.isEmpty)
        #expect(written.members.map(\.id.user) == [world.me.id])
        #expect(written.deletedMessages.isEmpty)
        // From now on, changes are recorded again: the next message is written, and the one it pushed out deleted.
        cache.receive(.message(world.message(20_000, in: world.general, "after")))
        await cache.flush()
        #expect(store.written.messages.contains { $0.content == "after" })
        #expect(store.written.deletedMessages.count == 1)
    }

    @Test("after DISPOSE the cache keeps nothing for a store until one is attached again")
    func discardForgetsTheStore() async {
        let cache = engine()
        let store = RecordingPersistence()
        cache.attach(store)
        cache.receive(.ready(world.ready))
        await cache.discardCaches()
        cache.receive(.ready(world.ready))
        for time in 0..<10 { cache.receive(.message(world.message(10_000 + Int64(time), in: world.general, "m"))) }
        #expect(cache.read { $0.pending.isEmpty })
    }
}
