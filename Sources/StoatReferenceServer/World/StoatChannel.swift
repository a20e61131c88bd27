/// A Stoat channel: saved notes, a direct message, a group or a server's text channel.
///
/// Written as stoatchat tags it: `channel_type` first, then the fields of its kind in stoatchat's order
/// (`last_message_id`, `permissions`, `default_permissions`, `nsfw` and `slowmode` only where they apply and are
/// set). Build one with
/// the factory of its kind (``textChannel(id:server:name:description:slowmode:)``, …).
public struct StoatChannel: Sendable, Equatable, Codable {
    /// What kind of channel it is (`channel_type` on the wire).
    public struct Kind: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The wire name.
        public let rawValue: String

        /// Creates a kind from its wire name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A user's personal "Saved Notes" channel.
        public static let savedMessages = Kind(rawValue: "SavedMessages")
        /// A direct message channel between two users.
        public static let directMessage = Kind(rawValue: "DirectMessage")
        /// A group channel.
        public static let group = Kind(rawValue: "Group")
        /// A text channel of a server.
        public static let textChannel = Kind(rawValue: "TextChannel")

        /// The wire name.
        public var description: String { rawValue }
    }

    /// The channel's id.
    public var id: String
    /// Its kind.
    public var kind: Kind
    /// The owner of saved notes.
    public var user: String?
    /// Whether a direct message is open on both sides.
    public var active: Bool
    /// The users of a direct message or a group.
    public var recipients: [String]
    /// The name of a group or a text channel.
    public var name: String?
    /// The owner of a group.
    public var owner: String?
    /// The description of a group or a text channel.
    public var description: String?
    /// The server of a text channel.
    public var serverID: String?
    /// The id of the last message sent, kept up to date as messages are sent and deleted.
    public var lastMessageID: String?
    /// The permissions of a group's members (not its owner); nil means stoatchat's default for direct messages.
    public var permissions: Int64?
    /// A text channel's slowmode, in seconds: a member without `BypassSlowmode` may send once per period.
    public var slowmode: UInt64?
    /// A text channel's override of its server's default permissions (`default_permissions`), applied before the
    /// member's roles: for instance `SendMessage` without `ReadMessageHistory`.
    public var defaultPermissions: StoatOverride?

    /// Creates a channel; prefer the factory of its kind.
    public init(
        id: String, kind: Kind, user: String? = nil, active: Bool = false, recipients: [String] = [],
        name: String? = nil, owner: String? = nil, description: String? = nil, serverID: String? = nil,
        lastMessageID: String? = nil, permissions: Int64? = nil, slowmode: UInt64? = nil,
        defaultPermissions: StoatOverride? = nil
    ) {
        self.id = id
        self.kind = kind
        self.user = user
        self.active = active
        self.recipients = recipients
        self.name = name
        self.owner = owner
        self.description = description
        self.serverID = serverID
        self.lastMessageID = lastMessageID
        self.permissions = permissions
        self.slowmode = slowmode
        self.defaultPermissions = defaultPermissions
    }

    /// A user's saved notes.
    public static func savedMessages(id: String, user: String) -> StoatChannel {
        StoatChannel(id: id, kind: .savedMessages, user: user)
    }

    /// A direct message between two users.
    public static func directMessage(id: String, active: Bool, recipients: [String]) -> StoatChannel {
        StoatChannel(id: id, kind: .directMessage, active: active, recipients: recipients)
    }

    /// A group owned by `owner`.
    public static func group(id: String, name: String, owner: String, recipients: [String]) -> StoatChannel {
        StoatChannel(id: id, kind: .group, recipients: recipients, name: name, owner: owner)
    }

    /// A text channel of `server`, with an optional slowmode in seconds.
    public static func textChannel(
        id: String, server: String, name: String, description: String?, slowmode: UInt64? = nil
    ) -> StoatChannel {
        StoatChannel(
            id: id, kind: .textChannel, name: name, description: description, serverID: server, slowmode: slowmode)
    }

    /// The users who see the channel without a server: the owner of saved notes, the recipients of a direct
    /// message or a group.
    var members: [String] {
        kind == .savedMessages ? (user.map { [$0] } ?? []) : recipients
    }

    enum CodingKeys: String, CodingKey {
        case channelType = "channel_type"
        case id = "_id"
        case user, active, recipients, name, owner, description, server
        case lastMessageID = "last_message_id"
        case permissions, slowmode
        case defaultPermissions = "default_permissions"
    }

    /// Decodes a channel from Stoat's wire shape.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        kind = Kind(rawValue: try container.decode(String.self, forKey: .channelType))
        user = try container.decodeIfPresent(String.self, forKey: .user)
        active = try container.decodeIfPresent(Bool.self, forKey: .active) ?? false
        recipients = try container.decodeIfPresent([String].self, forKey: .recipients) ?? []
        name = try container.decodeIfPresent(String.self, forKey: .name)
        owner = try container.decodeIfPresent(String.self, forKey: .owner)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        serverID = try container.decodeIfPresent(String.self, forKey: .server)
        lastMessageID = try container.decodeIfPresent(String.self, forKey: .lastMessageID)
        permissions = try container.decodeIfPresent(Int64.self, forKey: .permissions)
        slowmode = try container.decodeIfPresent(UInt64.self, forKey: .slowmode)
        defaultPermissions = try container.decodeIfPresent(StoatOverride.self, forKey: .defaultPermissions)
    }

    /// Encodes every field that is set.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind.rawValue, forKey: .channelType)
        try container.encode(id, forKey: .id)
        try container.encodeIfPresent(user, forKey: .user)
        if kind == .directMessage { try container.encode(active, forKey: .active) }
        if kind == .directMessage || kind == .group { try container.encode(recipients, forKey: .recipients) }
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(owner, forKey: .owner)
        try container.encodeIfPresent(description, forKey: .description)
        try container.encodeIfPresent(serverID, forKey: .server)
        try container.encodeIfPresent(lastMessageID, forKey: .lastMessageID)
        try container.encodeIfPresent(permissions, forKey: .permissions)
        try container.encodeIfPresent(slowmode, forKey: .slowmode)
        try container.encodeIfPresent(defaultPermissions, forKey: .defaultPermissions)
    }
}

extension StoatChannel: WireEncodable {
    var wire: Wire {
        var fields: [Wire.Field] = [
            .init(key: "channel_type", value: .string(kind.rawValue)),
            .init(key: "_id", value: .string(id)),
        ]
        func add(_ key: String, _ value: Wire?) {
            if let value { fields.append(.init(key: key, value: value)) }
        }
        switch kind {
        case .savedMessages:
            add("user", .str(user))
        case .directMessage:
            add("active", .bool(active))
            add("recipients", .strings(recipients))
            add("last_message_id", .str(lastMessageID))
        case .group:
            add("name", .str(name))
            add("owner", .str(owner))
            add("description", .str(description))
            add("recipients", .strings(recipients))
            add("last_message_id", .str(lastMessageID))
            add("permissions", permissions.map { .int($0) })
        default:
            add("server", .str(serverID))
            add("name", .str(name))
            add("description", .str(description))
            add("last_message_id", .str(lastMessageID))
            add("default_permissions", defaultPermissions?.wire)
            add("slowmode", slowmode.map { .uint($0) })
        }
        return .object(fields)
    }
}
