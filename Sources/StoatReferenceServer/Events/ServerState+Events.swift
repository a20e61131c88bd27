#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The events facet: stoatchat publishes each event to topics (a channel id, a server id, a user id,
/// `<user>!` for a user's private events, `<server>u` for a server's member events); bonfire's listener of
/// each socket subscribed to one of them receives it, once, and adjusts its topics as the event says
/// (`crates/bonfire/src/events/impl.rs`, `handle_incoming_event_v1`).
extension ServerState {
    /// Publishes `event` to `topics`: every listening socket subscribed to one of them receives it once, then
    /// its listener wakes (which renews or expires its subscriptions).
    func publish(_ event: ServerEvent, to topics: [String]) {
        // The reorder fault: a held `Message` goes out after the next event, which overtakes it.
        if holdForReorder(event, to: topics) { return }
        fanOut(event, to: topics)
        for held in releaseHeld() { fanOut(held.event, to: held.topics) }
    }

    /// Delivers `event` to the listening sockets of `topics`.
    func fanOut(_ event: ServerEvent, to topics: [String]) {
        // The gateway fans a server channel's `Message` out to the server only when it carries a member
        // (`consumer.ex`); a webhook's has none, and the channel's direct-message group has no subscriber.
        var webhookInServer = false
        if case .message(let message, _, _) = event, message.webhook != nil,
            channels[message.channel]?.serverID != nil
        {
            webhookInServer = true
        }
        var targets = Set<Int>()
        for topic in Set(topics) { targets.formUnion(connectionsByTopic[topic] ?? []) }
        for id in targets.sorted() {
            guard let connection = connections[id], connection.phase == .listening else { continue }
            // A deaf socket (the deaf fault) misses the event, as a socket of a stalled events bus does.
            guard !faults.deaf, !connection.deaf else { continue }
            // A crashed gateway session process loses what is published until it restarts.
            guard !connection.sessionDown else { continue }
            if webhookInServer, connection.dialect.server == .gateway { continue }
            deliver(event, to: id)
            wake(id)
        }
        changed()
    }

    /// Keeps ``connectionsByTopic`` in step after connection `id`'s topics changed from `old` (its topics now
    /// are read from ``connections``; a closed connection has none).
    func retopic(_ id: Int, from old: Set<String>) {
        let new = connections[id]?.topics ?? []
        guard new != old else { return }
        for topic in old.subtracting(new) {
            connectionsByTopic[topic]?.remove(id)
            if connectionsByTopic[topic]?.isEmpty == true { connectionsByTopic[topic] = nil }
        }
        for topic in new.subtracting(old) { connectionsByTopic[topic, default: []].insert(id) }
    }

    /// What bonfire's listener does with one event for one socket.
    private func deliver(_ event: ServerEvent, to id: Int) {
        guard var connection = connections[id] else { return }
        let topics = connection.topics
        let gateway = connection.dialect.server == .gateway
        switch event {
        case .deleteSession where gateway, .deleteAllSessions where gateway:
            // The gateway's consumer has no clause for either (`lib/stoat_gateway/events/consumer.ex` logs
            // them as unhandled): its sockets are neither told nor closed when a session ends.
            return
        case .deleteSession(_, let sessionID):
            if connection.sessionID == sessionID {
                end(id, with: .logout)
                return
            }
        case .deleteAllSessions(_, let excluded):
            if excluded == nil || connection.sessionID != excluded {
                end(id, with: .logout)
                return
            }
        case .message(let message, let author, let member):
            // Message events are fanned out as one; bonfire rewrites the author's relationship per receiver.
            if var author, let receiver = connection.record.userID.flatMap({ users[$0] }) {
                author.relationship = receiver.relationship(with: message.author)
                connection.socket.send(ServerEvent.message(message, user: author, member: member).wire)
                return
            }
        case .serverMemberLeave(let serverID, let userID, _) where userID == connection.record.userID:
            connection.topics.remove(serverID)
            connection.topics.remove("\(serverID)u")
            connection.activeServers.removeAll { $0.id == serverID }
            for channelID in servers[serverID]?.channels ?? [] { connection.topics.remove(channelID) }
        case .serverCreate(let server, let channelList, _):
            connection.topics.insert(server.id)
            // Bots hear every member event; a gateway socket too (its server process fans them out to all).
            if connection.record.isBot || gateway { connection.topics.insert("\(server.id)u") }
            connection.topics.formUnion(channelList.map(\.id))
        case .channelCreate(let channel):
            connection.topics.insert(channel.id)
        case .channelDelete(let channelID):
            connection.topics.remove(channelID)
        case .serverDelete(let serverID):
            connection.topics.remove(serverID)
            connection.topics.remove("\(serverID)u")
            connection.activeServers.removeAll { $0.id == serverID }
            for channelID in servers[serverID]?.channels ?? [] { connection.topics.remove(channelID) }
        case .serverUpdate:
            if let bulk = recalculated(event, for: &connection) {
                connections[id] = connection
                retopic(id, from: topics)
                connection.socket.send(bulk.wire)
                return
            }
        default:
            break
        }
        connections[id] = connection
        retopic(id, from: topics)
        connection.socket.send(event.wire)
    }

    /// bonfire's `apply_state`, run whenever a socket's listener wakes: each active subscription still within
    /// its lifetime is renewed (lru_time_cache's `notify_iter` refreshes what it visits) and its member events
    /// subscribed; each expired one is dropped and unsubscribed, and recorded as lapsed. Bots keep every
    /// server's member events from Ready instead.
    func wake(_ id: Int) {
        guard var connection = connections[id], !connection.record.isBot else { return }
        let topics = connection.topics
        let instant = now()
        let lifetime = configuration.subscriptionLifetime.seconds
        var kept: [(id: String, renewedAt: Date)] = []
        for entry in connection.activeServers {
            if entry.renewedAt.addingTimeInterval(lifetime) < instant {
                connection.topics.remove("\(entry.id)u")
                connection.record.lapsedSubscriptions.append(
                    entry.id, keepingAtMost: configuration.observationLimits.subscriptionsPerConnection)
            } else {
                kept.append((entry.id, instant))
                connection.topics.insert("\(entry.id)u")
            }
        }
        connection.activeServers = kept
        connections[id] = connection
        retopic(id, from: topics)
    }

    /// The topics a user's profile change reaches (stoatchat's `p_user`): the user and the member events of
    /// every server they are in.
    func userTopics(_ userID: String) -> [String] {
        [userID] + (serverIDsByUser[userID] ?? []).map { "\($0)u" }
    }

    /// `UserUpdate{online}` to the user's servers and the user, when their first socket passes Ready or their
    /// last one closes (bonfire's `broadcast_presence_change`).
    func broadcastPresence(userID: String, online: Bool) {
        let event = ServerEvent.userUpdate(
            id: userID, data: .object(["online": .bool(online)]), clear: [], eventID: Identifiers.ulid(at: now()))
        publish(event, to: (serverIDsByUser[userID] ?? []) + [userID])
    }

    /// Deletes the session: its sockets receive `Logout` and are dropped; the user's other sockets receive
    /// `DeleteSession`, as bonfire forwards it.
    @discardableResult
    func revoke(token: String) -> Bool {
        guard let session = sessions.removeValue(forKey: token) else { return false }
        unpersist(.session, id: session.token)
        endPreparing { $0.sessionID == session.id }
        publish(.deleteSession(userID: session.userID, sessionID: session.id), to: ["\(session.userID)!"])
        changed()
        return true
    }

    /// Deletes every session of `userID` (stoatchat's `delete_all_sessions`): their sockets receive `Logout`.
    func deleteAllSessions(userID: String) {
        for session in sessions.values where session.userID == userID {
            sessions[session.token] = nil
            unpersist(.session, id: session.token)
        }
        endPreparing { $0.record.userID == userID && $0.sessionID != "" }
        publish(.deleteAllSessions(userID: userID, excludeSessionID: nil), to: ["\(userID)!"])
        changed()
    }

    /// Sockets still preparing their Ready would miss the event in bonfire; here they are logged out too, so
    /// that a deleted session never keeps a socket.
    private func endPreparing(where matches: (Connection) -> Bool) {
        for (id, connection) in connections where connection.phase == .preparingReady && matches(connection) {
            end(id, with: .logout)
        }
    }

    /// The slowmodes in force for `userID`, with their remaining seconds (Redis's rounded TTL) as both duration
    /// and retry-after, as bonfire's `fetch_user_slowmodes` reports them.
    func activeSlowmodes(userID: String) -> [ServerEvent.Slowmode] {
        let instant = now()
        var result: [ServerEvent.Slowmode] = []
        for (channelID, until) in (slowmodes[userID] ?? [:]).sorted(by: { $0.key < $1.key }) {
            let remaining = UInt64(max(0, (until.timeIntervalSince(instant)).rounded()))
            if remaining > 0 {
                result.append(.init(channelID: channelID, duration: remaining, retryAfter: remaining))
            } else {
                slowmodes[userID]?[channelID] = nil
            }
        }
        return result
    }
}
