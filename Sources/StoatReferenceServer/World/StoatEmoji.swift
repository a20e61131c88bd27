/// A custom emoji of a server: `_id`, `parent: {"type":"Server","id":…}`, `creator_id`, `name`, and
/// `animated` (left out when false).
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

extension StoatEmoji: WireEncodable {
    var wire: Wire {
        .object([
            "_id": .string(id),
            "parent": .object(["type": .string("Server"), "id": .string(serverID)]),
            "creator_id": .string(creatorID),
            "name": .string(name),
            "animated": animated ? .bool(true) : nil,
        ])
    }
}
