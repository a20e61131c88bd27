#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// `GET /channels/{id}/messages`'s options (stoatchat's `OptionsQueryMessages`), parsed from the query.
struct MessageQueryOptions: Sendable {
    var limit: Int?
    var before: String?
    var after: String?
    /// `Latest`, `Oldest` or `Relevance`.
    var sort: String?
    var nearby: String?
    var includeUsers: Bool?
}

/// `POST /channels/{id}/messages`'s body (stoatchat's `DataMessageSend`, the parts this server keeps).
struct MessageSendRequest: Sendable {
    struct Reply: Sendable {
        var id: String
        var mention: Bool
        var failIfNotExists: Bool?
    }

    var nonce: String?
    var content: String?
    var replies: [Reply]?
    var flags: UInt32?
    /// The ids of uploaded files to attach.
    var attachments: [String]?

    /// Reads the body as serde reads `DataMessageSend`; nil when a field has the wrong type (a 422).
    init?(_ body: JSONValue) {
        guard case .object(let object) = body else { return nil }
        func optionalString(_ key: String) -> String?? {
            switch object[key] {
            case nil, .null: .some(nil)
            case .string(let value): .some(value)
            default: nil
            }
        }
        guard let nonce = optionalString("nonce"), let content = optionalString("content") else { return nil }
        self.nonce = nonce
        self.content = content
        switch object["flags"] {
        case nil, .null: flags = nil
        case .integer(let value) where value >= 0 && value <= Int64(UInt32.max): flags = UInt32(value)
        case .unsigned(let value) where value <= UInt64(UInt32.max): flags = UInt32(value)
        default: return nil
        }
        switch object["attachments"] {
        case nil, .null: attachments = nil
        case .array(let entries):
            var ids: [String] = []
            for entry in entries {
                guard let id = entry.stringValue else { return nil }
                ids.append(id)
            }
            attachments = ids
        default: return nil
        }
        switch object["replies"] {
        case nil, .null: replies = nil
        case .array(let entries):
            var parsed: [Reply] = []
            for entry in entries {
                guard case .object(let reply) = entry, let id = reply["id"]?.stringValue,
                    let mention = reply["mention"]?.boolValue
                else { return nil }
                parsed.append(Reply(id: id, mention: mention, failIfNotExists: reply["fail_if_not_exists"]?.boolValue))
            }
            replies = parsed
        default: return nil
        }
    }

    init(content: String?, nonce: String? = nil, attachments: [String]? = nil) {
        self.content = content
        self.nonce = nonce
        self.attachments = attachments
    }
}

/// The REST facet: stoatchat's routes for channels, messages, servers, users and sync
/// (`crates/delta/src/routes/...`), each answering what the route answers.
extension ServerState {
    private static let maximumMessageLength = 2000
    private static let maximumReplies = 5

    // MARK: Lookups

    func channel(_ id: String, at location: String) throws(APIError) -> StoatChannel {
        guard let channel = channels[id] else { throw APIError(.notFound, at: location) }
        return channel
    }

    func server(_ id: String, at location: String) throws(APIError) -> StoatServer {
        guard let server = servers[id] else { throw APIError(.notFound, at: location) }
        return server
    }

    // MARK: Channels

    /// `GET /channels/{id}`: the channel, to one who may view it.
    func fetchChannel(_ id: String, as user: StoatUser) throws(APIError) -> Wire {
        let location = "crates/delta/src/routes/channels/channel_fetch.rs"
        let channel = try channel(id, at: "crates/core/database/src/models/channels/ops/mongodb.rs")
        try require(.viewChannel, of: user, in: channel, at: location)
        return channel.wire
    }

    /// `GET /channels/{id}/messages`.
    func queryMessages(
        _ channelID: String, options: MessageQueryOptions, as user: StoatUser
    ) throws(APIError)
        -> Wire
    {
        let location = "crates/delta/src/routes/channels/message_query.rs"
        if faults.failMessageQueries > 0 {
            if faults.passMessageQueries > 0 {
                faults.passMessageQueries -= 1
            } else {
                faults.failMessageQueries -= 1
                throw APIError(.internalError, at: "fault: fail-message-queries")
            }
        }
        if let limit = options.limit, !(1...100).contains(limit) {
            throw .validation(
                "limit: Validation error: range [{\"max\": Number(100.0), \"min\": Number(1.0)}]", at: location)
        }
        for (name, value) in [("before", options.before), ("after", options.after), ("nearby", options.nearby)] {
            if let value, value.count != 26 {
                throw .validation(
                    "\(name): Validation error: length [{\"max\": Number(26), \"min\": Number(26)}]", at: location)
            }
        }
        if options.sort == "Relevance" { throw APIError(.invalidOperation, at: location) }
        let channel = try channel(channelID, at: "crates/core/database/src/models/channels/ops/mongodb.rs")
        try require(.readMessageHistory, of: user, in: channel, at: location)
        let ids = messageIDsByChannel[channelID] ?? []
        let limit = options.limit ?? 50
        var page: [String]
        if let nearby = options.nearby {
            let newer = ids.filter { $0 >= nearby }.prefix(limit / 2 + 1)
            let older = ids.filter { $0 < nearby }.reversed().prefix(limit / 2 + 1)
            page = Array(newer) + Array(older)
        } else {
            let filtered = ids.filter { id in
                (options.before.map { id < $0 } ?? true) && (options.after.map { id > $0 } ?? true)
            }
            page = options.sort == "Oldest" ? Array(filtered.prefix(limit)) : Array(filtered.reversed().prefix(limit))
        }
        let list = page.compactMap { messages[$0] }
        guard options.includeUsers == true else { return .list(list) }
        var authorIDs: [String] = []
        for message in list where !authorIDs.contains(message.author) { authorIDs.append(message.author) }
        let authors = authorIDs.compactMap { users[$0] }.map { view($0, by: user) }
        var fields: [Wire.Field] = [
            .init(key: "messages", value: .list(list)), .init(key: "users", value: .list(authors)),
        ]
        if let serverID = channel.serverID {
            let memberList = authorIDs.compactMap { member(server: serverID, user: $0) }
            fields.append(.init(key: "members", value: .list(memberList)))
        }
        return .object(fields)
    }

    /// How many idempotency keys and nonces stoatchat's cache holds (`TOKEN_CACHE`, one per API process).
    static let nonceCacheCapacity = 1000

    /// Records an idempotency key or nonce in stoatchat's LRU cache of the last 1000
    /// (`crates/core/database/src/util/idempotency.rs`); false when it is there already. A key found is
    /// promoted to the most recently used (`LruCache::get`), so a key retried again and again stays refused.
    func consumeNonce(_ key: String) -> Bool {
        if recentNonceSet.contains(key) {
            if let index = recentNonces.lastIndex(of: key) {
                recentNonces.remove(at: index)
                recentNonces.append(key)
            }
            return false
        }
        recentNonces.append(key)
        recentNonceSet.insert(key)
        if recentNonces.count > Self.nonceCacheCapacity { recentNonceSet.remove(recentNonces.removeFirst()) }
        return true
    }

    /// `POST /channels/{id}/messages` (`message_send.rs`, `Message::create_from_api`), after the guards: the
    /// `Idempotency-Key` (already consumed) or a made-up key becomes the nonce.
    func sendMessage(
        _ request: MessageSendRequest, to channelID: String, as user: StoatUser, idempotencyKey: String?
    ) throws(APIError) -> (message: StoatMessage, wire: Wire) {
        let location = "crates/delta/src/routes/channels/message_send.rs"
        if let nonce = request.nonce, !(1...64).contains(nonce.count) {
            throw .validation(
                "nonce: Validation error: length [{\"max\": Number(64), \"min\": Number(1)}]", at: location)
        }
        let channel = try channel(channelID, at: "crates/core/database/src/models/channels/ops/mongodb.rs")
        let instant = now()
        let permissions = channelPermissions(user, in: channel, at: instant)
        guard permissions.contains(.sendMessage) else { throw .missing(.sendMessage, at: location) }
        if !permissions.contains(.bypassSlowmode), channel.kind == .textChannel, let period = channel.slowmode,
            period > 0
        {
            if let until = slowmodes[user.id]?[channel.id], until > instant {
                let retryAfter = UInt64(max(1, until.timeIntervalSince(instant).rounded()))
                publish(
                    .userSlowmodes([.init(channelID: channel.id, duration: period, retryAfter: retryAfter)]),
                    to: ["\(user.id)!"])
                throw APIError(.inSlowmode, [.init(key: "retry_after", value: .uint(retryAfter))], at: location)
            }
            slowmodes[user.id, default: [:]][channel.id] = instant.addingTimeInterval(TimeInterval(period))
            publish(
                .userSlowmodes([.init(channelID: channel.id, duration: period, retryAfter: period)]),
                to: ["\(user.id)!"])
        }
        let modelLocation = "crates/core/database/src/models/messages/model.rs"
        if (request.content?.utf8.count ?? 0) > Self.maximumMessageLength {
            throw APIError(.payloadTooLarge, at: modelLocation)
        }
        var key = idempotencyKey ?? Identifiers.ulid(at: instant)
        if let nonce = request.nonce {
            guard consumeNonce(nonce) else { throw APIError(.invalidOperation, at: modelLocation) }
            key = nonce
        }
        let attachmentIDs = request.attachments ?? []
        let content = request.content ?? ""
        guard !content.isEmpty || !attachmentIDs.isEmpty else { throw APIError(.emptyMessage, at: modelLocation) }
        // stoatchat's `MessageFlags` are bit positions: 2 suppresses notifications, 4 mentions everyone, 8 everyone
        // online; a value above 7 is refused outright, so 8 can only come from `@online` in the text.
        var suppressNotifications = false
        var mentionsEveryone = false
        var mentionsOnline = false
        if let raw = request.flags {
            guard raw <= 7 else { throw APIError(.invalidProperty, at: modelLocation) }
            suppressNotifications = raw & 2 != 0
            mentionsEveryone = raw & 4 != 0
            if user.botOwner == nil, mentionsEveryone { throw APIError(.isNotBot, at: modelLocation) }
        }
        var mentions = Self.mentions(in: content)
        var roleMentions = Self.roleMentions(in: content)
        mentionsEveryone = mentionsEveryone || content.contains("@everyone")
        mentionsOnline = content.contains("@online")
        if let serverID = channel.serverID, !roleMentions.isEmpty {
            let roles = servers[serverID]?.roles ?? [:]
            roleMentions = roleMentions.filter { roles[$0] != nil }
        }
        if mentionsEveryone || mentionsOnline, !permissions.contains(.mentionEveryone) {
            throw .missing(.mentionEveryone, at: modelLocation)
        }
        if !roleMentions.isEmpty, !permissions.contains(.mentionRoles) {
            throw .missing(.mentionRoles, at: modelLocation)
        }
        var flags: UInt32 = 0
        if suppressNotifications { flags |= 2 }
        if mentionsEveryone { flags |= 4 }
        if mentionsOnline { flags |= 8 }
        var replies: [String] = []
        if let entries = request.replies {
            guard entries.count <= Self.maximumReplies else {
                throw APIError(
                    .tooManyReplies, [.init(key: "max", value: .integer(Self.maximumReplies))], at: modelLocation)
            }
            for entry in entries {
                guard let replied = messages[entry.id] else {
                    if entry.failIfNotExists ?? true { throw APIError(.notFound, at: modelLocation) }
                    continue
                }
                if entry.mention, !mentions.contains(replied.author) { mentions.append(replied.author) }
                if !replies.contains(replied.id) { replies.append(replied.id) }
            }
        }
        mentions = mentions.filter { mentioned in
            switch channel.kind {
            case .directMessage, .group: return channel.recipients.contains(mentioned)
            case .textChannel:
                guard let other = users[mentioned], let serverID = channel.serverID,
                    member(server: serverID, user: mentioned) != nil
                else { return false }
                return canView(other, channel)
            default: return false
            }
        }
        guard attachmentIDs.count <= Self.maximumAttachments else {
            throw APIError(
                .tooManyAttachments, [.init(key: "max", value: .integer(Self.maximumAttachments))], at: modelLocation)
        }
        let messageID = messageIDs.next(at: instant)
        let attachments = try claimAttachments(attachmentIDs, for: messageID)
        var message = StoatMessage(
            id: messageID, nonce: key, channel: channel.id, author: user.id, content: content.isEmpty ? nil : content,
            mentions: mentions.isEmpty ? nil : mentions, roleMentions: roleMentions.isEmpty ? nil : roleMentions,
            replies: replies.isEmpty ? nil : replies, flags: flags)
        message.attachments = attachments.isEmpty ? nil : attachments
        upsert(message: message)
        // `Message::send` queues the channel's `last_message_id` (and a direct message's `active`) on the
        // debounced task; it is committed about 6 s later (``LastMessageIDQueue``).
        queueLastMessageID(message.id, in: channel)
        let author = view(user, by: nil)
        let authorMember = channel.serverID.flatMap { member(server: $0, user: user.id) }
        publish(.message(message, user: author, member: authorMember), to: [channel.id])
        addMention(message.id, in: channel.id, for: mentionRecipients(of: message, in: channel))
        return (message, message.wire(user: author, member: authorMember))
    }

    /// The user ids a text mentions as `<@ID>`, in order, without repeats.
    static func mentions(in content: String) -> [String] {
        ids(in: content, after: "<@")
    }

    /// The role ids a text mentions as `<%ID>`, in order, without repeats (stoatchat's parser's `RoleMention`).
    static func roleMentions(in content: String) -> [String] {
        ids(in: content, after: "<%")
    }

    /// The 26-character ids a text names between `opening` and `>`, in order, without repeats.
    private static func ids(in content: String, after opening: String) -> [String] {
        var result: [String] = []
        var rest = Substring(content)
        while let start = rest.range(of: opening) {
            let afterStart = rest[start.upperBound...]
            guard let end = afterStart.firstIndex(of: ">") else { break }
            let id = String(afterStart[..<end])
            if id.count == 26, id.allSatisfy({ $0.isLetter || $0.isNumber }), !result.contains(id) {
                result.append(id)
            }
            rest = afterStart[end...]
        }
        return result
    }

    /// `PATCH /channels/{id}/messages/{message}` (`message_edit.rs`): the author edits the content.
    func editMessage(
        _ messageID: String, in channelID: String, content: String?, as user: StoatUser
    )
        throws(APIError) -> Wire
    {
        let location = "crates/delta/src/routes/channels/message_edit.rs"
        if let content, content.isEmpty {
            throw .validation("content: Validation error: length [{\"min\": Number(1)}]", at: location)
        }
        if (content?.utf8.count ?? 0) > Self.maximumMessageLength {
            throw APIError(.payloadTooLarge, at: "crates/core/database/src/models/messages/model.rs")
        }
        let channel = try channel(channelID, at: "crates/core/database/src/models/channels/ops/mongodb.rs")
        try require(.sendMessage, of: user, in: channel, at: location)
        guard var message = messages[messageID], message.channel == channel.id else {
            throw APIError(.notFound, at: "crates/core/database/src/util/reference.rs")
        }
        guard message.author == user.id else { throw APIError(.cannotEditMessage, at: location) }
        message.edited = now()
        if let content { message.content = content }
        message.embeds = []
        upsert(message: message)
        let data = Wire.object([
            "content": .str(content), "edited": message.edited.map { .timestamp($0) }, "embeds": .array([]),
        ])
        publish(.messageUpdate(id: message.id, channel: channel.id, data: data, clear: []), to: [channel.id])
        return message.wire
    }

    /// `DELETE /channels/{id}/messages/{message}` (`message_delete.rs`, `Message::delete`): the author, or one
    /// with `ManageMessages`. When it was the channel's last message, `last_message_id` moves to the one before
    /// and, if there is one, `ChannelUpdate` says so.
    func deleteMessage(_ messageID: String, in channelID: String, as user: StoatUser) throws(APIError) {
        guard let message = messages[messageID], message.channel == channelID else {
            throw APIError(.notFound, at: "crates/core/database/src/util/reference.rs")
        }
        if message.author != user.id {
            let channel = try channel(channelID, at: "crates/core/database/src/models/channels/ops/mongodb.rs")
            try require(
                .manageMessages, of: user, in: channel, at: "crates/delta/src/routes/channels/message_delete.rs")
        }
        markAttachmentsDeleted(of: message)
        removeMessage(messageID)
        if var channel = channels[channelID], channel.lastMessageID == messageID {
            let previous = messageIDsByChannel[channelID]?.last
            channel.lastMessageID = previous
            upsert(channel: channel)
            if let previous {
                publish(
                    .channelUpdate(id: channelID, data: .object(["last_message_id": .string(previous)]), clear: []),
                    to: [channelID])
            }
        }
        publish(.messageDelete(id: messageID, channel: channelID), to: [channelID])
    }

    // MARK: Servers

    /// `GET /servers/{id}`: the server to a member (NotFound otherwise), with the channels they may view
    /// appended as a second `channels` field when `include_channels` is true, as serde's flatten writes it.
    func fetchServer(_ id: String, includeChannels: Bool, as user: StoatUser) throws(APIError) -> Wire {
        let location = "crates/delta/src/routes/servers/server_fetch.rs"
        let server = try server(id, at: "crates/core/database/src/models/servers/ops/mongodb.rs")
        guard member(server: id, user: user.id) != nil else { throw APIError(.notFound, at: location) }
        let wire = view(server).wire
        guard includeChannels, case .object(var fields) = wire else { return wire }
        let visible = server.channels.compactMap { channels[$0] }.filter { canView(user, $0) }
        fields.append(.init(key: "channels", value: .list(visible)))
        return .object(fields)
    }

    /// `GET /servers/{id}/members`: `{"members", "users"}` sorted by user id, to a member (NotFound otherwise);
    /// `exclude_offline` keeps the online ones.
    func fetchMembers(_ id: String, excludeOffline: Bool, as user: StoatUser) throws(APIError) -> Wire {
        let location = "crates/delta/src/routes/servers/member_fetch_all.rs"
        _ = try server(id, at: "crates/core/database/src/models/servers/ops/mongodb.rs")
        guard member(server: id, user: user.id) != nil else { throw APIError(.notFound, at: location) }
        var memberList = (memberIDsByServer[id] ?? []).compactMap { member(server: id, user: $0) }
            .filter { users[$0.userID] != nil }
            .sorted { $0.userID < $1.userID }
        var userList = memberList.compactMap { users[$0.userID] }.map { view($0, by: user) }
        if excludeOffline {
            let online = Set(userList.filter(\.online).map(\.id))
            memberList.removeAll { !online.contains($0.userID) }
            userList.removeAll { !$0.online }
        }
        return .object(["members": .list(memberList), "users": .list(userList)])
    }

    /// `GET /servers/{id}/members/{member}`: one member, to a member of the server (`NotFound` otherwise, and
    /// for a user who is not a member). Its `timeout` stays as set after it passed, as stoatchat's does.
    func fetchMember(_ memberID: String, in id: String, as user: StoatUser) throws(APIError) -> Wire {
        _ = try server(id, at: "crates/core/database/src/models/servers/ops/mongodb.rs")
        guard member(server: id, user: user.id) != nil else {
            throw APIError(.notFound, at: "crates/delta/src/routes/servers/member_fetch.rs")
        }
        guard let member = member(server: id, user: memberID) else {
            throw APIError(.notFound, at: "crates/core/database/src/models/server_members/ops/mongodb.rs")
        }
        return member.wire
    }

    // MARK: Users

    /// `GET /users/@me` (stoatchat's `into_self(false)`).
    func fetchSelf(_ user: StoatUser) -> Wire {
        user.seen(by: user, online: isOnline(user.id)).wire
    }

    /// `GET /users/{id}`: themselves, or another user they may access (`MissingPermission{Access}` otherwise).
    func fetchUser(_ id: String, as user: StoatUser) throws(APIError) -> Wire {
        if id == user.id { return fetchSelf(user) }
        guard let target = users[id] else {
            throw APIError(.notFound, at: "crates/core/database/src/models/users/ops/mongodb.rs")
        }
        let permissions = userPermissions(user, toward: target)
        guard permissions.contains(.access) else {
            throw APIError(
                .missingPermission, [.init(key: "permission", value: .string("Access"))],
                at: "crates/core/permissions/src/models/mod.rs")
        }
        var seen = target.seen(by: user, online: isOnline(target.id))
        if !permissions.contains(.viewProfile), target.botOwner == nil { seen.online = false }
        return seen.wire
    }

    /// `GET /users/dms`: the user's direct messages, groups and saved notes.
    func fetchDirectMessages(_ user: StoatUser) -> Wire {
        .list(directMessages(of: user.id))
    }

    // MARK: Sync

    /// `POST /sync/settings/fetch`: `{key: [timestamp, value]}` for the keys the user has saved.
    func fetchSettings(keys: [String], as user: StoatUser) -> Wire {
        let values = settings[user.id]?.values ?? [:]
        return .object(
            keys.compactMap { key in
                values[key].map { Wire.Field(key: key, value: .array([.int($0.timestamp), .string($0.value)])) }
            })
    }

    /// `POST /sync/settings/set`: saves the values at `timestamp` (never later than now) and announces them to
    /// the user's sockets as `UserSettingsUpdate`.
    func setSettings(_ values: [(String, String)], timestamp: Int64?, as user: StoatUser) {
        let current = Int64((now().timeIntervalSince1970 * 1000).rounded(.down))
        let stamp = min(timestamp ?? current, current)
        var record = settings[user.id] ?? SettingsRecord(userID: user.id, values: [:])
        for (key, value) in values { record.values[key] = .init(timestamp: stamp, value: value) }
        settings[user.id] = record
        persist(.settings, id: user.id, record)
        let update = Wire.object(values.map { Wire.Field(key: $0.0, value: .array([.int(stamp), .string($0.1)])) })
        publish(.userSettingsUpdate(id: user.id, update: update), to: ["\(user.id)!"])
    }

}
