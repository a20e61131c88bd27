/// A Stoat user, as `GET /users/@me`, onboarding and `Ready` describe it.
///
/// Fields Lifeline does not model are ignored when decoding; optional fields absent on the wire stay
/// `nil`, and `flags` (omitted by the server when 0) decodes as 0.
public struct User: Sendable, Hashable, Codable, Identifiable {
    /// The user's id (`_id`).
    public var id: String
    /// The username.
    public var username: String
    /// The four-digit discriminator.
    public var discriminator: String
    /// The display name, if set.
    public var displayName: String?
    /// The avatar, if set.
    public var avatar: File?
    /// Badge bits.
    public var badges: Int?
    /// The user's status (text and presence), if known.
    public var status: Status?
    /// Account flags: 1 suspended, 2 deleted, 4 banned, 8 removed as spam; 0 when omitted.
    public var flags: Int
    /// Whether the user is a platform administrator.
    public var privileged: Bool?
    /// The bot's owner, when the user is a bot.
    public var bot: Bot?
    /// The relationship to the current user (`None`, `User`, `Friend`, …).
    public var relationship: String?
    /// Whether the user is online.
    public var online: Bool?

    /// A user's status.
    public struct Status: Sendable, Hashable, Codable {
        /// Custom status text.
        public var text: String?
        /// Presence (`Online`, `Idle`, `Focus`, `Busy`, `Invisible`).
        public var presence: String?

        /// Creates a status.
        public init(text: String? = nil, presence: String? = nil) {
            self.text = text
            self.presence = presence
        }
    }

    /// Information about a bot user.
    public struct Bot: Sendable, Hashable, Codable {
        /// The bot's owner.
        public var owner: String

        /// Creates bot information.
        public init(owner: String) { self.owner = owner }
    }

    /// Creates a user.
    public init(
        id: String, username: String, discriminator: String, displayName: String? = nil, avatar: File? = nil,
        badges: Int? = nil, status: Status? = nil, flags: Int = 0, privileged: Bool? = nil, bot: Bot? = nil,
        relationship: String? = nil, online: Bool? = nil
    ) {
        self.id = id
        self.username = username
        self.discriminator = discriminator
        self.displayName = displayName
        self.avatar = avatar
        self.badges = badges
        self.status = status
        self.flags = flags
        self.privileged = privileged
        self.bot = bot
        self.relationship = relationship
        self.online = online
    }

    enum CodingKeys: String, CodingKey {
        case id = "_id"
        case username, discriminator
        case displayName = "display_name"
        case avatar, badges, status, flags, privileged, bot, relationship, online
    }

    /// Decodes a user; `flags` defaults to 0.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        username = try container.decode(String.self, forKey: .username)
        discriminator = try container.decodeIfPresent(String.self, forKey: .discriminator) ?? ""
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        avatar = try container.decodeIfPresent(File.self, forKey: .avatar)
        badges = try container.decodeIfPresent(Int.self, forKey: .badges)
        status = try container.decodeIfPresent(Status.self, forKey: .status)
        flags = try container.decodeIfPresent(Int.self, forKey: .flags) ?? 0
        privileged = try container.decodeIfPresent(Bool.self, forKey: .privileged)
        bot = try container.decodeIfPresent(Bot.self, forKey: .bot)
        relationship = try container.decodeIfPresent(String.self, forKey: .relationship)
        online = try container.decodeIfPresent(Bool.self, forKey: .online)
    }
}

/// A file on Stoat's file server (an avatar, an icon, an attachment).
public struct File: Sendable, Hashable, Codable, Identifiable {
    /// The file's id (`_id`).
    public var id: String
    /// The bucket it lives in (`avatars`, `icons`, `attachments`, …).
    public var tag: String
    /// The original file name.
    public var filename: String?
    /// The MIME type.
    public var contentType: String?
    /// The size in bytes.
    public var size: Int?

    /// Creates a file reference.
    public init(id: String, tag: String, filename: String? = nil, contentType: String? = nil, size: Int? = nil) {
        self.id = id
        self.tag = tag
        self.filename = filename
        self.contentType = contentType
        self.size = size
    }

    enum CodingKeys: String, CodingKey {
        case id = "_id"
        case tag, filename
        case contentType = "content_type"
        case size
    }
}
