#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The lag facet: where stoatchat is late or loses events, and the server with it — the debounced
/// `last_message_id` (``LastMessageIDQueue``), the gateway's session process restarting under an open socket
/// (`stoatchat/gateway`'s `session.ex`: `restart: :transient`, `handle_continue(:ready)`), events overtaking
/// each other across the gateway consumer's parallel processors (`consumer.ex`, `concurrency: 100`), and a
/// webhook's message in a server channel, which the gateway fans out to nobody.
extension ServerState {
    // MARK: last_message_id

    /// A send stored `messageID` in `channel`: its `last_message_id` (and a direct message's `active`) follows
    /// when stoatchat's task commits it, or at once with the lag off.
    func queueLastMessageID(_ messageID: String, in channel: StoatChannel) {
        let isDirectMessage = channel.kind == .directMessage
        guard faults.lastMessageIDLag else {
            commitLastMessageID(messageID, channelID: channel.id, isDirectMessage: isDirectMessage)
            return
        }
        let instant = now()
        var queue = lastMessageIDQueue ?? LastMessageIDQueue(origin: instant)
        let commits = queue.push(channel: channel.id, id: messageID, isDirectMessage: isDirectMessage, at: instant)
        lastMessageIDQueue = queue
        apply(commits)
    }

    /// Commits the `last_message_id` updates due by the server's clock now. Called before anything reads a
    /// channel: every Stoat request, every `Ready`, the admin API's channel.
    func settleLastMessageIDs() {
        // A `Message` the reorder fault held back goes out before anything else is answered.
        for held in releaseHeld() { fanOut(held.event, to: held.topics) }
        guard var queue = lastMessageIDQueue, !queue.isEmpty else { return }
        let commits = queue.due(at: now())
        lastMessageIDQueue = queue
        apply(commits)
    }

    /// The channel `id` with what stoatchat committed by now.
    func settledChannel(_ id: String) -> StoatChannel? {
        settleLastMessageIDs()
        return channels[id]
    }

    /// Turns the `last_message_id` lag on or off; off commits every pending update at once.
    func setLastMessageIDLag(_ enabled: Bool) {
        faults.lastMessageIDLag = enabled
        if !enabled, var queue = lastMessageIDQueue {
            let commits = queue.flush()
            lastMessageIDQueue = queue
            apply(commits)
        }
        changed()
    }

    /// Updates dropped because stoatchat's queue was full.
    var droppedLastMessageIDs: Int { lastMessageIDQueue?.dropped ?? 0 }

    private func apply(_ commits: [LastMessageIDQueue.Commit]) {
        for commit in commits {
            commitLastMessageID(commit.id, channelID: commit.channel, isDirectMessage: commit.isDirectMessage)
        }
    }

    /// `db.update_channel(key, PartialChannel { last_message_id, active? })`: unconditional, and silent.
    private func commitLastMessageID(_ messageID: String, channelID: String, isDirectMessage: Bool) {
        guard var channel = channels[channelID] else { return }
        channel.lastMessageID = messageID
        if isDirectMessage { channel.active = true }
        upsert(channel: channel)
    }

    // MARK: The gateway's session restarting

    /// The gateway's session processes of `userID` crash: each of the user's gateway sockets stays open (the
    /// socket handler keeps it, answering `Ping`), and every event published until
    /// ``restoreGatewaySessions(userID:)`` is lost. Returns how many sockets.
    func crashGatewaySessions(userID: String) -> Int {
        var count = 0
        for (id, connection) in connections
        where connection.dialect.server == .gateway && connection.phase == .listening
            && connection.record.userID == userID && !connection.sessionDown
        {
            connections[id]?.sessionDown = true
            count += 1
        }
        changed()
        return count
    }

    /// The supervisor restarts the crashed session processes of `userID`: each sends a new `Ready` on its open
    /// socket (`handle_continue(:ready)`), and events reach it again from then on. Returns how many sockets.
    func restoreGatewaySessions(userID: String) -> Int {
        settleLastMessageIDs()
        var count = 0
        for (id, connection) in connections where connection.sessionDown && connection.phase == .listening {
            guard connection.record.userID == userID, let user = users[userID] else { continue }
            connections[id]?.sessionDown = false
            let (wire, topics) = gatewayReady(for: user, fields: connection.gatewayFields)
            let previous = connection.topics
            connections[id]?.topics = topics
            retopic(id, from: previous)
            connection.socket.send(wire)
            count += 1
        }
        changed()
        return count
    }

    // MARK: Events overtaking each other

    /// The next `count` `Message` events are each overtaken by the event published after them.
    func reorderMessages(_ count: Int) {
        faults.reorderMessages = max(0, count)
        changed()
    }

    /// Whether `event` is held back by the reorder fault (it then goes out after the next event).
    func holdForReorder(_ event: ServerEvent, to topics: [String]) -> Bool {
        guard faults.reorderMessages > 0, case .message = event else { return false }
        faults.reorderMessages -= 1
        heldMessages.append((event, topics))
        return true
    }

    /// The events held back, to publish now that another event overtook them.
    func releaseHeld() -> [(event: ServerEvent, topics: [String])] {
        defer { heldMessages = [] }
        return heldMessages
    }

    // MARK: Webhooks

    /// A webhook's message in `channelID` (`POST /webhooks/{id}/{token}`, `webhook_execute.rs`): its author is
    /// the webhook's id, it carries `webhook: {name, avatar?}` and neither `user` nor `member`. Stored and
    /// queued as any send; bonfire publishes it to the channel, while the gateway fans a server channel's
    /// message out only when it carries a member (`consumer.ex`), so there it reaches no socket.
    func postWebhookMessage(
        channelID: String, name: String, content: String
    ) throws(ReferenceServerError) -> StoatMessage {
        guard let channel = channels[channelID] else {
            throw ReferenceServerError(code: .notFound, message: "No channel \(channelID)")
        }
        let instant = now()
        // The webhook's id: a ULID made for it (stoatchat makes one when the webhook is created).
        let webhookID = Identifiers.ulid(at: instant)
        var message = StoatMessage(
            id: messageIDs.next(at: instant), channel: channel.id, author: webhookID, content: content)
        message.webhook = StoatMessage.Webhook(name: name, avatar: nil)
        upsert(message: message)
        queueLastMessageID(message.id, in: channel)
        publish(.message(message, user: nil, member: nil), to: [channel.id])
        return message
    }
}

/// The routes a second client library calls that the rest of the REST facet lacked.
extension ServerState {
    /// `GET /channels/{id}/messages/{msg}` (`message_fetch.rs`): `ViewChannel` and `ReadMessageHistory`, then the
    /// message, `NotFound` when it is of another channel.
    func fetchMessage(_ messageID: String, in channelID: String, as user: StoatUser) throws(APIError) -> Wire {
        let location = "crates/delta/src/routes/channels/message_fetch.rs"
        let channel = try channel(channelID, at: "crates/core/database/src/models/channels/ops/mongodb.rs")
        try require(.viewChannel, of: user, in: channel, at: location)
        try require(.readMessageHistory, of: user, in: channel, at: location)
        guard let message = messages[messageID], message.channel == channel.id else {
            throw APIError(.notFound, at: "crates/core/database/src/util/reference.rs")
        }
        return message.wire
    }

    /// `GET /users/{id}/profile` (`fetch_profile.rs`): one's own at once, another's with `ViewProfile`. The users
    /// here have no profile text or background, so it is `{}` (`UserProfile`'s default, its fields skipped).
    func fetchProfile(_ targetID: String, as user: StoatUser) throws(APIError) -> Wire {
        if targetID == user.id { return .object([]) }
        guard let target = users[targetID] else {
            throw APIError(.notFound, at: "crates/core/database/src/models/users/ops/mongodb.rs")
        }
        guard userPermissions(user, toward: target).contains(.viewProfile) else {
            throw APIError(
                .missingPermission, [.init(key: "permission", value: .string("ViewProfile"))],
                at: "crates/core/permissions/src/models/mod.rs")
        }
        return .object([])
    }

    /// `GET /users/{id}/dm` (`open_dm.rs`, `Channel::create_dm`): with the user permission `SendMessage`, the
    /// direct message with the target (made, active, and announced as `ChannelCreate` when there was none);
    /// the user's saved messages when the target is the user.
    func openDirectMessage(with targetID: String, as user: StoatUser) throws(APIError) -> Wire {
        guard let target = users[targetID] else {
            throw APIError(.notFound, at: "crates/core/database/src/models/users/ops/mongodb.rs")
        }
        guard userPermissions(user, toward: target).contains(.sendMessage) else {
            throw APIError(
                .missingPermission, [.init(key: "permission", value: .string("SendMessage"))],
                at: "crates/core/permissions/src/models/mod.rs")
        }
        if target.id == user.id {
            if let saved = channels.values.first(where: { $0.kind == .savedMessages && $0.user == user.id }) {
                return saved.wire
            }
            let saved = StoatChannel.savedMessages(id: Identifiers.ulid(at: now()), user: user.id)
            upsert(channel: saved)
            return saved.wire
        }
        do {
            return try openDirectMessage(user.id, target.id).wire
        } catch {
            throw APIError(.notFound, at: "crates/core/database/src/models/users/ops/mongodb.rs")
        }
    }
}
