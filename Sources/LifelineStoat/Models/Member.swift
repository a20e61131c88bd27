#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A user's membership of a server.
///
/// ``timeout`` is a date on the server's clock: until it passes the member cannot send in the server.
/// Compare it with the server's clock (a response's `Date`), not with the device's.
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

        enum CodingKeys: String, CodingKey, CaseIterable {
            case server, user
        }
    }

    /// Why a member left a server (`ServerMemberLeave`'s `reason`).
    public struct RemovalReason: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible {
        /// The wire name.
        public var rawValue: String
        /// Creates a reason from its wire name.
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

        /// The member left.
        public static let leave = RemovalReason(rawValue: "Leave")
        /// The member was kicked.
        public static let kick = RemovalReason(rawValue: "Kick")
        /// The member was banned.
        public static let ban = RemovalReason(rawValue: "Ban")

        /// The wire name.
        public var description: String { rawValue }
    }

    /// A field a `ServerMemberUpdate` can clear (stoatchat's `FieldsMember`).
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

        /// The nickname.
        public static let nickname = Field(rawValue: "Nickname")
        /// The pronouns.
        public static let pronouns = Field(rawValue: "Pronouns")
        /// The avatar.
        public static let avatar = Field(rawValue: "Avatar")
        /// The roles.
        public static let roles = Field(rawValue: "Roles")
        /// The timeout: the member may speak again.
        public static let timeout = Field(rawValue: "Timeout")
        /// Whether the member may listen in voice.
        public static let canReceive = Field(rawValue: "CanReceive")
        /// Whether the member may speak in voice.
        public static let canPublish = Field(rawValue: "CanPublish")
        /// When the member joined.
        public static let joinedAt = Field(rawValue: "JoinedAt")
        /// The voice channel.
        public static let voiceChannel = Field(rawValue: "VoiceChannel")

        /// The wire name.
        public var description: String { rawValue }
    }

    /// The server and the user (`_id`).
    public var id: ID
    /// When the user joined.
    public var joinedAt: Date?
    /// The nickname on this server, if any.
    public var nickname: String?
    /// The pronouns on this server, if any.
    public var pronouns: String?
    /// The avatar on this server, if any.
    public var avatar: File?
    /// The ids of the member's roles.
    public var roles: [String]?
    /// Until when the member is timed out, on the server's clock, if they are.
    public var timeout: Date?
    /// Whether the member may speak in voice; `nil` (absent) means yes.
    public var canPublish: Bool?
    /// Whether the member may listen in voice; `nil` (absent) means yes.
    public var canReceive: Bool?

    /// Creates a member.
    public init(
        id: ID, joinedAt: Date? = nil, nickname: String? = nil, pronouns: String? = nil, avatar: File? = nil,
        roles: [String]? = nil, timeout: Date? = nil, canPublish: Bool? = nil, canReceive: Bool? = nil
    ) {
        self.id = id
        self.joinedAt = joinedAt
        self.nickname = nickname
        self.pronouns = pronouns
        self.avatar = avatar
        self.roles = roles
        self.timeout = timeout
        self.canPublish = canPublish
        self.canReceive = canReceive
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id = "_id"
        case joinedAt = "joined_at"
        case nickname, pronouns, avatar, roles, timeout
        case canPublish = "can_publish"
        case canReceive = "can_receive"
    }

    /// Decodes a member; `joined_at` and `timeout` are ISO 8601 timestamps.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(ID.self, forKey: .id)
        joinedAt = try container.decodeTimestampIfPresent(forKey: .joinedAt)
        nickname = try container.decodeIfPresent(String.self, forKey: .nickname)
        pronouns = try container.decodeIfPresent(String.self, forKey: .pronouns)
        avatar = try container.decodeIfPresent(File.self, forKey: .avatar)
        roles = try container.decodeIfPresent([String].self, forKey: .roles)
        timeout = try container.decodeTimestampIfPresent(forKey: .timeout)
        canPublish = try container.decodeIfPresent(Bool.self, forKey: .canPublish)
        canReceive = try container.decodeIfPresent(Bool.self, forKey: .canReceive)
    }

    /// Encodes a member as stoatchat does, timestamps as ISO 8601.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encodeTimestampIfPresent(joinedAt, forKey: .joinedAt)
        try container.encodeIfPresent(nickname, forKey: .nickname)
        try container.encodeIfPresent(pronouns, forKey: .pronouns)
        try container.encodeIfPresent(avatar, forKey: .avatar)
        try container.encodeIfPresent(roles, forKey: .roles)
        try container.encodeTimestampIfPresent(timeout, forKey: .timeout)
        try container.encodeIfPresent(canPublish, forKey: .canPublish)
        try container.encodeIfPresent(canReceive, forKey: .canReceive)
    }
}
