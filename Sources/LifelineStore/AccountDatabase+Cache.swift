internal import Foundation
internal import GRDB

// MARK: - Reading the cache

extension AccountDatabase {
    /// The order in which ``messages(inChat:limit:order:)`` answers.
    public enum MessageOrder: Sendable, Hashable {
        /// The newest first: the chat's `limit` newest messages.
        case newestFirst
        /// The oldest first: the chat's `limit` oldest cached messages.
        case oldestFirst
    }

    /// The most recently active chats, newest first, each with its last message: what the first screen shows.
    ///
    /// Reads `limit` rows through the `lastActivity` index, and each chat's newest message through the
    /// messages' index, and decrypts only those: its cost does not grow with the number of chats or messages
    /// stored. The server is not asked anything.
    ///
    /// - Parameter limit: How many chats; the spec's first screen is 10.
    /// - Returns: The chats, newest first; each with ``CachedChat/lastMessage`` when one is cached.
    public func recentChats(limit: Int = 10) async throws(StoreError) -> [CachedChat] {
        try await read("chats") { db, sealer in
            try Self.fetchChats(db, sealer, sql: Self.recentChatsSQL, arguments: [max(0, limit)])
        }
    }

    /// The chats less recently active than `chat`, newest first, with their last messages: "then the rest" after
    /// ``recentChats(limit:)``.
    ///
    /// - Parameters:
    ///   - chat: The last chat already shown (as read from this database).
    ///   - limit: How many chats at most; nil for all of them.
    public func chats(olderThan chat: CachedChat, limit: Int? = nil) async throws(StoreError) -> [CachedChat] {
        let tag = try requireKeys().sealer.rowTag("chat", chat.id)
        let lastActivity = chat.lastActivity.storedMilliseconds
        return try await read("chats") { db, sealer in
            try Self.fetchChats(
                db,
                sealer,
                sql: Self.olderChatsSQL,
                arguments: [lastActivity, tag, limit.map { max(0, $0) } ?? -1]
            )
        }
    }

    /// Every chat, newest first, each with its last message, all decrypted. The baseline the first screen
    /// avoids.
    public func allChats() async throws(StoreError) -> [CachedChat] {
        try await read("chats") { db, sealer in
            try Self.fetchChats(db, sealer, sql: Self.allChatsSQL, arguments: [])
        }
    }

    /// One chat with its last message, by id; nil when it is not cached.
    ///
    /// - Parameter id: The chat's id.
    public func chat(id: String) async throws(StoreError) -> CachedChat? {
        let tag = try requireKeys().sealer.rowTag("chat", id)
        return try await read("a chat") { db, sealer in
            try Self.fetchChats(db, sealer, sql: Self.chatByTagSQL, arguments: [tag]).first
        }
    }

    /// A chat's cached messages.
    ///
    /// - Parameters:
    ///   - chatID: The chat's id.
    ///   - limit: How many messages at most.
    ///   - order: ``MessageOrder/newestFirst`` (the default) for the newest `limit` messages, newest first;
    ///     ``MessageOrder/oldestFirst`` for the oldest `limit` cached messages, oldest first.
    public func messages(
        inChat chatID: String, limit: Int, order: MessageOrder = .newestFirst
    )
        async throws(StoreError) -> [CachedMessage]
    {
        let chatTag = try requireKeys().sealer.rowTag("chat", chatID)
        let sql =
            switch order {
            case .newestFirst:
                "SELECT tag, sentAt, payload FROM message WHERE chatTag = ? ORDER BY sentAt DESC, tag DESC LIMIT ?"
            case .oldestFirst:
                "SELECT tag, sentAt, payload FROM message WHERE chatTag = ? ORDER BY sentAt, tag LIMIT ?"
            }
        return try await read("messages") { db, sealer in
            let rows = try Row.fetchCursor(db, sql: sql, arguments: [chatTag, max(0, limit)])
            var messages: [CachedMessage] = []
            while let row = try rows.next() {
                messages.append(try Self.decodeMessageRow(row, chatTag: chatTag, sealer))
            }
            return messages
        }
    }

    /// Every cached space, by name (then id).
    public func spaces() async throws(StoreError) -> [CachedSpace] {
        try await read("spaces") { db, sealer in
            let rows = try Row.fetchCursor(db, sql: "SELECT tag, payload FROM space")
            var spaces: [CachedSpace] = []
            while let row = try rows.next() {
                let tag: Data = try Self.column(row, 0, table: "space")
                let sealed: Data = try Self.column(row, 1, table: "space")
                spaces.append(try Self.decodeSpace(try sealer.open(sealed, Self.spaceContext(tag: tag))))
            }
            return spaces.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
        }
    }

    /// One space by id; nil when it is not cached.
    ///
    /// - Parameter id: The space's id.
    public func space(id: String) async throws(StoreError) -> CachedSpace? {
        let tag = try requireKeys().sealer.rowTag("space", id)
        return try await read("a space") { db, sealer in
            guard let sealed = try Data.fetchOne(db, sql: "SELECT payload FROM space WHERE tag = ?", arguments: [tag])
            else { return nil }
            return try Self.decodeSpace(try sealer.open(sealed, Self.spaceContext(tag: tag)))
        }
    }

    /// A space's cached members, through the members' index, by user id.
    ///
    /// - Parameter spaceID: The space's id.
    public func members(inSpace spaceID: String) async throws(StoreError) -> [CachedMember] {
        let spaceTag = try requireKeys().sealer.rowTag("space", spaceID)
        return try await read("members") { db, sealer in
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT tag, payload FROM member WHERE spaceTag = ?",
                arguments: [spaceTag]
            )
            var members: [CachedMember] = []
            while let row = try rows.next() {
                let tag: Data = try Self.column(row, 0, table: "member")
                let sealed: Data = try Self.column(row, 1, table: "member")
                let context = Self.memberContext(tag: tag, spaceTag: spaceTag)
                members.append(try Self.decodeMember(try sealer.open(sealed, context)))
            }
            return members.sorted { $0.userID < $1.userID }
        }
    }

    /// One member of a space; nil when it is not cached.
    ///
    /// - Parameters:
    ///   - spaceID: The space's id.
    ///   - userID: The user's id.
    public func member(inSpace spaceID: String, userID: String) async throws(StoreError) -> CachedMember? {
        let sealer = try requireKeys().sealer
        let tag = sealer.rowTag("member", spaceID, userID)
        let spaceTag = sealer.rowTag("space", spaceID)
        return try await read("a member") { db, sealer in
            guard let sealed = try Data.fetchOne(db, sql: "SELECT payload FROM member WHERE tag = ?", arguments: [tag])
            else { return nil }
            return try Self.decodeMember(try sealer.open(sealed, Self.memberContext(tag: tag, spaceTag: spaceTag)))
        }
    }

    /// The cached users among `ids`, by id; ids not cached are absent from the answer.
    ///
    /// - Parameter ids: The users' ids.
    public func users(ids: some Collection<String>) async throws(StoreError) -> [String: CachedUser] {
        let sealer = try requireKeys().sealer
        let tags = Set(ids).map { sealer.rowTag("user", $0) }
        return try await read("users") { db, sealer in
            let statement = try db.cachedStatement(sql: "SELECT payload FROM user WHERE tag = ?")
            var users: [String: CachedUser] = [:]
            for tag in tags {
                guard let sealed = try Data.fetchOne(statement, arguments: [tag]) else { continue }
                let user = try Self.decodeUser(try sealer.open(sealed, Self.userContext(tag: tag)))
                users[user.id] = user
            }
            return users
        }
    }

    /// The states of the chats among `ids` (read marker, mentions, gaps, catch-up cursor), by chat id; chats
    /// without a stored state are absent from the answer.
    ///
    /// - Parameter ids: The chats' ids.
    public func chatStates(ids: some Collection<String>) async throws(StoreError) -> [String: CachedChatState] {
        let sealer = try requireKeys().sealer
        let tags = Set(ids).map { sealer.rowTag("chat", $0) }
        return try await read("chat states") { db, sealer in
            let statement = try db.cachedStatement(sql: "SELECT payload FROM chatState WHERE tag = ?")
            var states: [String: CachedChatState] = [:]
            for tag in tags {
                guard let sealed = try Data.fetchOne(statement, arguments: [tag]) else { continue }
                let state = try Self.decodeChatState(try sealer.open(sealed, Self.chatStateContext(tag: tag)))
                states[state.chatID] = state
            }
            return states
        }
    }

    /// Every stored chat state, by chat id.
    public func allChatStates() async throws(StoreError) -> [String: CachedChatState] {
        try await read("chat states") { db, sealer in
            let rows = try Row.fetchCursor(db, sql: "SELECT tag, payload FROM chatState")
            var states: [String: CachedChatState] = [:]
            while let row = try rows.next() {
                let tag: Data = try Self.column(row, 0, table: "chatState")
                let sealed: Data = try Self.column(row, 1, table: "chatState")
                let state = try Self.decodeChatState(try sealer.open(sealed, Self.chatStateContext(tag: tag)))
                states[state.chatID] = state
            }
            return states
        }
    }

    /// One cached user; nil when it is not cached.
    ///
    /// - Parameter id: The user's id.
    public func user(id: String) async throws(StoreError) -> CachedUser? {
        try await users(ids: [id])[id]
    }
}

// MARK: - Writing the cache

extension AccountDatabase {
    /// How many messages per chat ``apply(_:messagesPerChat:)`` keeps unless told otherwise: 100.
    public static let defaultMessagesPerChat = 100

    /// Applies a batch of changes to the cache in one transaction, in order, then trims every chat that
    /// received messages to its newest `messagesPerChat`.
    ///
    /// All or nothing: if any change fails (a full disk, an I/O error, a closed database), the transaction is
    /// rolled back and the cache is exactly as it was before the call. Each record is sealed under the data key,
    /// bound to its table, column and row (see <doc:LifelineStore#Keys>).
    ///
    /// Call it off the socket's path (it runs on the database's queue): gather a socket's events into batches
    /// of a few hundred changes; see <doc:LifelineStore#Writing-the-cache> for what it costs.
    ///
    /// - Parameters:
    ///   - changes: The changes, applied in order: an id upserted then deleted in one batch ends deleted.
    ///   - messagesPerChat: How many of each touched chat's newest messages to keep (by
    ///     ``CachedMessage/sentAt``, then by a keyed tag of the id); older ones are deleted. At least 1.
    /// - Throws: ``StoreError``: ``StoreErrorCode/diskFull``, ``StoreErrorCode/storage``,
    ///   ``StoreErrorCode/closed``, or ``StoreErrorCode/invalidParameter`` when `messagesPerChat` is below 1.
    public func apply(
        _ changes: [CacheChange], messagesPerChat: Int = defaultMessagesPerChat
    )
        async throws(StoreError)
    {
        guard messagesPerChat >= 1 else {
            throw StoreError(code: .invalidParameter, message: "a chat keeps at least one message")
        }
        guard !changes.isEmpty else {
            _ = try requireKeys()
            return
        }
        try await write("the cache") { db, sealer in
            // The tag cache is only used on the database's serial queue; the lock makes that visible. Taking it
            // out (not copying it) keeps the dictionary uniquely referenced, so adding to it copies nothing.
            let cached = self.chatTagCache.withLock { cache in
                defer { cache = [:] }
                return cache
            }
            var writer = try CacheWriter(db, sealer, chatTags: cached)
            for change in changes {
                try writer.apply(change)
            }
            try writer.trimTouchedChats(keeping: messagesPerChat)
            let grown = writer.chatTags
            self.chatTagCache.withLock { cache in
                // Bounded: an account with more chats than this recomputes the rest.
                cache = grown.count <= Self.chatTagCacheLimit ? grown : [:]
            }
        }
    }
}

// MARK: - Queries

extension AccountDatabase {
    // Chats newest first; the index `chat_by_activity` serves all of them without sorting.
    static let recentChatsSQL =
        "SELECT tag, lastActivity, payload FROM chat ORDER BY lastActivity DESC, tag DESC LIMIT ?"
    static let olderChatsSQL = """
        SELECT tag, lastActivity, payload FROM chat WHERE (lastActivity, tag) < (?, ?)
        ORDER BY lastActivity DESC, tag DESC LIMIT ?
        """
    static let allChatsSQL = "SELECT tag, lastActivity, payload FROM chat ORDER BY lastActivity DESC, tag DESC"
    static let chatByTagSQL = "SELECT tag, lastActivity, payload FROM chat WHERE tag = ?"
    /// A chat's newest message, through the index `message_by_chat`.
    static let lastMessageSQL =
        "SELECT tag, sentAt, payload FROM message WHERE chatTag = ? ORDER BY sentAt DESC, tag DESC LIMIT 1"
    /// A chat's message by its tag: the chat's ``CachedChat/lastMessageID``, exact where two messages share a
    /// millisecond (the index orders those by tag, which says nothing of their order).
    static let messageByTagSQL = "SELECT tag, sentAt, payload FROM message WHERE tag = ? AND chatTag = ?"

    static func fetchChats(
        _ db: Database,
        _ sealer: RecordSealer,
        sql: String,
        arguments: StatementArguments
    ) throws -> [CachedChat] {
        let lastMessage = try db.cachedStatement(sql: lastMessageSQL)
        let messageByTag = try db.cachedStatement(sql: messageByTagSQL)
        let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        var chats: [CachedChat] = []
        while let row = try rows.next() {
            let tag: Data = try column(row, 0, table: "chat")
            let lastActivity: Int64 = try column(row, 1, table: "chat")
            let sealed: Data = try column(row, 2, table: "chat")
            let plaintext = try sealer.open(sealed, chatContext(tag: tag, lastActivity: lastActivity))
            var chat = try decodeChat(plaintext, lastActivity: lastActivity)
            let named = try chat.lastMessageID.flatMap { id in
                try Row.fetchOne(messageByTag, arguments: [sealer.rowTag("message", id), tag])
            }
            if let messageRow = try named ?? Row.fetchOne(lastMessage, arguments: [tag]) {
                chat.lastMessage = try decodeMessageRow(messageRow, chatTag: tag, sealer)
            }
            chats.append(chat)
        }
        return chats
    }

    static func decodeMessageRow(_ row: Row, chatTag: Data, _ sealer: RecordSealer) throws -> CachedMessage {
        let tag: Data = try column(row, 0, table: "message")
        let sentAt: Int64 = try column(row, 1, table: "message")
        let sealed: Data = try column(row, 2, table: "message")
        let plaintext = try sealer.open(sealed, messageContext(tag: tag, chatTag: chatTag, sentAt: sentAt))
        return try decodeMessage(plaintext, sentAt: sentAt)
    }
}

/// Applies one batch's changes inside its transaction: prepared statements reused across the batch, chat tags
/// computed once per chat, and the chats that received messages remembered for trimming.
private struct CacheWriter {
    let db: Database
    let sealer: RecordSealer
    private let upsertChat: Statement
    private let deleteChat: Statement
    private let deleteChatMessages: Statement
    private let upsertMessage: Statement
    private let deleteMessage: Statement
    private let upsertSpace: Statement
    private let deleteSpace: Statement
    private let deleteSpaceMembers: Statement
    private let upsertMember: Statement
    private let deleteMember: Statement
    private let upsertUser: Statement
    private let deleteUser: Statement
    /// Prepared on first use: a batch without chat states never touches the `v4` table.
    private var chatStateStatements: (upsert: Statement, delete: Statement)?
    /// Chat tags by chat id, kept across batches by the database (see ``AccountDatabase/chatTagCache``).
    private(set) var chatTags: [String: Data]
    /// The chats that received messages in this batch, in the order they first did.
    private var touchedChats: [Data] = []
    private var touchedChatSet: Set<Data> = []

    init(_ db: Database, _ sealer: RecordSealer, chatTags: [String: Data]) throws {
        self.db = db
        self.sealer = sealer
        self.chatTags = chatTags
        upsertChat = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO chat (tag, lastActivity, payload) VALUES (?, ?, ?)"
        )
        deleteChat = try db.cachedStatement(sql: "DELETE FROM chat WHERE tag = ?")
        deleteChatMessages = try db.cachedStatement(sql: "DELETE FROM message WHERE chatTag = ?")
        upsertMessage = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO message (tag, chatTag, sentAt, payload) VALUES (?, ?, ?, ?)"
        )
        deleteMessage = try db.cachedStatement(sql: "DELETE FROM message WHERE tag = ?")
        upsertSpace = try db.cachedStatement(sql: "INSERT OR REPLACE INTO space (tag, payload) VALUES (?, ?)")
        deleteSpace = try db.cachedStatement(sql: "DELETE FROM space WHERE tag = ?")
        deleteSpaceMembers = try db.cachedStatement(sql: "DELETE FROM member WHERE spaceTag = ?")
        upsertMember = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO member (tag, spaceTag, payload) VALUES (?, ?, ?)"
        )
        deleteMember = try db.cachedStatement(sql: "DELETE FROM member WHERE tag = ?")
        upsertUser = try db.cachedStatement(sql: "INSERT OR REPLACE INTO user (tag, payload) VALUES (?, ?)")
        deleteUser = try db.cachedStatement(sql: "DELETE FROM user WHERE tag = ?")
    }

    private mutating func chatStateStatement() throws -> (upsert: Statement, delete: Statement) {
        if let statements = chatStateStatements { return statements }
        let statements = (
            upsert: try db.cachedStatement(sql: "INSERT OR REPLACE INTO chatState (tag, payload) VALUES (?, ?)"),
            delete: try db.cachedStatement(sql: "DELETE FROM chatState WHERE tag = ?")
        )
        chatStateStatements = statements
        return statements
    }

    mutating func apply(_ change: CacheChange) throws {
        switch change {
        case .upsertChat(let chat):
            let tag = chatTag(chat.id)
            let lastActivity = chat.lastActivity.storedMilliseconds
            let context = AccountDatabase.chatContext(tag: tag, lastActivity: lastActivity)
            let sealed = try sealer.seal(AccountDatabase.chatPayload(chat).bytes, context)
            try upsertChat.execute(arguments: [tag, lastActivity, sealed])
            if let message = chat.lastMessage {
                try apply(.upsertMessage(message))
            }
        case .deleteChat(let id):
            let tag = chatTag(id)
            try deleteChat.execute(arguments: [tag])
            try deleteChatMessages.execute(arguments: [tag])
            try chatStateStatement().delete.execute(arguments: [tag])
        case .upsertMessage(let message):
            let tag = sealer.rowTag("message", message.id)
            let chatTag = chatTag(message.chatID)
            let sentAt = message.sentAt.storedMilliseconds
            let context = AccountDatabase.messageContext(tag: tag, chatTag: chatTag, sentAt: sentAt)
            let sealed = try sealer.seal(AccountDatabase.messagePayload(message).bytes, context)
            try upsertMessage.execute(arguments: [tag, chatTag, sentAt, sealed])
            if touchedChatSet.insert(chatTag).inserted {
                touchedChats.append(chatTag)
            }
        case .deleteMessage(let id):
            try deleteMessage.execute(arguments: [sealer.rowTag("message", id)])
        case .upsertSpace(let space):
            let tag = sealer.rowTag("space", space.id)
            let sealed = try sealer.seal(
                AccountDatabase.spacePayload(space).bytes, AccountDatabase.spaceContext(tag: tag))
            try upsertSpace.execute(arguments: [tag, sealed])
        case .deleteSpace(let id):
            let tag = sealer.rowTag("space", id)
            try deleteSpace.execute(arguments: [tag])
            try deleteSpaceMembers.execute(arguments: [tag])
        case .upsertMember(let member):
            let tag = sealer.rowTag("member", member.spaceID, member.userID)
            let spaceTag = sealer.rowTag("space", member.spaceID)
            let context = AccountDatabase.memberContext(tag: tag, spaceTag: spaceTag)
            let sealed = try sealer.seal(AccountDatabase.memberPayload(member).bytes, context)
            try upsertMember.execute(arguments: [tag, spaceTag, sealed])
        case .deleteMember(let spaceID, let userID):
            try deleteMember.execute(arguments: [sealer.rowTag("member", spaceID, userID)])
        case .upsertUser(let user):
            let tag = sealer.rowTag("user", user.id)
            let sealed = try sealer.seal(
                AccountDatabase.userPayload(user).bytes,
                AccountDatabase.userContext(tag: tag)
            )
            try upsertUser.execute(arguments: [tag, sealed])
        case .deleteUser(let id):
            try deleteUser.execute(arguments: [sealer.rowTag("user", id)])
        case .upsertChatState(let state):
            let tag = chatTag(state.chatID)
            let sealed = try sealer.seal(
                AccountDatabase.chatStatePayload(state).bytes, AccountDatabase.chatStateContext(tag: tag))
            try chatStateStatement().upsert.execute(arguments: [tag, sealed])
        case .deleteChatState(let chatID):
            try chatStateStatement().delete.execute(arguments: [chatTag(chatID)])
        }
    }

    /// Deletes, in every chat that received messages, all but the newest `count`: one statement per chat, which
    /// skips the newest `count` through the index `message_by_chat` and deletes what follows.
    func trimTouchedChats(keeping count: Int) throws {
        guard !touchedChats.isEmpty else { return }
        let deleteOlder = try db.cachedStatement(
            sql: """
                DELETE FROM message WHERE rowid IN (
                    SELECT rowid FROM message WHERE chatTag = ?1 ORDER BY sentAt DESC, tag DESC LIMIT -1 OFFSET ?2
                )
                """
        )
        for chatTag in touchedChats {
            try deleteOlder.execute(arguments: [chatTag, count])
        }
    }

    private mutating func chatTag(_ id: String) -> Data {
        if let tag = chatTags[id] { return tag }
        let tag = sealer.rowTag("chat", id)
        chatTags[id] = tag
        return tag
    }
}
