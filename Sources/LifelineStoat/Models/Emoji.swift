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

        enum CodingKeys: String, CodingKey, CaseIterable {
            case type, id
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

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id = "_id"
        case parent
        case creatorID = "creator_id"
        case name, animated, nsfw
    }
}
