#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A Stoat user as the API and the events socket send it.
///
/// Written in stoatchat's field order: `_id`, `username`, `discriminator`, `display_name`, `relations` (the
/// viewer's own, only when the viewer is this user), `badges` and `flags` (left out when 0), `privileged` (left
/// out when false), `bot` (`{"owner": …}` for a bot), `relationship` and `online`. The server fills in
/// ``relationship`` and ``online`` for each viewer when it writes the user: `"User"` for the viewer themselves,
/// the viewer's relationship otherwise; online when the user has an authenticated socket (stoatchat's presence).
public struct StoatUser: Sendable, Equatable, Codable {
    /// The user's id (a ULID).
    public var id: String
    /// The username (see ``UsernameRule``).
    public var username: String
    /// The four-digit discriminator that tells users with one username apart.
    public var discriminator: String
    /// The display name, if the user set one.
    public var displayName: String?
    /// Badge bits; left out on the wire when 0.
    public var badges: UInt32
    /// Flag bits: 1 suspended, 2 deleted, 4 banned, 8 removed as spam; left out on the wire when 0.
    public var flags: UInt32
    /// Whether the user is privileged; left out on the wire when false.
    public var privileged: Bool
    /// The relationship the viewer has with this user, as last written; the server recomputes it per viewer.
    public var relationship: String
    /// Whether the user is online, as last written; the server recomputes it from presence per answer.
    public var online: Bool
    /// For a bot, the user id of its owner (`"bot": {"owner": …}`); nil for a person.
    public var botOwner: String?
    /// This user's relationships with others (`_id` and `status`), written only to the user themselves.
    var relations: [Relation] = []

    /// One relationship of a user with another (`{"_id": other, "status": "Friend"}`).
    struct Relation: Sendable, Equatable, Codable {
        var id: String
        var status: String

        enum CodingKeys: String, CodingKey {
            case id = "_id"
            case status
        }
    }

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
        online: Bool = false,
        botOwner: String? = nil
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
        self.botOwner = botOwner
    }

    enum CodingKeys: String, CodingKey {
        case id = "_id"
        case username, discriminator
        case displayName = "display_name"
        case relations, badges, flags, privileged, bot, relationship, online
    }

    struct BotInformation: Codable {
        var owner: String
    }

    /// Decodes a user from Stoat's wire shape; absent optional fields take their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        username = try container.decode(String.self, forKey: .username)
        discriminator = try container.decode(String.self, forKey: .discriminator)
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        relations = try container.decodeIfPresent([Relation].self, forKey: .relations) ?? []
        badges = try container.decodeIfPresent(UInt32.self, forKey: .badges) ?? 0
        flags = try container.decodeIfPresent(UInt32.self, forKey: .flags) ?? 0
        privileged = try container.decodeIfPresent(Bool.self, forKey: .privileged) ?? false
        botOwner = try container.decodeIfPresent(BotInformation.self, forKey: .bot)?.owner
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
        if !relations.isEmpty { try container.encode(relations, forKey: .relations) }
        if badges != 0 { try container.encode(badges, forKey: .badges) }
        if flags != 0 { try container.encode(flags, forKey: .flags) }
        if privileged { try container.encode(privileged, forKey: .privileged) }
        try container.encodeIfPresent(botOwner.map(BotInformation.init), forKey: .bot)
        try container.encode(relationship, forKey: .relationship)
        try container.encode(online, forKey: .online)
    }

    /// The relationship this user has with `otherID`: `"User"` for themselves, their relation's status, or
    /// `"None"`.
    func relationship(with otherID: String) -> String {
        if otherID == id { return "User" }
        return relations.first { $0.id == otherID }?.status ?? "None"
    }

    /// This user as `viewer` sees it (stoatchat's `into`, `into_known` and `into_self`): relationship and online
    /// computed, relations only for the user themselves.
    func seen(by viewer: StoatUser?, online isOnline: Bool) -> StoatUser {
        var user = self
        if let viewer, viewer.id == id {
            user.relationship = "User"
        } else {
            user.relations = []
            user.relationship = botOwner != nil ? "None" : (viewer?.relationship(with: id) ?? "None")
        }
        user.online = isOnline
        return user
    }
}

extension StoatUser: WireEncodable {
    var wire: Wire {
        var fields: [Wire.Field] = [
            .init(key: "_id", value: .string(id)),
            .init(key: "username", value: .string(username)),
            .init(key: "discriminator", value: .string(discriminator)),
        ]
        if let displayName { fields.append(.init(key: "display_name", value: .string(displayName))) }
        if !relations.isEmpty {
            let list = relations.map { Wire.object(["_id": .string($0.id), "status": .string($0.status)]) }
            fields.append(.init(key: "relations", value: .array(list)))
        }
        if badges != 0 { fields.append(.init(key: "badges", value: .uint(UInt64(badges)))) }
        if flags != 0 { fields.append(.init(key: "flags", value: .uint(UInt64(flags)))) }
        if privileged { fields.append(.init(key: "privileged", value: .bool(true))) }
        if let botOwner { fields.append(.init(key: "bot", value: .object(["owner": .string(botOwner)]))) }
        fields.append(.init(key: "relationship", value: .string(relationship)))
        fields.append(.init(key: "online", value: .bool(online)))
        return .object(fields)
    }
}
