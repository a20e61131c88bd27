/// The fields of a ``User`` a `UserUpdate` changes (stoatchat's `PartialUser`): each set field replaces the
/// user's; unset fields stay as they are.
public struct PartialUser: Sendable, Hashable, Codable {
    /// The username.
    public var username: String?
    /// The discriminator.
    public var discriminator: String?
    /// The display name.
    public var displayName: String?
    /// The pronouns.
    public var pronouns: String?
    /// The avatar.
    public var avatar: File?
    /// The current user's relationships.
    public var relations: [User.Relationship]?
    /// The badge bits.
    public var badges: Int?
    /// The status.
    public var status: User.Status?
    /// The account flags.
    public var flags: Int?
    /// Whether the user is a platform administrator.
    public var privileged: Bool?
    /// The bot information.
    public var bot: User.Bot?
    /// The relationship to the current user.
    public var relationship: String?
    /// Whether the user is online.
    public var online: Bool?

    /// Creates a partial with the given fields set.
    public init(
        username: String? = nil, discriminator: String? = nil, displayName: String? = nil, pronouns: String? = nil,
        avatar: File? = nil, relations: [User.Relationship]? = nil, badges: Int? = nil, status: User.Status? = nil,
        flags: Int? = nil, privileged: Bool? = nil, bot: User.Bot? = nil, relationship: String? = nil,
        online: Bool? = nil
    ) {
        self.username = username
        self.discriminator = discriminator
        self.displayName = displayName
        self.pronouns = pronouns
        self.avatar = avatar
        self.relations = relations
        self.badges = badges
        self.status = status
        self.flags = flags
        self.privileged = privileged
        self.bot = bot
        self.relationship = relationship
        self.online = online
    }

    /// Whether no field is set.
    public var isEmpty: Bool { self == PartialUser() }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case username
        case discriminator
        case displayName = "display_name"
        case pronouns
        case avatar
        case relations
        case badges
        case status
        case flags
        case privileged
        case bot
        case relationship
        case online
    }
}
