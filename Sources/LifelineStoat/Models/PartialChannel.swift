/// The fields of a ``Channel`` a `ChannelUpdate` changes (stoatchat's `PartialChannel`): each set field
/// replaces the channel's; unset fields stay as they are.
public struct PartialChannel: Sendable, Hashable, Codable {
    /// The name.
    public var name: String?
    /// The group's owner.
    public var owner: String?
    /// The description.
    public var description: String?
    /// The icon.
    public var icon: File?
    /// Whether it is marked NSFW.
    public var nsfw: Bool?
    /// Whether a direct message is open.
    public var active: Bool?
    /// What a group's members may do.
    public var permissions: Int64?
    /// What each role may do, by role id.
    public var rolePermissions: [String: PermissionOverride]?
    /// What everyone may do.
    public var defaultPermissions: PermissionOverride?
    /// The id of the last message.
    public var lastMessageID: String?
    /// The voice settings.
    public var voice: Channel.Voice?
    /// The slowmode, in seconds.
    public var slowmode: Int?

    /// Creates a partial with the given fields set.
    public init(
        name: String? = nil, owner: String? = nil, description: String? = nil, icon: File? = nil, nsfw: Bool? = nil,
        active: Bool? = nil, permissions: Int64? = nil, rolePermissions: [String: PermissionOverride]? = nil,
        defaultPermissions: PermissionOverride? = nil, lastMessageID: String? = nil, voice: Channel.Voice? = nil,
        slowmode: Int? = nil
    ) {
        self.name = name
        self.owner = owner
        self.description = description
        self.icon = icon
        self.nsfw = nsfw
        self.active = active
        self.permissions = permissions
        self.rolePermissions = rolePermissions
        self.defaultPermissions = defaultPermissions
        self.lastMessageID = lastMessageID
        self.voice = voice
        self.slowmode = slowmode
    }

    /// Whether no field is set.
    public var isEmpty: Bool { self == PartialChannel() }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name
        case owner
        case description
        case icon
        case nsfw
        case active
        case permissions
        case rolePermissions = "role_permissions"
        case defaultPermissions = "default_permissions"
        case lastMessageID = "last_message_id"
        case voice
        case slowmode
    }
}
