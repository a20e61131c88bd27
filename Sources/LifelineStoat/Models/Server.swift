/// A Stoat server (a "guild"), as `Ready` and server events describe it.
public struct Server: Sendable, Hashable, Codable, Identifiable {
    /// The server's id (`_id`).
    public var id: String
    /// The owner's user id.
    public var owner: String
    /// The server's name.
    public var name: String
    /// The description, if any.
    public var description: String?
    /// The ids of its channels, in order.
    public var channels: [String]
    /// The server's roles by id.
    public var roles: [String: Role]?
    /// The permissions everyone has by default.
    public var defaultPermissions: Int64?
    /// The icon, if any.
    public var icon: File?
    /// The banner, if any.
    public var banner: File?
    /// Server flags (1 official, 2 verified).
    public var flags: Int?
    /// Whether the server is marked NSFW.
    public var nsfw: Bool?

    /// A role of a server.
    public struct Role: Sendable, Hashable, Codable {
        /// The role's name.
        public var name: String
        /// Its colour, as CSS.
        public var colour: String?
        /// Whether members with it are shown apart.
        public var hoist: Bool?
        /// Its rank: lower is higher.
        public var rank: Int64?

        /// Creates a role.
        public init(name: String, colour: String? = nil, hoist: Bool? = nil, rank: Int64? = nil) {
            self.name = name
            self.colour = colour
            self.hoist = hoist
            self.rank = rank
        }
    }

    /// Creates a server.
    public init(
        id: String, owner: String, name: String, description: String? = nil, channels: [String] = [],
        roles: [String: Role]? = nil, defaultPermissions: Int64? = nil, icon: File? = nil, banner: File? = nil,
        flags: Int? = nil, nsfw: Bool? = nil
    ) {
        self.id = id
        self.owner = owner
        self.name = name
        self.description = description
        self.channels = channels
        self.roles = roles
        self.defaultPermissions = defaultPermissions
        self.icon = icon
        self.banner = banner
        self.flags = flags
        self.nsfw = nsfw
    }

    enum CodingKeys: String, CodingKey {
        case id = "_id"
        case owner, name, description, channels, roles
        case defaultPermissions = "default_permissions"
        case icon, banner, flags, nsfw
    }
}

/// A Stoat channel: saved messages, a direct message, a group, or a server's text or voice channel.
///
/// One struct for every kind (``kind``) rather than an enum, so that a channel type Lifeline does not
/// know yet still decodes; fields a kind does not have are `nil`.
public struct Channel: Sendable, Hashable, Codable, Identifiable {
    /// The kind of a channel (`channel_type`).
    public struct Kind: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible {
        /// The wire name.
        public var rawValue: String
        /// Creates a kind from its wire name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Decodes the wire name.
        public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
        /// Encodes the wire name.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        /// A user's notes to self.
        public static let savedMessages = Kind(rawValue: "SavedMessages")
        /// A conversation between two users.
        public static let directMessage = Kind(rawValue: "DirectMessage")
        /// A group conversation.
        public static let group = Kind(rawValue: "Group")
        /// A server's text channel.
        public static let textChannel = Kind(rawValue: "TextChannel")
        /// A server's voice channel.
        public static let voiceChannel = Kind(rawValue: "VoiceChannel")

        /// The wire name.
        public var description: String { rawValue }
    }

    /// The channel's id (`_id`).
    public var id: String
    /// What kind of channel it is.
    public var kind: Kind
    /// The name (groups and server channels).
    public var name: String?
    /// The server it belongs to (server channels).
    public var server: String?
    /// The owner of saved messages (`user`) .
    public var user: String?
    /// The owner of a group.
    public var owner: String?
    /// The participants (direct messages and groups).
    public var recipients: [String]?
    /// The description, if any.
    public var description: String?
    /// Whether a direct message is open.
    public var active: Bool?
    /// The id of the last message, if known.
    public var lastMessageID: String?
    /// The icon, if any.
    public var icon: File?
    /// Whether the channel is marked NSFW.
    public var nsfw: Bool?

    /// Creates a channel.
    public init(
        id: String, kind: Kind, name: String? = nil, server: String? = nil, user: String? = nil,
        owner: String? = nil, recipients: [String]? = nil, description: String? = nil, active: Bool? = nil,
        lastMessageID: String? = nil, icon: File? = nil, nsfw: Bool? = nil
    ) {
        self.id = id
        self.kind = kind
        self.name = name
        self.server = server
        self.user = user
        self.owner = owner
        self.recipients = recipients
        self.description = description
        self.active = active
        self.lastMessageID = lastMessageID
        self.icon = icon
        self.nsfw = nsfw
    }

    enum CodingKeys: String, CodingKey {
        case id = "_id"
        case kind = "channel_type"
        case name, server, user, owner, recipients, description, active
        case lastMessageID = "last_message_id"
        case icon, nsfw
    }
}

/// A user's membership of a server.
public struct Member: Sendable, Hashable, Codable {
    /// The member's key: the server and the user.
    public struct ID: Sendable, Hashable, Codable {
        /// The server.
        public var server: String
        /// The user.
        public var user: String

        /// Creates a key.
        public init(server: String, user: String) {
            self.server = server
            self.user = user
        }
    }

    /// The server and the user (`_id`).
    public var id: ID
    /// When the user joined, as the server sent it (ISO 8601).
    public var joinedAt: String?
    /// The nickname on this server, if any.
    public var nickname: String?
    /// The avatar on this server, if any.
    public var avatar: File?
    /// The ids of the member's roles.
    public var roles: [String]?
    /// Until when the member is timed out (ISO 8601), if they are.
    public var timeout: String?

    /// Creates a member.
    public init(
        id: ID, joinedAt: String? = nil, nickname: String? = nil, avatar: File? = nil, roles: [String]? = nil,
        timeout: String? = nil
    ) {
        self.id = id
        self.joinedAt = joinedAt
        self.nickname = nickname
        self.avatar = avatar
        self.roles = roles
        self.timeout = timeout
    }

    enum CodingKeys: String, CodingKey {
        case id = "_id"
        case joinedAt = "joined_at"
        case nickname, avatar, roles, timeout
    }
}

/// A custom emoji.
public struct Emoji: Sendable, Hashable, Codable, Identifiable {
    /// What an emoji belongs to.
    public struct Parent: Sendable, Hashable, Codable {
        /// `Server` or `Detached`.
        public var type: String
        /// The server's id, for a server's emoji.
        public var id: String?

        /// Creates a parent.
        public init(type: String, id: String? = nil) {
            self.type = type
            self.id = id
        }
    }

    /// The emoji's id (`_id`).
    public var id: String
    /// What it belongs to.
    public var parent: Parent
    /// Who made it.
    public var creatorID: String
    /// Its name.
    public var name: String
    /// Whether it is animated.
    public var animated: Bool?
    /// Whether it is marked NSFW.
    public var nsfw: Bool?

    /// Creates an emoji.
    public init(id: String, parent: Parent, creatorID: String, name: String, animated: Bool? = nil, nsfw: Bool? = nil) {
        self.id = id
        self.parent = parent
        self.creatorID = creatorID
        self.name = name
        self.animated = animated
        self.nsfw = nsfw
    }

    enum CodingKeys: String, CodingKey {
        case id = "_id"
        case parent
        case creatorID = "creator_id"
        case name, animated, nsfw
    }
}

/// A message in a channel.
public struct Message: Sendable, Hashable, Codable, Identifiable {
    /// The message's id (`_id`).
    public var id: String
    /// The client's nonce, if it sent one.
    public var nonce: String?
    /// The channel it was sent in.
    public var channel: String
    /// Its author's user id.
    public var author: String
    /// Its text, if any.
    public var content: String?
    /// When it was last edited (ISO 8601), if it was.
    public var edited: String?
    /// Its attachments.
    public var attachments: [File]?
    /// The users it mentions.
    public var mentions: [String]?
    /// The messages it replies to.
    public var replies: [String]?

    /// Creates a message.
    public init(
        id: String, nonce: String? = nil, channel: String, author: String, content: String? = nil,
        edited: String? = nil, attachments: [File]? = nil, mentions: [String]? = nil, replies: [String]? = nil
    ) {
        self.id = id
        self.nonce = nonce
        self.channel = channel
        self.author = author
        self.content = content
        self.edited = edited
        self.attachments = attachments
        self.mentions = mentions
        self.replies = replies
    }

    enum CodingKeys: String, CodingKey {
        case id = "_id"
        case nonce, channel, author, content, edited, attachments, mentions, replies
    }
}

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

    /// Creates initial data.
    public init(
        users: [User] = [], servers: [Server] = [], channels: [Channel] = [], members: [Member] = [],
        emojis: [Emoji] = []
    ) {
        self.users = users
        self.servers = servers
        self.channels = channels
        self.members = members
        self.emojis = emojis
    }

    enum CodingKeys: String, CodingKey {
        case users, servers, channels, members, emojis
    }

    /// Decodes initial data; absent fields are empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        users = try container.decodeIfPresent([User].self, forKey: .users) ?? []
        servers = try container.decodeIfPresent([Server].self, forKey: .servers) ?? []
        channels = try container.decodeIfPresent([Channel].self, forKey: .channels) ?? []
        members = try container.decodeIfPresent([Member].self, forKey: .members) ?? []
        emojis = try container.decodeIfPresent([Emoji].self, forKey: .emojis) ?? []
    }
}
