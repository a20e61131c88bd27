#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The messages facet: what happens to messages after they are sent and what a user has read — reactions
/// (`message_react.rs`, `message_unreact.rs`, `message_clear_reactions.rs`), embeds appended
/// (`Message::append`), bulk deletion (`message_bulk_delete.rs`), acknowledgements (`channel_ack.rs`) and
/// the read state `GET /sync/unreads` answers (`crates/core/database/src/models/channel_unreads/`), with the
/// events `crates/core/database/src/models/messages/model.rs` publishes; and the server-wide changes whose
/// events a client must survive: a server deleted, and its default permissions changed (bonfire then sends
/// each socket a `Bulk` of the channels it gained and lost, `crates/bonfire/src/events/impl.rs`).
///
/// stoatchat debounces acknowledgements and mentions through its task queues (`tasks/ack.rs`); here both take
/// effect at once, as `last_message_id` does.
extension ServerState {
    /// Distinct emojis one message may carry (`features.limits.global.message_reactions`).
    static let maximumReactions = 20
    /// How old a message may be to be bulk deleted (7 days).
    static let bulkDeleteWindow: TimeInterval = 7 * 24 * 3600

    // MARK: Read state

    /// stoatchat's `add_mention_to_unread` for each of `recipients`: the message joins their unacknowledged
    /// mentions of the channel (the record is created without a `last_id` when there is none).
    func addMention(_ messageID: String, in channelID: String, for recipients: [String]) {
        for user in recipients {
            var record =
                unreads["\(channelID):\(user)"]
                ?? UnreadRecord(channel: channelID, user: user, lastID: nil, mentions: nil)
            record.mentions = (record.mentions ?? []) + [messageID]
            upsert(unread: record)
        }
    }

    /// Who a message mentions for the read state, as `Message::send` queues it (`tasks::ack`) and pushd's mass
    /// mention consumer adds it (`crates/daemons/pushd/src/consumers/inbound/mass_mention.rs`): nobody when
    /// notifications are suppressed (`SuppressNotifications`, bit 1: the value 2); in a direct message or a
    /// group, every recipient but the author; in a server channel, the users it mentions, and with
    /// `MentionsEveryone` (the value 4) every member of the server — the author too, as pushd's
    /// `add_mention_to_many_unreads` does. Role mentions and `@online` only push: they add no mention to the read
    /// state.
    func mentionRecipients(of message: StoatMessage, in channel: StoatChannel) -> [String] {
        guard message.flags & 2 == 0 else { return [] }
        switch channel.kind {
        case .directMessage, .group: return channel.recipients.filter { $0 != message.author }
        case .textChannel:
            var recipients = message.mentions ?? []
            if message.flags & 4 != 0, let serverID = channel.serverID {
                for member in memberIDsByServer[serverID] ?? [] where !recipients.contains(member) {
                    recipients.append(member)
                }
            }
            return recipients
        default: return []
        }
    }

    /// `GET /sync/unreads`: the user's read states, in the order they were made.
    func fetchUnreads(_ user: StoatUser) -> Wire {
        .array((unreadKeysByUser[user.id] ?? []).compactMap { unreads[$0] }.map(Self.unreadWire))
    }

    static func unreadWire(_ record: UnreadRecord) -> Wire {
        .object([
            "_id": .object(["channel": .string(record.channel), "user": .string(record.user)]),
            "last_id": .str(record.lastID),
            "mentions": record.mentions.map { .strings($0) },
        ])
    }

    /// `PUT /channels/{id}/ack/{message}`: not for bots (`IsBot`), needs `ViewChannel`; `ChannelAck` to the
    /// user's sockets, then the read state moves to `messageID` (any id: stoatchat does not look it up) and the
    /// mentions up to it are dropped, as MongoDB's `$set` and `$pull … $lte` do — unconditionally: an ack of an
    /// older message moves the marker back. The event goes out before the write (`Channel::ack`), so a write that
    /// fails (the ack-write fault: `InternalError`) leaves a `ChannelAck` for a read state that never moved.
    func acknowledge(_ messageID: String, in channelID: String, as user: StoatUser) throws(APIError) {
        let location = "crates/delta/src/routes/channels/channel_ack.rs"
        if user.botOwner != nil { throw APIError(.isBot, at: location) }
        let channel = try channel(channelID, at: "crates/core/database/src/models/channels/ops/mongodb.rs")
        try require(.viewChannel, of: user, in: channel, at: location)
        publish(.channelAck(channel: channelID, user: user.id, messageID: messageID), to: ["\(user.id)!"])
        if faults.failAckWrites > 0 {
            faults.failAckWrites -= 1
            throw APIError(.internalError, at: "crates/core/database/src/util/acker.rs")
        }
        var record =
            unreads["\(channelID):\(user.id)"]
            ?? UnreadRecord(channel: channelID, user: user.id, lastID: nil, mentions: nil)
        record.lastID = messageID
        record.mentions = record.mentions.map { $0.filter { $0 > messageID } }
        upsert(unread: record)
    }

    // MARK: Reactions

    /// Whether stoatchat's `Emoji::can_use` accepts `emoji`: a custom emoji's id that exists, or a Unicode
    /// emoji (stoatchat checks a fixed list; this server takes one grapheme whose first scalar is an emoji).
    func isUsableEmoji(_ emoji: String) throws(APIError) -> Bool {
        if emoji.count == 26, Identifiers.time(ofULID: emoji.uppercased()) != nil {
            guard emojis[emoji.uppercased()] != nil || emojis[emoji] != nil else {
                throw APIError(.notFound, at: "crates/core/database/src/models/emojis/ops/mongodb.rs")
            }
            return true
        }
        let plain = emoji.replacingOccurrences(of: "\u{FE0F}", with: "")
        guard plain.count == 1, let first = plain.unicodeScalars.first else { return false }
        return first.properties.isEmoji && (first.properties.isEmojiPresentation || plain.unicodeScalars.count > 1)
    }

    /// The message `messageID` of `channelID` (`as_message_in_channel`), or `NotFound`.
    func message(_ messageID: String, in channelID: String) throws(APIError) -> StoatMessage {
        guard let message = messages[messageID], message.channel == channelID else {
            throw APIError(.notFound, at: "crates/core/database/src/util/reference.rs")
        }
        return message
    }

    /// `PUT /channels/{id}/messages/{msg}/reactions/{emoji}` (`Message::add_reaction`): needs `React`; at most
    /// 20 distinct emojis; `MessageReact` to the channel — sent before the store is written, so also when the
    /// user had already reacted, as stoatchat's is.
    func react(_ messageID: String, in channelID: String, emoji: String, as user: StoatUser) throws(APIError) {
        let channel = try channel(channelID, at: "crates/core/database/src/models/channels/ops/mongodb.rs")
        try require(.react, of: user, in: channel, at: "crates/delta/src/routes/channels/message_react.rs")
        var message = try message(messageID, in: channelID)
        let modelLocation = "crates/core/database/src/models/messages/model.rs"
        var reactions = message.reactions ?? []
        if reactions.count >= Self.maximumReactions, !reactions.contains(where: { $0.emoji == emoji }) {
            throw APIError(.invalidOperation, at: modelLocation)
        }
        guard try isUsableEmoji(emoji) else { throw APIError(.invalidOperation, at: modelLocation) }
        publish(.messageReact(id: messageID, channel: channelID, user: user.id, emoji: emoji), to: [channelID])
        if let index = reactions.firstIndex(where: { $0.emoji == emoji }) {
            if !reactions[index].users.contains(user.id) { reactions[index].users.append(user.id) }
        } else {
            reactions.append(.init(emoji: emoji, users: [user.id]))
        }
        message.reactions = reactions
        upsert(message: message)
    }

    /// `DELETE /channels/{id}/messages/{msg}/reactions/{emoji}?user_id=&remove_all=`: needs `React`, and
    /// `ManageMessages` for someone else's reaction or all of them. `remove_all` is `MessageRemoveReaction`
    /// (whether or not anyone reacted so); otherwise the reaction must exist (`NotFound`) and
    /// `MessageUnreact` is sent, the emoji going with its last user.
    func unreact(
        _ messageID: String, in channelID: String, emoji: String, userID: String?, removeAll: Bool, as user: StoatUser
    ) throws(APIError) {
        let location = "crates/delta/src/routes/channels/message_unreact.rs"
        let channel = try channel(channelID, at: "crates/core/database/src/models/channels/ops/mongodb.rs")
        try require(.react, of: user, in: channel, at: location)
        if userID != nil || removeAll { try require(.manageMessages, of: user, in: channel, at: location) }
        var message = try message(messageID, in: channelID)
        var reactions = message.reactions ?? []
        if removeAll {
            publish(.messageRemoveReaction(id: messageID, channel: channelID, emoji: emoji), to: [channelID])
            reactions.removeAll { $0.emoji == emoji }
        } else {
            let target = userID ?? user.id
            guard let index = reactions.firstIndex(where: { $0.emoji == emoji }),
                reactions[index].users.contains(target)
            else { throw APIError(.notFound, at: "crates/core/database/src/models/messages/model.rs") }
            publish(
                .messageUnreact(id: messageID, channel: channelID, user: target, emoji: emoji), to: [channelID])
            reactions[index].users.removeAll { $0 == target }
            if reactions[index].users.isEmpty { reactions.remove(at: index) }
        }
        message.reactions = reactions.isEmpty ? nil : reactions
        upsert(message: message)
    }

    /// `DELETE /channels/{id}/messages/{msg}/reactions`: needs `ManageMessages`; stoatchat updates the message
    /// with empty reactions, so the channel hears `MessageUpdate {data: {reactions: {}}}`.
    func clearReactions(_ messageID: String, in channelID: String, as user: StoatUser) throws(APIError) {
        let channel = try channel(channelID, at: "crates/core/database/src/models/channels/ops/mongodb.rs")
        try require(
            .manageMessages, of: user, in: channel, at: "crates/delta/src/routes/channels/message_clear_reactions.rs")
        var message = try message(messageID, in: channelID)
        message.reactions = nil
        upsert(message: message)
        publish(
            .messageUpdate(id: messageID, channel: channelID, data: .object(["reactions": .object([])]), clear: []),
            to: [channelID])
    }

    // MARK: Embeds

    /// `Message::append`: embeds added to a message (stoatchat's link-preview task does it after a send),
    /// `MessageAppend {id, channel, append: {embeds}}` to the channel.
    func appendEmbeds(_ embeds: [JSONValue], to messageID: String) throws(ReferenceServerError) -> StoatMessage {
        guard var message = messages[messageID] else {
            throw ReferenceServerError(code: .notFound, message: "No message \(messageID)")
        }
        message.embeds = (message.embeds ?? []) + embeds
        upsert(message: message)
        publish(
            .messageAppend(id: messageID, channel: message.channel, embeds: embeds.map(\.wire)),
            to: [message.channel])
        return message
    }

    // MARK: Bulk deletion

    /// `DELETE /channels/{id}/messages/bulk` `{"ids": […]}` (1–100 ids): every id must be a ULID of the last
    /// 7 days (`InvalidOperation`), the user needs `ManageMessages` — also for their own messages; the ids that
    /// are messages of this channel are deleted and named in one `BulkMessageDelete`. Unlike a single deletion,
    /// stoatchat's bulk deletion leaves `last_message_id` as it was, even when it names a deleted message.
    func bulkDelete(_ ids: [String], in channelID: String, as user: StoatUser) throws(APIError) {
        let location = "crates/delta/src/routes/channels/message_bulk_delete.rs"
        guard (1...100).contains(ids.count) else {
            throw .validation(
                "ids: Validation error: length [{\"max\": Number(100), \"min\": Number(1)}]", at: location)
        }
        let instant = now()
        for id in ids {
            guard let sent = Identifiers.time(ofULID: id.uppercased()) else {
                throw APIError(.invalidOperation, at: location)
            }
            if instant.timeIntervalSince(sent) > Self.bulkDeleteWindow {
                throw APIError(.invalidOperation, at: location)
            }
        }
        let channel = try channel(channelID, at: "crates/core/database/src/models/channels/ops/mongodb.rs")
        try require(.manageMessages, of: user, in: channel, at: location)
        let requested = Set(ids)
        let valid = (messageIDsByChannel[channelID] ?? []).filter(requested.contains)
        for id in valid { removeMessage(id) }
        publish(.bulkMessageDelete(channel: channelID, ids: valid), to: [channelID])
    }

    // MARK: Servers

    /// Sets a server's default permissions (stoatchat's `Server::update`): `ServerUpdate {data:
    /// {default_permissions}}` to the server, which every member's socket receives inside a `Bulk` after the
    /// `ChannelDelete`s and `ChannelCreate`s of the channels it lost and gained (see ``recalculated(_:for:)``).
    func setDefaultPermissions(serverID: String, permissions: Int64) throws(ReferenceServerError) {
        guard var server = servers[serverID] else {
            throw ReferenceServerError(code: .notFound, message: "No server \(serverID)")
        }
        server.defaultPermissions = permissions
        upsert(server: server)
        publish(
            .serverUpdate(id: serverID, data: .object(["default_permissions": .int(permissions)]), clear: []),
            to: [serverID])
    }

    /// Deletes a server (stoatchat's `Server::delete`): `ServerDelete` to the server's sockets, which stop
    /// listening to it and its channels; its channels, their messages and its members go.
    func deleteServer(_ serverID: String) throws(ReferenceServerError) {
        guard let server = servers[serverID] else {
            throw ReferenceServerError(code: .notFound, message: "No server \(serverID)")
        }
        publish(.serverDelete(id: serverID), to: [serverID])
        for channelID in server.channels {
            for id in messageIDsByChannel[channelID] ?? [] { removeMessage(id) }
            messageIDsByChannel[channelID] = nil
            channels[channelID] = nil
            channelOrder.removeAll { $0 == channelID }
            unpersist(.channel, id: channelID)
        }
        for userID in memberIDsByServer[serverID] ?? [] {
            removeMember(StoatMember.Key(server: serverID, user: userID))
        }
        memberIDsByServer[serverID] = nil
        servers[serverID] = nil
        serverOrder.removeAll { $0 == serverID }
        unpersist(.server, id: serverID)
    }

    /// What bonfire's `recalculate_server` makes of a server event for one socket: the server's channels the
    /// socket listened to and may no longer view become `ChannelDelete`, those it may view and did not listen
    /// to `ChannelCreate`; with any of them the socket receives `Bulk {v: [those…, the event]}`, and its topics
    /// follow. Without a change, nil: the event goes as it is.
    func recalculated(_ event: ServerEvent, for connection: inout Connection) -> ServerEvent? {
        guard case .serverUpdate(let serverID, .object(let fields), _) = event,
            fields.contains(where: { $0.key == "default_permissions" }), let server = servers[serverID],
            let user = connection.record.userID.flatMap({ users[$0] })
        else { return nil }
        var events: [ServerEvent] = []
        for channelID in server.channels where connection.topics.contains(channelID) {
            guard let channel = channels[channelID], !canView(user, channel) else { continue }
            connection.topics.remove(channelID)
            events.append(.channelDelete(id: channelID))
        }
        for channelID in server.channels where !connection.topics.contains(channelID) {
            guard let channel = channels[channelID], canView(user, channel) else { continue }
            connection.topics.insert(channelID)
            events.append(.channelCreate(channel))
        }
        guard !events.isEmpty else { return nil }
        return .bulk(events + [event])
    }
}

/// The messages facet's world actions: what other users do to messages and read states, by the same rules as
/// the routes, for ``ReferenceServer`` and the admin API.
extension ServerState {
    func user(_ userID: String) throws(ReferenceServerError) -> StoatUser {
        guard let user = users[userID] else {
            throw ReferenceServerError(code: .notFound, message: "No user \(userID)")
        }
        return user
    }

    func react(as userID: String, messageID: String, emoji: String, add: Bool) throws(ReferenceServerError) {
        let user = try user(userID)
        guard let message = messages[messageID] else {
            throw ReferenceServerError(code: .notFound, message: "No message \(messageID)")
        }
        do {
            if add {
                try react(messageID, in: message.channel, emoji: emoji, as: user)
            } else {
                try unreact(messageID, in: message.channel, emoji: emoji, userID: nil, removeAll: false, as: user)
            }
        } catch {
            throw Self.refused(error)
        }
    }

    func bulkDelete(as userID: String, ids: [String], channelID: String) throws(ReferenceServerError) {
        let user = try user(userID)
        do { try bulkDelete(ids, in: channelID, as: user) } catch { throw Self.refused(error) }
    }

    func acknowledge(as userID: String, channelID: String, messageID: String) throws(ReferenceServerError) {
        let user = try user(userID)
        do { try acknowledge(messageID, in: channelID, as: user) } catch { throw Self.refused(error) }
    }

    /// A user's read states, as `GET /sync/unreads` lists them.
    func unreadRecords(userID: String) -> [UnreadRecord] {
        (unreadKeysByUser[userID] ?? []).compactMap { unreads[$0] }
    }
}
