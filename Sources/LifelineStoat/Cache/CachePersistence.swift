/// Where the account cache keeps its data between runs: the account's encrypted store, through an
/// adapter (``StoatClient`` uses LifelineStore's `AccountDatabase`).
///
/// The cache writes in batches off the socket's path and reads only to show the first screen before any
/// network and to fill a history or member list it has not loaded yet.
package protocol CachePersistence: Sendable {
    /// Applies a batch in one transaction: all of it or none.
    func write(_ batch: CacheWriteBatch) async throws

    /// The most recently active chats with their last message, newest first.
    func recentChats(limit: Int) async throws -> [Chat]

    /// The chats less recently active than `chat`, newest first.
    func chats(olderThan chat: Chat) async throws -> [Chat]

    /// A channel's newest messages, oldest first.
    func messages(in channel: String, limit: Int) async throws -> [Message]

    /// A server's members.
    func members(in server: String) async throws -> [Member]

    /// The users among `ids` that are stored.
    func users(_ ids: [String]) async throws -> [User]

    /// The stored states (read marker, mentions, gaps, catch-up cursor) of the chats among `ids`, or of every
    /// chat when `ids` is nil.
    func chatStates(_ ids: [String]?) async throws -> [AccountCache.ChatState]
}

/// One batch of the cache's changes for the store.
package struct CacheWriteBatch: Sendable, Equatable {
    package var chats: [Chat] = []
    package var deletedChats: [String] = []
    package var servers: [Server] = []
    package var deletedServers: [String] = []
    package var users: [User] = []
    package var messages: [Message] = []
    package var deletedMessages: [MessageKey] = []
    package var members: [Member] = []
    package var deletedMembers: [Member.ID] = []
    package var chatStates: [AccountCache.ChatState] = []
    package var deletedChatStates: [String] = []

    /// A message's place: its channel and id.
    package struct MessageKey: Sendable, Hashable {
        package var channel: String
        package var id: String
    }

    var isEmpty: Bool { self == CacheWriteBatch() }

    /// How many rows the batch writes or deletes.
    package var rowCount: Int {
        chats.count + deletedChats.count + servers.count + deletedServers.count + users.count + messages.count
            + deletedMessages.count + members.count + deletedMembers.count + chatStates.count
            + deletedChatStates.count
    }
}

extension AccountCache {
    /// The batch that writes `pending`, with the values the cache holds now. A key whose value is gone
    /// (deleted after it was marked) is skipped: its deletion is in the batch.
    func batch(for pending: PendingWrites) -> CacheWriteBatch {
        var batch = CacheWriteBatch()
        batch.chats = pending.chats.compactMap { chats[$0] }
        batch.deletedChats = pending.deletedChats.sorted()
        batch.servers = pending.servers.compactMap { servers[$0] }
        batch.deletedServers = pending.deletedServers.sorted()
        batch.users = pending.allUsers ? Array(users.values) : pending.users.compactMap { users[$0] }
        for (channel, ids) in pending.messages {
            let messages = histories[channel]?.messages ?? []
            batch.messages += messages.filter { ids.contains($0.id) }
        }
        for (channel, ids) in pending.deletedMessages {
            batch.deletedMessages += ids.sorted().map { CacheWriteBatch.MessageKey(channel: channel, id: $0) }
        }
        for (server, ids) in pending.members {
            batch.members += ids.sorted().compactMap { members[server]?[$0] }
        }
        for (server, ids) in pending.deletedMembers {
            batch.deletedMembers += ids.sorted().map { Member.ID(server: server, user: $0) }
        }
        for id in pending.chatStates.sorted() where !pending.deletedChats.contains(id) {
            if let state = chatState(id) {
                batch.chatStates.append(state)
            } else {
                batch.deletedChatStates.append(id)
            }
        }
        return batch
    }
}

extension AccountCache.PendingWrites {
    /// Puts back writes that failed, under any made since (which are newer and win).
    mutating func restore(_ older: Self) {
        chats.formUnion(older.chats.subtracting(deletedChats))
        deletedChats.formUnion(older.deletedChats.subtracting(chats))
        servers.formUnion(older.servers.subtracting(deletedServers))
        deletedServers.formUnion(older.deletedServers.subtracting(servers))
        users.formUnion(older.users)
        allUsers = allUsers || older.allUsers
        for (channel, ids) in older.messages {
            messages[channel, default: []].formUnion(ids.subtracting(deletedMessages[channel] ?? []))
        }
        for (channel, ids) in older.deletedMessages {
            deletedMessages[channel, default: []].formUnion(ids.subtracting(messages[channel] ?? []))
        }
        for (server, ids) in older.members {
            members[server, default: []].formUnion(ids.subtracting(deletedMembers[server] ?? []))
        }
        for (server, ids) in older.deletedMembers {
            deletedMembers[server, default: []].formUnion(ids.subtracting(members[server] ?? []))
        }
        chatStates.formUnion(older.chatStates)
    }
}
