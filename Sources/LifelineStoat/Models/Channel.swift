/// A Stoat channel: saved messages, a direct message, a group, or a server's channel.
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
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }
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
        /// A server's channel (with ``Channel/voice`` when it also carries voice).
        public static let textChannel = Kind(rawValue: "TextChannel")
        /// A server's voice channel, as older servers send it.
        public static let voiceChannel = Kind(rawValue: "VoiceChannel")

        /// The wire name.
        public var description: String { rawValue }
    }

    /// The voice settings of a channel that carries voice.
    public struct Voice: Sendable, Hashable, Codable {
        /// The most users in the channel at once, if limited.
        public var maxUsers: Int?

        /// Creates voice settings.
        public init(maxUsers: Int? = nil) { self.maxUsers = maxUsers }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case maxUsers = "max_users"
        }
    }

    /// A field a `ChannelUpdate` can clear (stoatchat's `FieldsChannel`).
    public struct Field: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible {
        /// The wire name.
        public var rawValue: String
        /// Creates a field from its wire name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Decodes the wire name.
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }
        /// Encodes the wire name.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        /// The description.
        public static let description = Field(rawValue: "Description")
        /// The icon.
        public static let icon = Field(rawValue: "Icon")
        /// The default permissions.
        public static let defaultPermissions = Field(rawValue: "DefaultPermissions")
        /// The voice settings.
        public static let voice = Field(rawValue: "Voice")
        /// The slowmode.
        public static let slowmode = Field(rawValue: "Slowmode")

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
    /// The owner of saved messages (`user`).
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
    /// What a group's members may do (groups).
    public var permissions: Int64?
    /// What everyone may do in a server channel.
    public var defaultPermissions: PermissionOverride?
    /// What each role may do in a server channel, by role id.
    public var rolePermissions: [String: PermissionOverride]?
    /// Whether the channel is marked NSFW.
    public var nsfw: Bool?
    /// The voice settings, when the channel carries voice.
    public var voice: Voice?
    /// The slowmode between two messages of one user, in seconds, if any.
    public var slowmode: Int?

    /// Creates a channel.
    public init(
        id: String, kind: Kind, name: String? = nil, server: String? = nil, user: String? = nil,
        owner: String? = nil, recipients: [String]? = nil, description: String? = nil, active: Bool? = nil,
        lastMessageID: String? = nil, icon: File? = nil, permissions: Int64? = nil,
        defaultPermissions: PermissionOverride? = nil, rolePermissions: [String: PermissionOverride]? = nil,
        nsfw: Bool? = nil, voice: Voice? = nil, slowmode: Int? = nil
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
        self.permissions = permissions
        self.defaultPermissions = defaultPermissions
        self.rolePermissions = rolePermissions
        self.nsfw = nsfw
        self.voice = voice
        self.slowmode = slowmode
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id = "_id"
        case kind = "channel_type"
        case name, server, user, owner, recipients, description, active
        case lastMessageID = "last_message_id"
        case icon, permissions
        case defaultPermissions = "default_permissions"
        case rolePermissions = "role_permissions"
        case nsfw, voice, slowmode
    }
}
