/// The events the server sends on the socket (stoatchat's `EventV1` in
/// `crates/core/database/src/events/client.rs`), written as serde writes them: `type` first, then the fields in
/// declaration order.
enum ServerEvent: Sendable {
    case authenticated
    case logout
    case error(APIError)
    case pong(PingData)
    case message(StoatMessage, user: StoatUser?, member: StoatMember?)
    case messageUpdate(id: String, channel: String, data: Wire, clear: [String])
    case messageDelete(id: String, channel: String)
    case channelCreate(StoatChannel)
    case channelUpdate(id: String, data: Wire, clear: [String])
    case channelDelete(id: String)
    case channelStartTyping(channel: String, user: String)
    case channelStopTyping(channel: String, user: String)
    case serverCreate(StoatServer, channels: [StoatChannel], emojis: [StoatEmoji])
    case serverUpdate(id: String, data: Wire, clear: [String])
    case serverMemberJoin(server: String, user: String, member: StoatMember)
    case serverMemberLeave(server: String, user: String, reason: String)
    case serverMemberUpdate(server: String, user: String, data: Wire, clear: [String])
    case userUpdate(id: String, data: Wire, clear: [String], eventID: String)
    case userRelationship(id: String, user: StoatUser)
    case userSlowmodes([Slowmode])
    case userSettingsUpdate(id: String, update: Wire)
    case deleteSession(userID: String, sessionID: String)
    case deleteAllSessions(userID: String, excludeSessionID: String?)
    /// Lifeline's extension: an operation ended.
    case operationFinished(id: String, result: OperationResult)
    /// Several events in one frame (bonfire's `Bulk`, after a permission change).
    case bulk([ServerEvent])
    /// Embeds added to a message (`MessageAppend`; `append` is `AppendMessage`).
    case messageAppend(id: String, channel: String, embeds: [Wire])
    /// A user reacted to a message.
    case messageReact(id: String, channel: String, user: String, emoji: String)
    /// A user took back a reaction.
    case messageUnreact(id: String, channel: String, user: String, emoji: String)
    /// Every reaction with an emoji was removed.
    case messageRemoveReaction(id: String, channel: String, emoji: String)
    /// Several messages of a channel were deleted.
    case bulkMessageDelete(channel: String, ids: [String])
    /// The user acknowledged a message in a channel.
    case channelAck(channel: String, user: String, messageID: String)
    /// A server was deleted.
    case serverDelete(id: String)
    /// A server's role was created or changed (`ServerRoleUpdate`).
    case serverRoleUpdate(server: String, role: String, data: Wire, clear: [String])

    /// One channel's slowmode for a user (`ChannelSlowmode`).
    struct Slowmode: Sendable, Equatable {
        var channelID: String
        var duration: UInt64
        var retryAfter: UInt64
    }

    /// The event's `type`.
    var type: String {
        switch self {
        case .authenticated: "Authenticated"
        case .logout: "Logout"
        case .error: "Error"
        case .pong: "Pong"
        case .message: "Message"
        case .messageUpdate: "MessageUpdate"
        case .messageDelete: "MessageDelete"
        case .channelCreate: "ChannelCreate"
        case .channelUpdate: "ChannelUpdate"
        case .channelDelete: "ChannelDelete"
        case .channelStartTyping: "ChannelStartTyping"
        case .channelStopTyping: "ChannelStopTyping"
        case .serverCreate: "ServerCreate"
        case .serverUpdate: "ServerUpdate"
        case .serverMemberJoin: "ServerMemberJoin"
        case .serverMemberLeave: "ServerMemberLeave"
        case .serverMemberUpdate: "ServerMemberUpdate"
        case .userUpdate: "UserUpdate"
        case .userRelationship: "UserRelationship"
        case .userSlowmodes: "UserSlowmodes"
        case .userSettingsUpdate: "UserSettingsUpdate"
        case .deleteSession: "DeleteSession"
        case .deleteAllSessions: "DeleteAllSessions"
        case .operationFinished: "OperationFinished"
        case .bulk: "Bulk"
        case .messageAppend: "MessageAppend"
        case .messageReact: "MessageReact"
        case .messageUnreact: "MessageUnreact"
        case .messageRemoveReaction: "MessageRemoveReaction"
        case .bulkMessageDelete: "BulkMessageDelete"
        case .channelAck: "ChannelAck"
        case .serverDelete: "ServerDelete"
        case .serverRoleUpdate: "ServerRoleUpdate"
        }
    }

    /// The event as written to the socket.
    var wire: Wire {
        var fields: [Wire.Field] = [.init(key: "type", value: .string(type))]
        func add(_ key: String, _ value: Wire) { fields.append(.init(key: key, value: value)) }
        switch self {
        case .authenticated, .logout:
            break
        case .error(let error):
            add("data", error.wire)
        case .pong(let data):
            add("data", data.wire)
        case .message(let message, let user, let member):
            guard case .object(let messageFields) = message.wire(user: user, member: member) else { break }
            fields += messageFields
        case .messageUpdate(let id, let channel, let data, let clear):
            add("id", .string(id))
            add("channel", .string(channel))
            add("data", data)
            add("clear", .strings(clear))
        case .messageDelete(let id, let channel):
            add("id", .string(id))
            add("channel", .string(channel))
        case .channelCreate(let channel):
            guard case .object(let channelFields) = channel.wire else { break }
            fields += channelFields
        case .channelUpdate(let id, let data, let clear), .serverUpdate(let id, let data, let clear):
            add("id", .string(id))
            add("data", data)
            add("clear", .strings(clear))
        case .channelDelete(let id):
            add("id", .string(id))
        case .channelStartTyping(let channel, let user), .channelStopTyping(let channel, let user):
            add("id", .string(channel))
            add("user", .string(user))
        case .serverCreate(let server, let channels, let emojis):
            add("id", .string(server.id))
            add("server", server.wire)
            add("channels", .list(channels))
            add("emojis", .list(emojis))
            add("voice_states", .array([]))
        case .serverMemberJoin(let server, let user, let member):
            add("id", .string(server))
            add("user", .string(user))
            add("member", member.wire)
        case .serverMemberLeave(let server, let user, let reason):
            add("id", .string(server))
            add("user", .string(user))
            add("reason", .string(reason))
        case .serverMemberUpdate(let server, let user, let data, let clear):
            add("id", .object(["server": .string(server), "user": .string(user)]))
            add("data", data)
            add("clear", .strings(clear))
        case .userUpdate(let id, let data, let clear, _):
            // bonfire removes the event id once it has deduplicated the event.
            add("id", .string(id))
            add("data", data)
            add("clear", .strings(clear))
            add("event_id", .null)
        case .userRelationship(let id, let user):
            add("id", .string(id))
            add("user", user.wire)
        case .userSlowmodes(let slowmodes):
            let list = slowmodes.map {
                Wire.object([
                    "channel_id": .string($0.channelID), "duration": .uint($0.duration),
                    "retry_after": .uint($0.retryAfter),
                ])
            }
            add("slowmodes", .array(list))
        case .userSettingsUpdate(let id, let update):
            add("id", .string(id))
            add("update", update)
        case .deleteSession(let userID, let sessionID):
            add("user_id", .string(userID))
            add("session_id", .string(sessionID))
        case .deleteAllSessions(let userID, let exclude):
            add("user_id", .string(userID))
            add("exclude_session_id", exclude.map { .string($0) } ?? .null)
        case .operationFinished(let id, let result):
            add("id", .string(id))
            add("result", .string(result.rawValue))
        case .bulk(let events):
            add("v", .array(events.map(\.wire)))
        case .messageAppend(let id, let channel, let embeds):
            add("id", .string(id))
            add("channel", .string(channel))
            add("append", .object(["embeds": .array(embeds)]))
        case .messageReact(let id, let channel, let user, let emoji),
            .messageUnreact(let id, let channel, let user, let emoji):
            add("id", .string(id))
            add("channel_id", .string(channel))
            add("user_id", .string(user))
            add("emoji_id", .string(emoji))
        case .messageRemoveReaction(let id, let channel, let emoji):
            add("id", .string(id))
            add("channel_id", .string(channel))
            add("emoji_id", .string(emoji))
        case .bulkMessageDelete(let channel, let ids):
            add("channel", .string(channel))
            add("ids", .strings(ids))
        case .channelAck(let channel, let user, let messageID):
            add("id", .string(channel))
            add("user", .string(user))
            add("message_id", .string(messageID))
        case .serverDelete(let id):
            add("id", .string(id))
        case .serverRoleUpdate(let server, let role, let data, let clear):
            add("id", .string(server))
            add("role_id", .string(role))
            add("data", data)
            add("clear", .strings(clear))
        }
        return .object(fields)
    }
}
