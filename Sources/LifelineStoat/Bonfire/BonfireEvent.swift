/// An event the server sends on Stoat's events socket, decoded with its payload.
///
/// The shapes are stoatchat's `EventV1`. Updates carry the changed fields (`data`) and the fields to
/// remove (`clear`); apply `data` first, then clear. Event types Lifeline does not model decode as
/// ``unknown(type:)``, never as an error.
public enum BonfireEvent: Sendable, Hashable {
    /// The session was accepted.
    case authenticated
    /// The initial data: after it, the session is connected.
    case ready(Ready)
    /// The answer to a `Ping`; `data` is `nil` when it was not an integer.
    case pong(data: Int64?)
    /// The server pinged the client (Stoat does not, but a peer may): answer with the same data.
    case ping(data: Int64?)
    /// The session was deleted; the server closes the socket next.
    case logout
    /// An error; the server closes the socket after it.
    case error(BonfireError)
    /// Several events in one frame.
    case bulk([BonfireEvent])

    /// A new message.
    case message(Message)
    /// A message changed: set `data`'s fields, then remove `clear`'s.
    case messageUpdate(id: String, channel: String, data: PartialMessage, clear: [Message.Field])
    /// Embeds were added to a message (`MessageAppend`, after the link proxy generated them).
    case messageAppend(id: String, channel: String, embeds: [Message.Embed])
    /// A message was deleted.
    case messageDelete(id: String, channel: String)
    /// Several messages of a channel were deleted (`BulkMessageDelete`).
    case bulkMessageDelete(channel: String, ids: [String])
    /// A user reacted to a message with an emoji.
    case messageReact(id: String, channel: String, user: String, emoji: String)
    /// A user took back a reaction.
    case messageUnreact(id: String, channel: String, user: String, emoji: String)
    /// Every reaction with an emoji was removed from a message.
    case messageRemoveReaction(id: String, channel: String, emoji: String)

    /// A channel was created, or the user gained access to one.
    case channelCreate(Channel)
    /// A channel changed: set `data`'s fields, then remove `clear`'s.
    case channelUpdate(id: String, data: PartialChannel, clear: [Channel.Field])
    /// A channel was deleted.
    case channelDelete(id: String)
    /// A user joined a group.
    case channelGroupJoin(channel: String, user: String)
    /// A user left a group.
    case channelGroupLeave(channel: String, user: String)
    /// A user started typing in a channel.
    case channelStartTyping(channel: String, user: String)
    /// A user stopped typing in a channel.
    case channelStopTyping(channel: String, user: String)
    /// The user read a channel up to a message (from another of their sessions too).
    case channelAck(channel: String, user: String, messageID: String)

    /// The user joined a server (or created one): the server with its channels and emojis.
    case serverCreate(Server, channels: [Channel], emojis: [Emoji])
    /// A server changed: set `data`'s fields, then remove `clear`'s.
    case serverUpdate(id: String, data: PartialServer, clear: [Server.Field])
    /// The user left or was removed from a server, or it was deleted.
    case serverDelete(id: String)
    /// A user joined a server; `member` is `nil` from servers older than the field.
    case serverMemberJoin(server: String, user: String, member: Member?)
    /// A user left a server; `reason` says whether they left, were kicked or were banned.
    case serverMemberLeave(server: String, user: String, reason: Member.RemovalReason?)
    /// A member changed: set `data`'s fields (a new `timeout` among them), then remove `clear`'s.
    case serverMemberUpdate(id: Member.ID, data: PartialMember, clear: [Member.Field])

    /// A user changed: set `data`'s fields, then remove `clear`'s.
    case userUpdate(id: String, data: PartialUser, clear: [User.Field])
    /// The current user's relationship with a user changed.
    case userRelationship(id: String, user: User)
    /// A user was banned from the platform or deleted their account: remove their messages, direct
    /// messages, relationships and memberships. `flags` says why.
    case userPlatformWipe(user: String, flags: Int)
    /// The slowmodes holding the current user back, sent after `Ready` and when one starts.
    case userSlowmodes([ChannelSlowmode])

    /// An emoji was created.
    case emojiCreate(Emoji)
    /// An emoji was deleted.
    case emojiDelete(id: String)

    /// A pending operation ended (`approved`, `rejected`, `timeout`): Lifeline's extension.
    case operationFinished(id: String, result: String)
    /// An event type Lifeline does not model; tolerated and counted, never fatal.
    case unknown(type: String)

    /// The event's `type` on the wire.
    public var type: String {
        switch self {
        case .authenticated: "Authenticated"
        case .ready: "Ready"
        case .pong: "Pong"
        case .ping: "Ping"
        case .logout: "Logout"
        case .error: "Error"
        case .bulk: "Bulk"
        case .message: "Message"
        case .messageUpdate: "MessageUpdate"
        case .messageAppend: "MessageAppend"
        case .messageDelete: "MessageDelete"
        case .bulkMessageDelete: "BulkMessageDelete"
        case .messageReact: "MessageReact"
        case .messageUnreact: "MessageUnreact"
        case .messageRemoveReaction: "MessageRemoveReaction"
        case .channelCreate: "ChannelCreate"
        case .channelUpdate: "ChannelUpdate"
        case .channelDelete: "ChannelDelete"
        case .channelGroupJoin: "ChannelGroupJoin"
        case .channelGroupLeave: "ChannelGroupLeave"
        case .channelStartTyping: "ChannelStartTyping"
        case .channelStopTyping: "ChannelStopTyping"
        case .channelAck: "ChannelAck"
        case .serverCreate: "ServerCreate"
        case .serverUpdate: "ServerUpdate"
        case .serverDelete: "ServerDelete"
        case .serverMemberJoin: "ServerMemberJoin"
        case .serverMemberLeave: "ServerMemberLeave"
        case .serverMemberUpdate: "ServerMemberUpdate"
        case .userUpdate: "UserUpdate"
        case .userRelationship: "UserRelationship"
        case .userPlatformWipe: "UserPlatformWipe"
        case .userSlowmodes: "UserSlowmodes"
        case .emojiCreate: "EmojiCreate"
        case .emojiDelete: "EmojiDelete"
        case .operationFinished: "OperationFinished"
        case .unknown(let type): type
        }
    }
}
