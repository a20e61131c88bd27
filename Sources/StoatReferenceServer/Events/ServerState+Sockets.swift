import NIOCore
import NIOWebSocket

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The sockets facet: bonfire's connection life cycle (`crates/bonfire/src/websocket.rs`): authenticate,
/// Ready, then a worker for the client's frames and a listener for the events of its topics.
extension ServerState {
    /// Whether the next upgrade may go ahead; counts it either way, and counts an arrival in its bin.
    func admitUpgrade() -> Bool {
        defer { changed() }
        if faults.refuseUpgrades > 0 {
            faults.refuseUpgrades -= 1
            upgradesRefused += 1
            return false
        }
        upgradesAccepted += 1
        countArrival()
        return true
    }

    func open(socket: LiveSocket, filter: ReadyFilter, gatewayFields: GatewayReadyFields = .standard) -> Int {
        let id = nextConnectionID
        nextConnectionID += 1
        let record = ConnectionRecord(
            id: id, acceptedAt: now(), token: nil, userID: nil, isBot: false, isOpen: true, isAuthenticated: false,
            receivedReady: false, receivedFrames: [], subscriptions: [], activeSubscriptions: [],
            lapsedSubscriptions: [], memberEventServers: [])
        connections[id] = Connection(
            record: record, socket: socket, filter: filter, gatewayFields: gatewayFields, silent: faults.silent)
        changed()
        return id
    }

    /// The socket closed, whoever closed it: its presence session ends.
    func close(connectionID: Int) {
        guard var connection = connections.removeValue(forKey: connectionID) else { return }
        noteLoadClose(connectionID: connectionID)
        retopic(connectionID, from: connection.topics)
        connection.record.isOpen = false
        keepClosed(connection.record)
        if connection.inPresence, let userID = connection.record.userID {
            presence[userID]?.remove(connectionID)
            if presence[userID]?.isEmpty == true {
                presence[userID] = nil
                broadcastPresence(userID: userID, online: false)
            }
        }
        changed()
    }

    /// A text frame from the client: recorded, then handled as bonfire would in the connection's phase.
    func received(_ text: String, connectionID: Int) {
        guard connections[connectionID] != nil else { return }
        recordFrame(text, connectionID: connectionID)
        noteLoadFrame(text, connectionID: connectionID)
        defer { changed() }
        guard let connection = connections[connectionID], !connection.silent else { return }
        switch connection.phase {
        case .awaitingAuthentication:
            // Before Authenticate, bonfire reads frames only to find one; everything else is ignored, Ping too.
            if case .authenticate(let token) = ClientFrame(text: text) {
                authenticate(token: token, connectionID: connectionID)
            }
        case .preparingReady:
            // bonfire's worker starts after Ready: until then the frames wait, unread.
            connections[connectionID]?.pendingFrames.append(text)
        case .listening:
            handle(ClientFrame(text: text), connectionID: connectionID)
        case .ended:
            return
        }
    }

    /// A message from the client, of either opcode, handled as the socket's events server and format do:
    ///
    /// - bonfire reads only the opcode of its format (`ProtocolConfiguration::decode` in
    ///   `crates/bonfire/src/config.rs`): text in JSON, binary in MessagePack (`rmp_serde`, which reads `str`
    ///   and `bin` alike as strings); a frame of the other opcode does not decode and is skipped.
    /// - the gateway decodes the bytes of either opcode with its format's decoder (``gatewayReceived(_:connectionID:)``).
    ///
    /// A MessagePack frame is recorded as the JSON it stands for (keys sorted), or as `<binary N bytes>`.
    func received(_ message: InboundMessage, connectionID: Int) {
        guard let connection = connections[connectionID] else { return }
        switch (connection.dialect.server, connection.dialect.format, message) {
        case (.gateway, _, .text(let text)):
            recordGatewayFrame(text, connectionID: connectionID)
            gatewayReceived(Array(text.utf8), connectionID: connectionID)
        case (.gateway, _, .binary(let bytes)):
            recordGatewayFrame(Self.rendering(bytes), connectionID: connectionID)
            gatewayReceived(bytes, connectionID: connectionID)
        case (_, .json, .text(let text)):
            received(text, connectionID: connectionID)
        case (_, .messagePack, .binary(let bytes)):
            if let json = MessagePackValue(bytes: bytes)?.bonfireJSON, case .object = json {
                received(json.wire.text, connectionID: connectionID)
            } else {
                recordFrame(Self.rendering(bytes), connectionID: connectionID)
                changed()
            }
        case (_, _, .text(let text)):
            recordFrame(text, connectionID: connectionID)
            changed()
        case (_, _, .binary(let bytes)):
            recordFrame("<binary \(bytes.count) bytes>", connectionID: connectionID)
            changed()
        }
    }

    private func recordGatewayFrame(_ text: String, connectionID: Int) {
        recordFrame(text, connectionID: connectionID)
        noteLoadFrame(text, connectionID: connectionID)
        changed()
    }

    /// A binary frame as recorded: the JSON its MessagePack stands for, or a placeholder.
    private static func rendering(_ bytes: [UInt8]) -> String {
        MessagePackValue(bytes: bytes)?.bonfireJSON?.wire.text ?? "<binary \(bytes.count) bytes>"
    }

    /// bonfire's worker: the frames of an authenticated socket.
    private func handle(_ frame: ClientFrame, connectionID: Int) {
        guard let connection = connections[connectionID], let userID = connection.record.userID else { return }
        switch frame {
        case .ping(let data):
            guard !faults.ignorePings else { return }
            connection.socket.send(ServerEvent.pong(data).wire)
        case .subscribe(let serverID):
            if !connection.record.subscriptions.contains(serverID) {
                connections[connectionID]?.record.subscriptions.append(
                    serverID, keepingAtMost: configuration.observationLimits.subscriptionsPerConnection)
            }
            subscribe(connectionID: connectionID, serverID: serverID, userID: userID)
        case .beginTyping(let channel):
            guard connection.topics.contains(channel) else { return }
            publish(.channelStartTyping(channel: channel, user: userID), to: [channel])
        case .endTyping(let channel):
            guard connection.topics.contains(channel) else { return }
            publish(.channelStopTyping(channel: channel, user: userID), to: [channel])
        case .authenticate, .pingWithInvalidData, .unknown, .malformed:
            // Like bonfire: no answer, and the connection stays open.
            return
        }
    }

    /// `Subscribe`: a member's server enters the socket's active-server cache (at most
    /// `maximumSubscriptions`, evicting the least recently renewed), or is renewed; a new one wakes the
    /// listener, which subscribes to the server's member events.
    private func subscribe(connectionID: Int, serverID: String, userID: String) {
        guard member(server: serverID, user: userID) != nil, var connection = connections[connectionID] else {
            return
        }
        let instant = now()
        let lifetime = configuration.subscriptionLifetime.seconds
        let hadItem = connection.activeServers.contains {
            $0.id == serverID && $0.renewedAt.addingTimeInterval(lifetime) >= instant
        }
        // lru_time_cache's insert drops expired entries without telling anyone: their topics stay subscribed.
        connection.activeServers.removeAll { $0.renewedAt.addingTimeInterval(lifetime) < instant }
        if let index = connection.activeServers.firstIndex(where: { $0.id == serverID }) {
            connection.activeServers.remove(at: index)
        } else if connection.activeServers.count >= configuration.maximumSubscriptions {
            // Eviction is silent too: the evicted server's member events keep coming.
            connection.activeServers.removeFirst(
                connection.activeServers.count - configuration.maximumSubscriptions + 1)
        }
        connection.activeServers.append((serverID, instant))
        connections[connectionID] = connection
        if !hadItem { wake(connectionID) }
    }

    // MARK: Authentication and Ready

    /// `Authenticate`, or the `token` query item: a session token, else a bot token; anything else is answered
    /// `Error{InvalidSession}` and the connection dropped.
    func authenticate(token: String, connectionID: Int) {
        guard let connection = connections[connectionID], !connection.silent,
            connection.phase == .awaitingAuthentication
        else { return }
        if connection.dialect.server == .gateway {
            gatewayAuthenticate(token: .binary(Array(token.utf8)), connectionID: connectionID)
            return
        }
        connections[connectionID]?.record.token = token
        observeSessionToken(token)
        guard let (user, sessionID) = socketIdentity(token: token) else {
            end(
                connectionID,
                with: .error(APIError(.invalidSession, at: "crates/core/database/src/models/users/model.rs")))
            return
        }
        if let session = sessions[token] {
            sessions[token]?.lastSeen = now()
            persist(.session, id: token, sessions[token] ?? session)
        }
        connections[connectionID]?.record.userID = user.id
        connections[connectionID]?.record.isBot = user.botOwner != nil
        connections[connectionID]?.record.isAuthenticated = true
        connections[connectionID]?.sessionID = sessionID
        connections[connectionID]?.phase = .preparingReady
        connection.socket.send(ServerEvent.authenticated.wire)
        let (payload, topics) = readyPayload(for: user, filter: connection.filter)
        let previous = connections[connectionID]?.topics ?? []
        connections[connectionID]?.topics = topics
        retopic(connectionID, from: previous)
        changed()
        let delay = faults.readyDelay
        let minimumBytes = faults.readyMinimumBytes
        let dialect = connection.dialect
        // Detached so that the encoding runs off the actor: a large Ready must not stall other connections.
        Task.detached {
            await self.readyMayGo()
            if let delay { try? await Task.sleep(for: delay) }
            let frame = dialect.frame(payload.paddedWire(minimumBytes: minimumBytes))
            await self.deliverReady(frame, connectionID: connectionID)
        }
    }

    /// The user and session id a socket token stands for (stoatchat's `User::from_token` with `UserHint::Any`):
    /// a session of an onboarded user, else a bot's token. Nil while the session-lookup outage is in force.
    func socketIdentity(token: String) -> (StoatUser, String)? {
        if sessionOutageActive() {
            outageSocketRefusals += 1
            return nil
        }
        if let session = sessions[token], let user = users[session.userID] { return (user, session.id) }
        if let botID = botIDByToken[token], let user = users[botID] { return (user, "") }
        return nil
    }

    private func deliverReady(_ frame: Outbound, connectionID: Int) {
        guard let connection = connections[connectionID], connection.phase == .preparingReady,
            let userID = connection.record.userID
        else { return }
        connection.socket.outbound.yield(frame)
        connections[connectionID]?.record.receivedReady = true
        if dropIfFaulted(connectionID) { return }
        let slowmodes = activeSlowmodes(userID: userID)
        if !slowmodes.isEmpty { connection.socket.send(ServerEvent.userSlowmodes(slowmodes).wire) }
        sendHostileFrames(connectionID)
        let first = presence[userID, default: []].isEmpty
        presence[userID, default: []].insert(connectionID)
        connections[connectionID]?.inPresence = true
        // The presence broadcast goes out before this socket listens, so it does not hear its own.
        if first { broadcastPresence(userID: userID, online: true) }
        connections[connectionID]?.phase = .listening
        let pending = connections[connectionID]?.pendingFrames ?? []
        connections[connectionID]?.pendingFrames = []
        for frame in pending {
            guard connections[connectionID]?.phase == .listening else { break }
            handle(ClientFrame(text: frame), connectionID: connectionID)
        }
        changed()
    }

    /// The Ready `user` receives and the topics the socket then listens to (bonfire's
    /// `generate_ready_payload`): the users related to them (relations, direct message and group recipients)
    /// and themselves last, their servers, their direct messages then the server channels they may view, their
    /// own memberships and their servers' emojis.
    func readyPayload(for user: StoatUser, filter: ReadyFilter) -> (ReadyPayload, Set<String>) {
        settleLastMessageIDs()
        let isBot = user.botOwner != nil
        let serverIDs = serverIDsByUser[user.id] ?? []
        let memberServers = serverIDs.compactMap { servers[$0] }
        let serverChannels = memberServers.flatMap { $0.channels.compactMap { channels[$0] } }
        let channelList = (directMessages(of: user.id) + serverChannels).filter { canView(user, $0) }
        var relatedIDs: [String] = []
        var seen: Set<String> = [user.id]
        for id in user.relations.map(\.id) + channelList.flatMap(\.recipients) where seen.insert(id).inserted {
            relatedIDs.append(id)
        }
        let related = relatedIDs.compactMap { users[$0] }.map { view($0, by: user) }
        var selfView = user.seen(by: user, online: true)
        selfView.relationship = "User"
        let userList = related + [selfView]

        var topics: Set<String> = ["\(user.id)!"]
        topics.formUnion(userList.map(\.id))
        for serverID in serverIDs {
            topics.insert(serverID)
            if isBot { topics.insert("\(serverID)u") }
        }
        topics.formUnion(channelList.map(\.id))

        var payload = ReadyPayload()
        if filter.includes("users") { payload.users = userList }
        if filter.includes("servers") { payload.servers = memberServers.map(view) }
        if filter.includes("channels") { payload.channels = channelList }
        if filter.includes("members") { payload.members = serverIDs.compactMap { member(server: $0, user: user.id) } }
        if filter.includes("emojis") {
            payload.emojis = serverIDs.flatMap { (emojiIDsByServer[$0] ?? []).compactMap { emojis[$0] } }
        }
        payload.voiceStates = filter.includes("voice_states")
        if filter.includes("channel_unreads") { payload.channelUnreads = [] }
        payload.policyChanges = filter.includes("policy_changes") && !isBot
        return (payload, topics)
    }

    /// The Ready `userID` would receive now with `filter`, for ``ReferenceServer/readyFrame(for:readyFields:)``.
    func readyPayload(userID: String, filter: ReadyFilter) -> ReadyPayload? {
        guard let user = users[userID] else { return nil }
        return readyPayload(for: user, filter: filter).0
    }

    // MARK: Ends

    /// Ends a connection as bonfire does: `event` (a `Logout` or an `Error`), then the connection dropped
    /// without a close frame — or with one (1000) under the close-frame fault.
    func end(_ connectionID: Int, with event: ServerEvent) {
        guard let connection = connections[connectionID], connection.phase != .ended else { return }
        connections[connectionID]?.phase = .ended
        connection.socket.send(event.wire)
        connection.socket.outbound.yield(
            faults.closeFramesOnServerEnds ? .close(code: .normalClosure, reason: nil) : .drop)
        changed()
    }

    /// Closes every live socket abruptly (no close frame), as a network failure would.
    func dropAllSockets() -> Int {
        for connection in connections.values { connection.socket.outbound.yield(.abort) }
        return connections.count
    }

    /// Closes every socket with a close frame (the server is stopping).
    func closeAllSockets(code: WebSocketErrorCode) {
        for connection in connections.values {
            connection.socket.outbound.yield(.close(code: code, reason: nil))
        }
    }
}
