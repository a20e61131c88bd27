/// A Stoat server (a "guild").
///
/// Written in stoatchat's field order: `_id`, `owner`, `name`, `description` (left out when nil), `channels`
/// (ids), `roles` (left out when empty), `default_permissions`, `flags` (left out when 0) and `approximate_member_count`, which the server
/// counts when it writes the server.
public struct StoatServer: Sendable, Equatable, Codable {
    /// The server's id.
    public var id: String
    /// The owner's user id; the owner has every permission in the server's channels.
    public var owner: String
    /// The server's name.
    public var name: String
    /// The description, if any.
    public var description: String?
    /// The ids of the server's channels, in order.
    public var channels: [String]
    /// The server's roles by id (see ``StoatRole``).
    public var roles: [String: StoatRole]
    /// The permission bits every member has by default (see ``StoatPermission``).
    public var defaultPermissions: Int64
    /// Server flag bits (1 official, 2 verified); left out on the wire when 0.
    public var flags: UInt32
    /// How many members the server has, filled in when the server is written.
    var approximateMemberCount = 0

    /// Creates a server. The default permissions are stoatchat's for a new server
    /// (``StoatPermission/defaultServer``).
    public init(
        id: String,
        owner: String,
        name: String,
        description: String? = nil,
        channels: [String] = [],
        roles: [String: StoatRole] = [:],
        defaultPermissions: Int64 = Int64(StoatPermission.defaultServer.rawValue),
        flags: UInt32 = 0
    ) {
        self.id = id
        self.owner = owner
        self.name = name
        self.description = description
        self.channels = channels
        self.roles = roles
        self.defaultPermissions = defaultPermissions
        self.flags = flags
    }

    enum CodingKeys: String, CodingKey {
        case id = "_id"
        case owner, name, description, channels, roles
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
        roles = try container.decodeIfPresent([String: StoatRole].self, forKey: .roles) ?? [:]
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
        if !roles.isEmpty { try container.encode(roles, forKey: .roles) }
        try container.encode(defaultPermissions, forKey: .defaultPermissions)
        if flags != 0 { try container.encode(flags, forKey: .flags) }
    }
}

extension StoatServer: WireEncodable {
    var wire: Wire {
        var fields: [Wire.Field] = [
            .init(key: "_id", value: .string(id)),
            .init(key: "owner", value: .string(owner)),
            .init(key: "name", value: .string(name)),
        ]
        if let description { fields.append(.init(key: "description", value: .string(description))) }
        fields.append(.init(key: "channels", value: .strings(channels)))
        if !roles.isEmpty {
            let sorted = roles.sorted { $0.key < $1.key }
            fields.append(.init(key: "roles", value: .object(sorted.map { .init(key: $0.key, value: $0.value.wire) })))
        }
        fields.append(.init(key: "default_permissions", value: .int(defaultPermissions)))
        if flags != 0 { fields.append(.init(key: "flags", value: .uint(UInt64(flags)))) }
        fields.append(.init(key: "approximate_member_count", value: .integer(approximateMemberCount)))
        return .object(fields)
    }
}
