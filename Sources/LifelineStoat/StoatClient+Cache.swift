import Lifeline
import LifelineCore

extension StoatClient {
    // MARK: - Chats

    /// The account's chats, most recently active first, as the cache holds them now: from the store at
    /// sign-in, then from `Ready` and the socket's events.
    public var chats: [Chat] { cache.read { $0.sortedChats } }

    /// The chat list after every change, starting with the current one, for any number of observers; a
    /// slow observer skips to the newest list (``CacheObservation``).
    public var chatUpdates: CacheObservation<[Chat]> {
        let cache = cache
        return CacheObservation(signals: cache.signals, key: .chats) { cache.read { $0.sortedChats } }
    }

    /// The signed-in user: the session's user (from the login or the cached session), or the user `Ready`
    /// marks as the viewer — never a position in `Ready`'s users, which Stoat's two events servers order
    /// differently.
    public var currentUser: User? {
        cache.read { cache in cache.userID.flatMap { cache.users[$0] } }
    }

    /// A user the cache knows (from `Ready`, a history page, a member list or the store).
    public func user(_ id: String) -> User? {
        cache.read { $0.users[id] }
    }

    /// A server the cache knows (from `Ready`, the socket's events or the store): its name for a chat list's
    /// headings, its channels, its roles.
    public func server(_ id: String) -> Server? {
        cache.read { $0.servers[id] }
    }

    /// The newest message the user acknowledged in a channel, here or on another device (`ChannelAck`, `GET
    /// /sync/unreads`, ``ack(channel:message:)``), if any: an app draws its "new messages" divider after it. Kept
    /// with the account, so it is known before any network.
    public func lastRead(in channel: String) -> String? {
        cache.read { $0.readStates[channel]?.lastRead }
    }

    // MARK: - Histories

    /// A channel's latest messages as the cache holds them now, without asking anyone.
    public func cachedHistory(of channel: String) -> ChannelHistory {
        cache.read { $0.history(channel) }
    }

    /// A channel's history after every change, starting with the current one; a slow observer skips to
    /// the newest history.
    public func historyUpdates(of channel: String) -> CacheObservation<ChannelHistory> {
        let cache = cache
        return CacheObservation(signals: cache.signals, key: .history(channel)) {
            cache.read { $0.history(channel) }
        }
    }

    // MARK: - Members

    /// A server's members as the cache holds them now.
    public func cachedMembers(of server: String) -> MemberList {
        cache.read { $0.memberList(server) }
    }

    /// A server's members after every change, starting with the current list.
    public func memberUpdates(of server: String) -> CacheObservation<MemberList> {
        let cache = cache
        return CacheObservation(signals: cache.signals, key: .members(server)) {
            cache.read { $0.memberList(server) }
        }
    }

    // MARK: - Events

    /// Every event of the socket — `Ready`, messages, typing, updates — for any number of observers, each
    /// receiving every event after it started iterating (see ``StoatEvents`` for the buffer limit).
    ///
    /// The cache has applied an event before any observer receives it, so an observer that reads the
    /// cache on an event sees the event's effect.
    public var events: StoatEvents { StoatEvents(hub: cache.events) }

    /// How many events named something the cache does not know, and how the store's writes went.
    public var cacheStatistics: CacheStatistics {
        let counters = cache.statistics
        return CacheStatistics(
            ignoredEvents: counters.ignoredEvents, failedWrites: counters.failedWrites,
            batchesWritten: counters.batchesWritten, rowsWritten: counters.rowsWritten)
    }
}

/// What the account cache tolerated and wrote, for logs, tests and benchmarks.
public struct CacheStatistics: Sendable, Hashable {
    /// Events about something the cache does not know (a message for an unknown channel…), ignored.
    public var ignoredEvents: Int
    /// Batches the store refused (disk full, I/O error); their changes were put back and written with a
    /// later batch.
    public var failedWrites: Int
    /// Batches written to the store.
    public var batchesWritten: Int
    /// Rows written or deleted in the store.
    public var rowsWritten: Int
}

extension StoatClient {
    /// Applies an event as if the socket had delivered it (`package`: benchmarks and load tools fill the
    /// cache, and through it the store, by the client's own path).
    package func receive(_ event: BonfireEvent) {
        cache.receive(event)
    }

    /// Writes every change the cache holds to the attached store now (`package`, as ``receive(_:)``).
    package func flushCache() async {
        await cache.flush()
    }
}
