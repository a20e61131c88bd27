#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A Stoat user as the API and the events socket send it.
///
/// Encodes to Stoat's wire shape: `_id`, `username`, `discriminator`, optional `display_name`, `badges` and
/// `flags` omitted when 0, `privileged` omitted when false, and `relationship` and `online`. The relationship is
/// the viewer's: the server writes `"User"` for the user themselves and ``relationship`` for everyone else.
public struct StoatUser: Sendable, Equatable, Codable {
    /// The user's id (a ULID).
    public var id: String
    /// The username (see ``UsernameRule``).
    public var username: String
    /// The four-digit discriminator that tells users with one username apart.
    public var discriminator: String
    /// The display name, if the user set one.
    public var displayName: String?
    /// Badge bits; omitted on the wire when 0.
    public var badges: UInt32
    /// Flag bits: 1 suspended, 2 deleted, 4 banned, 8 removed as spam; omitted on the wire when 0.
    public var flags: UInt32
    /// Whether the user is privileged; omitted on the wire when false.
    public var privileged: Bool
    /// The relationship the viewer has with this user (`"None"`, `"Friend"`, …); `"User"` is written for the
    /// viewer themselves.
    public var relationship: String
    /// Whether the user is online.
    public var online: Bool

    /// Creates a user.
    public init(
        id: String,
        username: String,
        discriminator: String = "0001",
        displayName: String? = nil,
        badges: UInt32 = 0,
        flags: UInt32 = 0,
        privileged: Bool = false,
        relationship: String = "None",
        online: Bool = false
    ) {
        self.id = id
        self.username = username
        self.discriminator = discriminator
        self.displayName = displayName
        self.badges = badges
        self.flags = flags
        self.privileged = privileged
        self.relationship = relationship
        self.online = online
    }

    enum CodingKeys: String, CodingKey {
        case id = "_id"
        case username, discriminator
        case displayName = "display_name"
        case badges, flags, privileged, relationship, online
    }

    /// Decodes a user from Stoat's wire shape; absent optional fields take their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        username = try container.decode(String.self, forKey: .username)
        discriminator = try container.decode(String.self, forKey: .discriminator)
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        badges = try container.decodeIfPresent(UInt32.self, forKey: .badges) ?? 0
        flags = try container.decodeIfPresent(UInt32.self, forKey: .flags) ?? 0
        privileged = try container.decodeIfPresent(Bool.self, forKey: .privileged) ?? false
        relationship = try container.decodeIfPresent(String.self, forKey: .relationship) ?? "None"
        online = try container.decodeIfPresent(Bool.self, forKey: .online) ?? false
    }

    /// Encodes the user in Stoat's wire shape, leaving out zero and false fields as Stoat does.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(username, forKey: .username)
        try container.encode(discriminator, forKey: .discriminator)
        try container.encodeIfPresent(displayName, forKey: .displayName)
        if badges != 0 { try container.encode(badges, forKey: .badges) }
        if flags != 0 { try container.encode(flags, forKey: .flags) }
        if privileged { try container.encode(privileged, forKey: .privileged) }
        try container.encode(relationship, forKey: .relationship)
        try container.encode(online, forKey: .online)
    }

    /// This user as `viewerID` sees it: relationship `"User"` when it is the viewer.
    func seen(by viewerID: String) -> StoatUser {
        guard viewerID == id else { return self }
        var user = self
        user.relationship = "User"
        return user
    }
}

/// A Stoat server (a "guild"): `_id`, `owner`, `name`, optional `description`, `channels` (ids),
/// `default_permissions`, and `flags` omitted when 0.
public struct StoatServer: Sendable, Equatable, Codable {
    /// The server's id.
    public var id: String
    /// The owner's user id.
    public var owner: String
    /// The server's name.
    public var name: String
    /// The description, if any.
    public var description: String?
    /// The ids of the server's channels, in order.
    public var channels: [String]
    /// The permission bits every member has by default.
    public var defaultPermissions: Int64
    /// Server flag bits (1 official, 2 verified); omitted on the wire when 0.
    public var flags: UInt32

    /// Creates a server.
    public init(
        id: String,
        owner: String,
        name: String,
        description: String? = nil,
        channels: [String] = [],
        defaultPermissions: Int64 = 0,
        flags: UInt32 = 0
    ) {
        self.id = id
        self.owner = owner
        self.name = name
        self.description = description
        self.channels = channels
        self.defaultPermissions = defaultPermissions
        self.flags = flags
    }

    enum CodingKeys: String, CodingKey {
        case id = "_id"
        case owner, name, description, channels
        case defaultPermissions = "default_permissions"
        case flags
    }

    /// Decodes a server from Stoat's wire shape.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        owner = try container.decode(String.self, forKey: .owner)
        name = try container.decode(String.self, forKey: .name)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        channels = try container.decodeIfPresent([String].self, forKey: .channels) ?? []
        defaultPermissions = try container.decodeIfPresent(Int64.self, forKey: .defaultPermissions) ?? 0
        flags = try container.decodeIfPresent(UInt32.self, forKey: .flags) ?? 0
    }

    /// Encodes the server in Stoat's wire shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(owner, forKey: .owner)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(description, forKey: .description)
        try container.encode(channels, forKey: .channels)
        try container.encode(defaultPermissions, forKey: .defaultPermissions)
        if flags != 0 { try container.encode(flags, forKey: .flags) }
    }
}

/// A Stoat channel, tagged on the wire by `channel_type`.
public enum StoatChannel: Sendable, Equatable, Codable {
    /// A user's personal "Saved Notes" channel.
    case savedMessages(id: String, user: String)
    /// A direct message channel between two users.
    case directMessage(id: String, active: Bool, recipients: [String])
    /// A group channel.
    case group(id: String, name: String, owner: String, recipients: [String])
    /// A text channel of a server.
    case textChannel(id: String, server: String, name: String, description: String?)

    /// The channel's id.
    public var id: String {
        switch self {
        case .savedMessages(let id, _), .directMessage(let id, _, _), .group(let id, _, _, _),
            .textChannel(let id, _, _, _):
            id
        }
    }

    /// The server the channel belongs to, for a text channel.
    public var serverID: String? {
        if case .textChannel(_, let server, _, _) = self { server } else { nil }
    }

    /// The users who see the channel without a server: the owner of saved messages, the recipients of a
    /// direct message or a group.
    public var recipients: [String] {
        switch self {
        case .savedMessages(_, let user): [user]
        case .directMessage(_, _, let recipients), .group(_, _, _, let recipients): recipients
        case .textChannel: []
        }
    }

    enum CodingKeys: String, CodingKey {
        case channelType = "channel_type"
        case id = "_id"
        case user, active, recipients, name, owner, server, description
    }

    /// Decodes a channel from Stoat's wire shape; an unknown `channel_type` is a decoding error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let id = try container.decode(String.self, forKey: .id)
        switch try container.decode(String.self, forKey: .channelType) {
        case "SavedMessages":
            self = .savedMessages(id: id, user: try container.decode(String.self, forKey: .user))
        case "DirectMessage":
            self = .directMessage(
                id: id,
                active: try container.decode(Bool.self, forKey: .active),
                recipients: try container.decode([String].self, forKey: .recipients)
            )
        case "Group":
            self = .group(
                id: id,
                name: try container.decode(String.self, forKey: .name),
                owner: try container.decode(String.self, forKey: .owner),
                recipients: try container.decode([String].self, forKey: .recipients)
            )
        case "TextChannel":
            self = .textChannel(
                id: id,
                server: try container.decode(String.self, forKey: .server),
                name: try container.decode(String.self, forKey: .name),
                description: try container.decodeIfPresent(String.self, forKey: .description)
            )
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .channelType, in: container, debugDescription: "Unknown channel_type \(other)")
        }
    }

    /// Encodes the channel in Stoat's wire shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .savedMessages(let id, let user):
            try container.encode("SavedMessages", forKey: .channelType)
            try container.encode(id, forKey: .id)
            try container.encode(user, forKey: .user)
        case .directMessage(let id, let active, let recipients):
            try container.encode("DirectMessage", forKey: .channelType)
            try container.encode(id, forKey: .id)
            try container.encode(active, forKey: .active)
            try container.encode(recipients, forKey: .recipients)
        case .group(let id, let name, let owner, let recipients):
            try container.encode("Group", forKey: .channelType)
            try container.encode(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encode(owner, forKey: .owner)
            try container.encode(recipients, forKey: .recipients)
        case .textChannel(let id, let server, let name, let description):
            try container.encode("TextChannel", forKey: .channelType)
            try container.encode(id, forKey: .id)
            try container.encode(server, forKey: .server)
            try container.encode(name, forKey: .name)
            try container.encodeIfPresent(description, forKey: .description)
        }
    }
}

/// A user's membership of a server: `_id: {server, user}`, `joined_at` (ISO 8601), optional `nickname`,
/// `roles` omitted when empty.
public struct StoatMember: Sendable, Equatable, Codable {
    /// The server's id.
    public var serverID: String
    /// The member's user id.
    public var userID: String
    /// When the user joined, as an ISO 8601 timestamp with milliseconds (Stoat's format).
    public var joinedAt: String
    /// The nickname in this server, if any.
    public var nickname: String?
    /// The ids of the member's roles.
    public var roles: [String]

    /// Creates a membership.
    public init(serverID: String, userID: String, joinedAt: String, nickname: String? = nil, roles: [String] = []) {
        self.serverID = serverID
        self.userID = userID
        self.joinedAt = joinedAt
        self.nickname = nickname
        self.roles = roles
    }

    struct Key: Codable, Hashable {
        var server: String
        var user: String
    }

    enum CodingKeys: String, CodingKey {
        case id = "_id"
        case joinedAt = "joined_at"
        case nickname, roles
    }

    /// Decodes a member from Stoat's wire shape.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let key = try container.decode(Key.self, forKey: .id)
        serverID = key.server
        userID = key.user
        joinedAt = try container.decode(String.self, forKey: .joinedAt)
        nickname = try container.decodeIfPresent(String.self, forKey: .nickname)
        roles = try container.decodeIfPresent([String].self, forKey: .roles) ?? []
    }

    /// Encodes the member in Stoat's wire shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Key(server: serverID, user: userID), forKey: .id)
        try container.encode(joinedAt, forKey: .joinedAt)
        try container.encodeIfPresent(nickname, forKey: .nickname)
        if !roles.isEmpty { try container.encode(roles, forKey: .roles) }
    }
}

/// A custom emoji of a server: `_id`, `parent: {"type":"Server","id":…}`, `creator_id`, `name`, and
/// `animated` omitted when false.
public struct StoatEmoji: Sendable, Equatable, Codable {
    /// The emoji's id.
    public var id: String
    /// The server the emoji belongs to.
    public var serverID: String
    /// The user who created it.
    public var creatorID: String
    /// The emoji's name.
    public var name: String
    /// Whether the emoji is animated.
    public var animated: Bool

    /// Creates an emoji.
    public init(id: String, serverID: String, creatorID: String, name: String, animated: Bool = false) {
        self.id = id
        self.serverID = serverID
        self.creatorID = creatorID
        self.name = name
        self.animated = animated
    }

    struct Parent: Codable {
        var type: String
        var id: String
    }

    enum CodingKeys: String, CodingKey {
        case id = "_id"
        case parent
        case creatorID = "creator_id"
        case name, animated
    }

    /// Decodes an emoji from Stoat's wire shape.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        serverID = try container.decode(Parent.self, forKey: .parent).id
        creatorID = try container.decode(String.self, forKey: .creatorID)
        name = try container.decode(String.self, forKey: .name)
        animated = try container.decodeIfPresent(Bool.self, forKey: .animated) ?? false
    }

    /// Encodes the emoji in Stoat's wire shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(Parent(type: "Server", id: serverID), forKey: .parent)
        try container.encode(creatorID, forKey: .creatorID)
        try container.encode(name, forKey: .name)
        if animated { try container.encode(animated, forKey: .animated) }
    }
}

/// An operation awaiting the user's decision (for example a login to approve on another device), listed by
/// `GET /operations` until it finishes or expires.
public struct StoatOperation: Sendable, Equatable, Codable {
    /// The operation's id.
    public var id: String
    /// What kind of operation it is, free text (`"login_approval"`, …).
    public var kind: String
    /// The user who owns it; its end is announced to this user's sockets.
    public var userID: String
    /// When it expires, in the server's clock.
    public var expiresAt: Date

    /// Creates an operation.
    public init(id: String, kind: String, userID: String, expiresAt: Date) {
        self.id = id
        self.kind = kind
        self.userID = userID
        self.expiresAt = expiresAt
    }
}

/// How an operation ended, as `OperationFinished`'s `result` says it.
public struct OperationResult: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The wire value: `approved`, `rejected` or `timeout`.
    public let rawValue: String

    /// The user approved it.
    public static let approved = OperationResult(rawValue: "approved")
    /// The user rejected it.
    public static let rejected = OperationResult(rawValue: "rejected")
    /// It reached its expiry in the server's clock.
    public static let timeout = OperationResult(rawValue: "timeout")

    /// The wire value.
    public var description: String { rawValue }

    /// Creates a result from its wire value.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Decodes the wire value.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the wire value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// The health service's outage alert (`GET /api/health`'s `alert`).
public struct HealthAlert: Sendable, Equatable, Codable {
    /// A button of the alert.
    public struct Action: Sendable, Equatable, Codable {
        /// The button's text.
        public var text: String
        /// `internal` or `external`.
        public var type: String
        /// Where it leads.
        public var href: String

        /// Creates an action.
        public init(text: String, type: String, href: String) {
            self.text = text
            self.type = type
            self.href = href
        }
    }

    /// The alert's text.
    public var text: String
    /// Whether the user may dismiss it.
    public var dismissable: Bool?
    /// Its buttons.
    public var actions: [Action]?

    /// Creates an alert.
    public init(text: String, dismissable: Bool? = nil, actions: [Action]? = nil) {
        self.text = text
        self.dismissable = dismissable
        self.actions = actions
    }
}

/// Stoat's timestamp format: ISO 8601 in UTC with milliseconds (`2024-06-26T10:00:00.000Z`).
enum StoatTimestamp {
    static func string(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    static func date(_ string: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(string) {
            return date
        }
        return try? Date.ISO8601FormatStyle().parse(string)
    }
}
