/// The fields of a ``Server`` a `ServerUpdate` changes (stoatchat's `PartialServer`): each set field replaces
/// the server's; unset fields stay as they are.
public struct PartialServer: Sendable, Hashable, Codable {
    /// The owner.
    public var owner: String?
    /// The name.
    public var name: String?
    /// The description.
    public var description: String?
    /// The channel ids, in order.
    public var channels: [String]?
    /// The categories.
    public var categories: [Server.Category]?
    /// Where system messages are posted.
    public var systemMessages: Server.SystemMessageChannels?
    /// The roles by id.
    public var roles: [String: Server.Role]?
    /// The permissions everyone has.
    public var defaultPermissions: Int64?
    /// The icon.
    public var icon: File?
    /// The banner.
    public var banner: File?
    /// The server flags.
    public var flags: Int?
    /// Whether it is marked NSFW.
    public var nsfw: Bool?
    /// Whether analytics are on.
    public var analytics: Bool?
    /// Whether it is discoverable.
    public var discoverable: Bool?

    /// Creates a partial with the given fields set.
    public init(
        owner: String? = nil, name: String? = nil, description: String? = nil, channels: [String]? = nil,
        categories: [Server.Category]? = nil, systemMessages: Server.SystemMessageChannels? = nil,
        roles: [String: Server.Role]? = nil, defaultPermissions: Int64? = nil, icon: File? = nil,
        banner: File? = nil, flags: Int? = nil, nsfw: Bool? = nil, analytics: Bool? = nil,
        discoverable: Bool? = nil
    ) {
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
    }

    /// Whether no field is set.
    public var isEmpty: Bool { self == PartialServer() }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case owner
        case name
        case description
        case channels
        case categories
        case systemMessages = "system_messages"
        case roles
        case defaultPermissions = "default_permissions"
        case icon
        case banner
        case flags
        case nsfw
        case analytics
        case discoverable
    }
}
