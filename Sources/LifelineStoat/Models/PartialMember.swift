#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The fields of a ``Member`` a `ServerMemberUpdate` changes (stoatchat's `PartialMember`): each set field
/// replaces the member's; unset fields stay as they are. A new ``timeout`` comes through here.
public struct PartialMember: Sendable, Hashable, Codable {
    /// When the user joined.
    public var joinedAt: Date?
    /// The nickname.
    public var nickname: String?
    /// The pronouns.
    public var pronouns: String?
    /// The avatar.
    public var avatar: File?
    /// The role ids.
    public var roles: [String]?
    /// Until when the member is timed out, on the server's clock.
    public var timeout: Date?
    /// Whether the member may speak in voice.
    public var canPublish: Bool?
    /// Whether the member may listen in voice.
    public var canReceive: Bool?

    /// Creates a partial with the given fields set.
    public init(
        joinedAt: Date? = nil, nickname: String? = nil, pronouns: String? = nil, avatar: File? = nil,
        roles: [String]? = nil, timeout: Date? = nil, canPublish: Bool? = nil, canReceive: Bool? = nil
    ) {
        self.joinedAt = joinedAt
        self.nickname = nickname
        self.pronouns = pronouns
        self.avatar = avatar
        self.roles = roles
        self.timeout = timeout
        self.canPublish = canPublish
        self.canReceive = canReceive
    }

    /// Whether no field is set.
    public var isEmpty: Bool { self == PartialMember() }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case joinedAt = "joined_at"
        case nickname
        case pronouns
        case avatar
        case roles
        case timeout
        case canPublish = "can_publish"
        case canReceive = "can_receive"
    }

    /// Decodes a partial; timestamps are ISO 8601.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        joinedAt = try container.decodeTimestampIfPresent(forKey: .joinedAt)
        nickname = try container.decodeIfPresent(String.self, forKey: .nickname)
        pronouns = try container.decodeIfPresent(String.self, forKey: .pronouns)
        avatar = try container.decodeIfPresent(File.self, forKey: .avatar)
        roles = try container.decodeIfPresent([String].self, forKey: .roles)
        timeout = try container.decodeTimestampIfPresent(forKey: .timeout)
        canPublish = try container.decodeIfPresent(Bool.self, forKey: .canPublish)
        canReceive = try container.decodeIfPresent(Bool.self, forKey: .canReceive)
    }

    /// Encodes the fields that are set; timestamps as ISO 8601.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
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
