package import LifelineStoat
package import LifelineStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The account cache's store: LifelineStore's `AccountDatabase`, which knows nothing of Stoat.
///
/// Each record keeps the few fields the store orders and shows by (a chat's name and activity, a message's
/// author, text and time, a member's timeout) and the whole Stoat model as JSON in its sealed `details`,
/// so what comes back is what went in. A record whose details do not decode (written by another client, or
/// by a later version) still comes back from those fields.
package struct AccountDatabaseCache: CachePersistence {
    let database: AccountDatabase
    /// How many messages the store keeps per chat.
    let messagesPerChat: Int

    /// The cache's view of an account database (`package`: the benchmarks read the store as the client does).
    package init(database: AccountDatabase, messagesPerChat: Int) {
        self.database = database
        self.messagesPerChat = messagesPerChat
    }

    package func write(_ batch: CacheWriteBatch) async throws {
        let encoder = JSONEncoder()
        var changes: [CacheChange] = []
        changes.reserveCapacity(batch.rowCount)
        for id in batch.deletedChats { changes.append(.deleteChat(id: id)) }
        for id in batch.deletedServers { changes.append(.deleteSpace(id: id)) }
        for key in batch.deletedMessages { changes.append(.deleteMessage(id: key.id)) }
        for id in batch.deletedMembers { changes.append(.deleteMember(spaceID: id.server, userID: id.user)) }
        for server in batch.servers {
            changes.append(
                .upsertSpace(CachedSpace(id: server.id, name: server.name, details: try encoder.encode(server))))
        }
        for user in batch.users { changes.append(.upsertUser(try Self.stored(user, encoder))) }
        for chat in batch.chats { changes.append(.upsertChat(try Self.stored(chat, encoder))) }
        for message in batch.messages { changes.append(.upsertMessage(try Self.stored(message, encoder))) }
        for member in batch.members { changes.append(.upsertMember(try Self.stored(member, encoder))) }
        for id in batch.deletedChatStates { changes.append(.deleteChatState(chatID: id)) }
        for state in batch.chatStates { changes.append(.upsertChatState(Self.stored(state))) }
        try await database.apply(changes, messagesPerChat: messagesPerChat)
    }

    package func recentChats(limit: Int) async throws -> [Chat] {
        try await database.recentChats(limit: limit).map(Self.chat)
    }

    /// Every stored chat, newest first: what the first screen avoids reading.
    package func allChats() async throws -> [Chat] {
        try await database.allChats().map(Self.chat)
    }

    package func chats(olderThan chat: Chat) async throws -> [Chat] {
        try await database.chats(olderThan: Self.stored(chat, JSONEncoder())).map(Self.chat)
    }

    package func messages(in channel: String, limit: Int) async throws -> [Message] {
        // The store orders by the millisecond; ids (ULIDs) also order messages sent within one.
        try await database.messages(inChat: channel, limit: limit, order: .oldestFirst).map(Self.message)
            .sorted { $0.id < $1.id }
    }

    package func members(in server: String) async throws -> [Member] {
        try await database.members(inSpace: server).map(Self.member)
    }

    package func users(_ ids: [String]) async throws -> [User] {
        try await database.users(ids: ids).values.map(Self.user)
    }

    package func chatStates(_ ids: [String]?) async throws -> [AccountCache.ChatState] {
        let stored: [String: CachedChatState]
        if let ids {
            stored = try await database.chatStates(ids: ids)
        } else {
            stored = try await database.allChatStates()
        }
        return stored.values.sorted { $0.chatID < $1.chatID }.map(Self.chatState)
    }

    static func stored(_ state: AccountCache.ChatState) -> CachedChatState {
        CachedChatState(
            chatID: state.chatID, lastReadID: state.readState.lastRead, mentionIDs: state.readState.mentions,
            gaps: state.gaps.map { CachedChatState.Gap(after: $0.after, before: $0.before) },
            catchUpCursor: state.catchUpCursor)
    }

    static func chatState(_ stored: CachedChatState) -> AccountCache.ChatState {
        AccountCache.ChatState(
            chatID: stored.chatID, readState: ReadState(lastRead: stored.lastReadID, mentions: stored.mentionIDs),
            gaps: stored.gaps.map { HistoryGap(after: $0.after, before: $0.before) },
            catchUpCursor: stored.catchUpCursor)
    }

    // MARK: - Stoat to store

    static func stored(_ chat: Chat, _ encoder: JSONEncoder) throws -> CachedChat {
        CachedChat(
            id: chat.id, kind: kind(chat.kind), name: chat.name, parentID: chat.serverID,
            lastActivity: chat.lastActivity, lastMessageID: chat.lastMessage?.id,
            details: Data(chat.kind.rawValue.utf8), lastMessage: try chat.lastMessage.map { try stored($0, encoder) })
    }

    static func stored(_ message: Message, _ encoder: JSONEncoder) throws -> CachedMessage {
        CachedMessage(
            id: message.id, chatID: message.channel, authorID: message.author, body: message.content ?? "",
            sentAt: ULID.date(of: message.id) ?? Date(timeIntervalSince1970: 0), editedAt: message.edited,
            details: isPlain(message) ? Data() : try encoder.encode(message))
    }

    /// Whether the store's own fields hold all of a message (id, channel, author, text, edit date): then its
    /// details stay empty, and most messages — plain text — cost no JSON at all.
    static func isPlain(_ message: Message) -> Bool {
        message.content.map { !$0.isEmpty } ?? false && message.nonce == nil && message.user == nil
            && message.member == nil && message.webhook == nil && message.system == nil && message.attachments == nil
            && message.embeds == nil && message.mentions == nil && message.roleMentions == nil && message.replies == nil
            && message.reactions == nil && message.interactions == nil && message.masquerade == nil
            && message.pinned == nil && message.flags.isEmpty
    }

    static func stored(_ member: Member, _ encoder: JSONEncoder) throws -> CachedMember {
        CachedMember(
            spaceID: member.id.server, userID: member.id.user, nickname: member.nickname, roles: member.roles ?? [],
            timeout: member.timeout, details: try encoder.encode(member))
    }

    static func stored(_ user: User, _ encoder: JSONEncoder) throws -> CachedUser {
        CachedUser(
            id: user.id, username: user.username, displayName: user.displayName, details: try encoder.encode(user))
    }

    /// The store's kind of a Stoat channel kind.
    static func kind(_ kind: Channel.Kind) -> CachedChat.Kind {
        switch kind {
        case .textChannel: .channel
        case .directMessage: .directMessage
        case .group: .group
        case .savedMessages: .savedNotes
        default: .unknown
        }
    }

    // MARK: - Store to Stoat

    static func chat(_ stored: CachedChat) -> Chat {
        // The details hold Stoat's kind; without them, the store's kind says it.
        let kind: Channel.Kind
        if !stored.details.isEmpty {
            kind = Channel.Kind(rawValue: String(decoding: stored.details, as: UTF8.self))
        } else {
            switch stored.kind {
            case .directMessage: kind = .directMessage
            case .group: kind = .group
            case .savedNotes: kind = .savedMessages
            default: kind = .textChannel
            }
        }
        return Chat(
            id: stored.id, kind: kind, name: stored.name, serverID: stored.parentID, lastActivity: stored.lastActivity,
            lastMessage: stored.lastMessage.map(message))
    }

    static func message(_ stored: CachedMessage) -> Message {
        if !stored.details.isEmpty, let message = try? JSONDecoder().decode(Message.self, from: stored.details),
            message.id == stored.id
        {
            return message
        }
        return Message(
            id: stored.id, channel: stored.chatID, author: stored.authorID,
            content: stored.body.isEmpty ? nil : stored.body, edited: stored.editedAt)
    }

    static func member(_ stored: CachedMember) -> Member {
        if let member = try? JSONDecoder().decode(Member.self, from: stored.details),
            member.id == Member.ID(server: stored.spaceID, user: stored.userID)
        {
            return member
        }
        return Member(
            id: Member.ID(server: stored.spaceID, user: stored.userID), nickname: stored.nickname, roles: stored.roles,
            timeout: stored.timeout)
    }

    static func user(_ stored: CachedUser) -> User {
        if let user = try? JSONDecoder().decode(User.self, from: stored.details), user.id == stored.id { return user }
        return User(id: stored.id, username: stored.username, discriminator: "", displayName: stored.displayName)
    }
}
