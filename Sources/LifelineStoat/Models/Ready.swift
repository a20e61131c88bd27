/// The initial data the events socket sends after authentication (`Ready`). Every field is optional on
/// the wire (the `ready` query filter leaves fields out); fields Lifeline does not model are ignored.
public struct Ready: Sendable, Hashable, Codable {
    /// The users the session knows.
    public var users: [User]
    /// The servers the user is a member of.
    public var servers: [Server]
    /// The channels the user can see.
    public var channels: [Channel]
    /// The user's memberships.
    public var members: [Member]
    /// The custom emojis of the user's servers.
    public var emojis: [Emoji]
    /// The user's read state of each channel; sent only when asked for (`ready=channel_unreads`).
    public var channelUnreads: [ChannelUnread]

    /// Creates initial data.
    public init(
        users: [User] = [], servers: [Server] = [], channels: [Channel] = [], members: [Member] = [],
        emojis: [Emoji] = [], channelUnreads: [ChannelUnread] = []
    ) {
        self.users = users
        self.servers = servers
        self.channels = channels
        self.members = members
        self.emojis = emojis
        self.channelUnreads = channelUnreads
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case users, servers, channels, members, emojis
        case channelUnreads = "channel_unreads"
    }

    /// Decodes initial data; absent fields are empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        users = try container.decodeIfPresent([User].self, forKey: .users) ?? []
        servers = try container.decodeIfPresent([Server].self, forKey: .servers) ?? []
        channels = try container.decodeIfPresent([Channel].self, forKey: .channels) ?? []
        members = try container.decodeIfPresent([Member].self, forKey: .members) ?? []
        emojis = try container.decodeIfPresent([Emoji].self, forKey: .emojis) ?? []
        channelUnreads = try container.decodeIfPresent([ChannelUnread].self, forKey: .channelUnreads) ?? []
    }
}
