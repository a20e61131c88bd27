import NIOCore
import NIOWebSocket

/// The gateway facet: a socket of Stoat's new Elixir events server (`stoatchat/gateway`,
/// `lib/stoat_gateway/web/socket_handler.ex`), where it differs from bonfire's.
///
/// Its handler takes four frames — `Authenticate`, `Ping`, `BeginTyping`, `EndTyping`, their `type` read
/// without regard to case — and answers the rest with an `Error` and a close: `InvalidPayload` and 1007
/// once authenticated (`Subscribe` included), `InvalidSession` ("Not Authenticated") and 3000 before. A bad
/// token is answered `InvalidSession` ("Invalid token provided") and the socket stays open for another try.
extension ServerState {
    /// A frame on a gateway socket, as its bytes (the handler ignores the opcode: `handle_in({frame, opcode: _}, …)`).
    func gatewayReceived(_ bytes: [UInt8], connectionID: Int) {
        guard let connection = connections[connectionID], connection.phase != .ended else { return }
        let term: GatewayTerm? =
            switch connection.dialect.format {
            case .json: GatewayTerm(json: bytes)
            case .messagePack: GatewayTerm(messagePack: bytes)
            }
        guard let term, term["type"] != nil else {
            refuse(connectionID, kind: "InvalidPayload", detail: "Incoming payload does not match required format")
            return
        }
        guard case .binary(let typeBytes)? = term["type"] else {
            // `String.downcase/1` raises on anything but a binary: the handler's process dies, and with it the
            // connection, without a close frame.
            crash(connectionID)
            return
        }
        let authenticated = connection.record.isAuthenticated
        switch (String(decoding: typeBytes, as: UTF8.self).lowercased(), authenticated) {
        case ("authenticate", false) where term["token"] != nil:
            gatewayAuthenticate(token: term["token"] ?? .null, connectionID: connectionID)
        case ("ping", _):
            // Answered in any state, before authentication too, with the data as it came (or none).
            let pong: Wire =
                term["data"].map { .object(["type": .string("Pong"), "data": $0.wire]) }
                ?? .object(["type": .string("Pong")])
            guard !faults.ignorePings else { return }
            connection.socket.send(pong)
        case ("begintyping", true) where term["channel"] != nil:
            gatewayTyping(term["channel"], started: true, connectionID: connectionID)
        case ("endtyping", true) where term["channel"] != nil:
            gatewayTyping(term["channel"], started: false, connectionID: connectionID)
        case (_, false):
            refuse(connectionID, kind: "InvalidSession", detail: "Not Authenticated", code: 3000)
        default:
            // `Subscribe`, a second `Authenticate`, a typing frame without a channel, anything else.
            refuse(connectionID, kind: "InvalidPayload", detail: nil)
        }
    }

    /// `handle_auth`: a session token, else a bot token (`StoatGateway.Auth.find_by_token`, which takes only a
    /// binary); `Authenticated`, then `Ready`. Anything else is answered `InvalidSession` with its detail and
    /// the socket stays open, unauthenticated.
    func gatewayAuthenticate(token: GatewayTerm, connectionID: Int) {
        guard let connection = connections[connectionID], !connection.silent,
            connection.phase == .awaitingAuthentication
        else { return }
        let text: String? = if case .binary(let bytes) = token { String(decoding: bytes, as: UTF8.self) } else { nil }
        if let text { connections[connectionID]?.record.token = text }
        guard let text, let (user, sessionID) = socketIdentity(token: text) else {
            connection.socket.send(Self.gatewayError("InvalidSession", detail: "Invalid token provided"))
            changed()
            return
        }
        if let session = sessions[text] {
            sessions[text]?.lastSeen = now()
            persist(.session, id: text, sessions[text] ?? session)
        }
        connections[connectionID]?.record.userID = user.id
        connections[connectionID]?.record.isBot = user.botOwner != nil
        connections[connectionID]?.record.isAuthenticated = true
        connections[connectionID]?.sessionID = sessionID
        // The gateway handles every frame from here on: there is no wait for Ready.
        connections[connectionID]?.phase = .listening
        connection.socket.send(.object(["type": .string("Authenticated")]))
        let (wire, topics) = gatewayReady(for: user, fields: connection.gatewayFields)
        let first = presence[user.id, default: []].isEmpty
        presence[user.id, default: []].insert(connectionID)
        connections[connectionID]?.inPresence = true
        // The presence broadcast goes out before this socket listens, so it does not hear its own.
        if first { broadcastPresence(userID: user.id, online: true) }
        let previous = connections[connectionID]?.topics ?? []
        connections[connectionID]?.topics = topics
        retopic(connectionID, from: previous)
        changed()
        let delay = faults.readyDelay
        let minimumBytes = faults.readyMinimumBytes
        let dialect = connection.dialect
        // Encoded off the actor, as bonfire's Ready is.
        Task.detached {
            await self.readyMayGo()
            if let delay { try? await Task.sleep(for: delay) }
            let frame = dialect.frame(Self.padded(wire, minimumBytes: minimumBytes))
            await self.deliverGatewayReady(frame, connectionID: connectionID)
        }
    }

    private func deliverGatewayReady(_ frame: Outbound, connectionID: Int) {
        guard let connection = connections[connectionID], connection.phase == .listening else { return }
        connection.socket.outbound.yield(frame)
        connections[connectionID]?.record.receivedReady = true
        if dropIfFaulted(connectionID) { return }
        changed()
    }

    /// `BeginTyping` and `EndTyping` (`{:event_typing, …}` to the session, then the server's
    /// `dispatch_typing`): the channel's viewers receive `ChannelStartTyping` or `ChannelStopTyping`, the
    /// typist included; a channel the typist cannot see reaches nobody.
    private func gatewayTyping(_ channel: GatewayTerm?, started: Bool, connectionID: Int) {
        guard case .binary(let bytes)? = channel, let connection = connections[connectionID],
            let userID = connection.record.userID
        else { return }
        let channelID = String(decoding: bytes, as: UTF8.self)
        guard connection.topics.contains(channelID) else { return }
        publish(
            started
                ? .channelStartTyping(channel: channelID, user: userID)
                : .channelStopTyping(channel: channelID, user: userID), to: [channelID])
    }

    /// `{:stop, :normal, code, build_error(…)}`: the error, then a close frame with `code`.
    private func refuse(_ connectionID: Int, kind: String, detail: String?, code: UInt16 = 1007) {
        guard let connection = connections[connectionID], connection.phase != .ended else { return }
        connections[connectionID]?.phase = .ended
        connection.socket.send(Self.gatewayError(kind, detail: detail))
        connection.socket.outbound.yield(.close(code: WebSocketErrorCode(codeNumber: Int(code)), reason: nil))
        changed()
    }

    /// The handler raised: the connection ends without a close frame.
    private func crash(_ connectionID: Int) {
        guard let connection = connections[connectionID], connection.phase != .ended else { return }
        connections[connectionID]?.phase = .ended
        connection.socket.outbound.yield(.drop)
        changed()
    }

    /// `build_error/2,3`: `{"type":"Error","data":{"type":KIND}}`, with `detail` when there is one.
    static func gatewayError(_ kind: String, detail: String?) -> Wire {
        .object(["type": .string("Error"), "data": .object(["type": .string(kind), "detail": Wire.str(detail)])])
    }

    /// The gateway's `Ready` for `user` (`handle_continue(:ready, …)` in `lib/stoat_gateway/state/session.ex`)
    /// and the topics the socket then listens to.
    ///
    /// Every field is present (`Stoat.State.Ready`'s defaults): a field not asked for is `[]`, `user_settings`
    /// `{}`. `users` is the viewer first (`relationship: "User"`, `online: true`), then their relations but
    /// those who blocked them, as `Stoat.PublicUser`s (without their nil fields and empty maps);
    /// direct-message recipients who are not relations are not listed. `servers` carry
    /// `approximate_member_count`; `channels` are the servers' channels the user may see, then their direct
    /// messages; `policy_changes` are a user's, never a bot's. A gateway socket hears its servers' member
    /// events without subscribing (the server process fans them out to every linked session).
    func gatewayReady(for user: StoatUser, fields: GatewayReadyFields) -> (Wire, Set<String>) {
        settleLastMessageIDs()
        let isBot = user.botOwner != nil
        let serverIDs = serverIDsByUser[user.id] ?? []
        let memberServers = serverIDs.compactMap { servers[$0] }
        let serverChannels = memberServers.flatMap { $0.channels.compactMap { channels[$0] } }
        let channelList = (serverChannels + directMessages(of: user.id)).filter { canView(user, $0) }
        // `Enum.map` over the relations' map: in key order, as an Elixir map of up to 32 keys iterates.
        let related = user.relations.filter { $0.status != "BlockedOther" }.sorted { $0.id < $1.id }
            .compactMap { relation in users[relation.id].map { (relation.status, $0) } }
        var userList = [Self.publicUser(user, relationship: "User", online: true)]
        for (status, other) in related {
            let online = !isBot && isOnline(other.id)
            userList.append(Self.publicUser(other, relationship: status, online: online))
        }

        var topics: Set<String> = ["\(user.id)!", user.id]
        topics.formUnion(related.map(\.1.id))
        for serverID in serverIDs { topics.formUnion([serverID, "\(serverID)u"]) }
        topics.formUnion(channelList.map(\.id))

        var settings: [Wire.Field] = []
        for key in fields.userSettings {
            guard let entry = self.settings[user.id]?.values[key] else { continue }
            settings.append(.init(key: key, value: .array([.int(entry.timestamp), .string(entry.value)])))
        }
        func field(_ name: String, _ list: @autoclosure () -> [Wire]) -> Wire {
            .array(fields.includes(name) ? list() : [])
        }
        let wire = Wire.object([
            "type": .string("Ready"),
            "users": field("users", userList),
            "servers": field("servers", memberServers.map { view($0).wire }),
            "channels": field("channels", channelList.map(\.wire)),
            "members": field("members", serverIDs.compactMap { member(server: $0, user: user.id)?.wire }),
            "emojis": field(
                "emojis", serverIDs.flatMap { (emojiIDsByServer[$0] ?? []).compactMap { emojis[$0]?.wire } }),
            "voice_states": .array([]),
            "user_settings": .object(settings),
            "channel_unreads": .array([]),
            "policy_changes": .array([]),
        ])
        return (wire, topics)
    }

    /// `build_ready_user`: a `Stoat.PublicUser`, written by `Stoat.Model`'s encoder, which leaves out every
    /// field that is nil or an empty map (`lib/stoat_gateway/data/model.ex`): no `avatar` for a user without
    /// one (the struct's `%{}`), no `status` when it is `%{}`, no `display_name` or `pronouns` when nil.
    static func publicUser(_ user: StoatUser, relationship: String, online: Bool) -> Wire {
        .object([
            "_id": .string(user.id),
            "username": .string(user.username),
            "discriminator": .string(user.discriminator),
            "display_name": Wire.str(user.displayName),
            "badges": .uint(UInt64(user.badges)),
            "online": .bool(online),
            "relationship": .string(relationship),
        ])
    }

    /// `wire` padded with synthetic users (ids starting `PADDING`, after the real ones) until its JSON is at
    /// least `minimumBytes` long: the Ready-size fault.
    nonisolated static func padded(_ wire: Wire, minimumBytes: Int?) -> Wire {
        guard let minimumBytes, case .object(var fields) = wire,
            let index = fields.firstIndex(where: { $0.key == "users" }), case .array(var list) = fields[index].value
        else { return wire }
        let plain = wire.bytes.count
        guard plain < minimumBytes else { return wire }
        let sample = publicUser(
            StoatUser(id: "PADDING00000000000000000000", username: "padding-user-000000"), relationship: "None",
            online: false)
        let count = (minimumBytes - plain) / (sample.bytes.count + 1) + 1
        for index in 0..<count {
            let number = String(index)
            let suffix = String(repeating: "0", count: max(0, 6 - number.count)) + number
            let idSuffix = String(repeating: "0", count: max(0, 20 - number.count)) + number
            list.append(
                publicUser(
                    StoatUser(id: "PADDING" + idSuffix, username: "padding-user-" + suffix), relationship: "None",
                    online: false))
        }
        fields[index].value = .array(list)
        return .object(fields)
    }
}
