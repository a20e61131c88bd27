/// A Stoat server (a "guild"), as `Ready`, `GET /servers/{id}` and server events describe it.
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
    /// The channel categories, if any.
    public var categories: [Category]?
    /// Where system messages (joins, leaves, kicks, bans) are posted.
    public var systemMessages: SystemMessageChannels?
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
    /// Whether analytics are on.
    public var analytics: Bool?
    /// Whether the server is publicly discoverable.
    public var discoverable: Bool?
    /// About how many members the server has.
    public var approximateMemberCount: Int?

    /// A role of a server.
    public struct Role: Sendable, Hashable, Codable {
        /// The role's id (`_id`), when the server sends it inside the role.
        public var id: String?
        /// The role's name.
        public var name: String
        /// What the role allows and denies.
        public var permissions: PermissionOverride?
        /// Its colour, as CSS.
        public var colour: String?
        /// Whether members with it are shown apart.
        public var hoist: Bool?
        /// Its rank: lower is higher.
        public var rank: Int64?
        /// Its icon, if any.
        public var icon: File?

        /// Creates a role.
        public init(
            id: String? = nil, name: String, permissions: PermissionOverride? = nil, colour: String? = nil,
            hoist: Bool? = nil, rank: Int64? = nil, icon: File? = nil
        ) {
            self.id = id
            self.name = name
            self.permissions = permissions
            self.colour = colour
            self.hoist = hoist
            self.rank = rank
            self.icon = icon
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case id = "_id"
            case name, permissions, colour, hoist, rank, icon
        }
    }

    /// A category of channels.
    public struct Category: Sendable, Hashable, Codable, Identifiable {
        /// The category's id.
        public var id: String
        /// Its title.
        public var title: String
        /// The ids of its channels, in order.
        public var channels: [String]

        /// Creates a category.
        public init(id: String, title: String, channels: [String] = []) {
            self.id = id
            self.title = title
            self.channels = channels
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case id, title, channels
        }
    }

    /// The channels system messages are posted in.
    public struct SystemMessageChannels: Sendable, Hashable, Codable {
        /// Where joins are posted.
        public var userJoined: String?
        /// Where leaves are posted.
        public var userLeft: String?
        /// Where kicks are posted.
        public var userKicked: String?
        /// Where bans are posted.
        public var userBanned: String?

        /// Creates the assignments.
        public init(
            userJoined: String? = nil, userLeft: String? = nil, userKicked: String? = nil, userBanned: String? = nil
        ) {
            self.userJoined = userJoined
            self.userLeft = userLeft
            self.userKicked = userKicked
            self.userBanned = userBanned
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case userJoined = "user_joined"
            case userLeft = "user_left"
            case userKicked = "user_kicked"
            case userBanned = "user_banned"
        }
    }

    /// A field a `ServerUpdate` can clear (stoatchat's `FieldsServer`).
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
        /// The categories.
        public static let categories = Field(rawValue: "Categories")
        /// The system message channels.
        public static let systemMessages = Field(rawValue: "SystemMessages")
        /// The icon.
        public static let icon = Field(rawValue: "Icon")
        /// The banner.
        public static let banner = Field(rawValue: "Banner")

        /// The wire name.
        public var description: String { rawValue }
    }

    /// Creates a server.
    public init(
        id: String, owner: String, name: String, description: String? = nil, channels: [String] = [],
        categories: [Category]? = nil, systemMessages: SystemMessageChannels? = nil, roles: [String: Role]? = nil,
        defaultPermissions: Int64? = nil, icon: File? = nil, banner: File? = nil, flags: Int? = nil,
        nsfw: Bool? = nil, analytics: Bool? = nil, discoverable: Bool? = nil, approximateMemberCount: Int? = nil
    ) {
        self.id = id
        self.owner = owner
        self.name = name
        self.description = description
        self.channels = channels
        self.categories = categories
        self.systemMessages = systemMessages
        self.roles = roles
        self.defaultPermissions = defaultPermissions
        self.icon = icon
        self.banner = banner
        self.flags = flags
        self.nsfw = nsfw
        self.analytics = analytics
        self.discoverable = discoverable
        self.approximateMemberCount = approximateMemberCount
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id = "_id"
        case owner, name, description, channels, categories
        case systemMessages = "system_messages"
        case roles
        case defaultPermissions = "default_permissions"
        case icon, banner, flags, nsfw, analytics, discoverable
        case approximateMemberCount = "approximate_member_count"
    }
}
