/// A Stoat user, as `GET /users/…`, onboarding, `Ready` and user events describe it.
///
/// Fields Lifeline does not model are ignored when decoding; optional fields absent on the wire stay
/// `nil`, `flags` (omitted by the server when 0) decodes as 0, and a missing `discriminator` as "".
public struct User: Sendable, Hashable, Codable, Identifiable {
    /// The user's id (`_id`).
    public var id: String
    /// The username.
    public var username: String
    /// The four-digit discriminator.
    public var discriminator: String
    /// The display name, if set.
    public var displayName: String?
    /// The pronouns, if set.
    public var pronouns: String?
    /// The avatar, if set.
    public var avatar: File?
    /// The current user's relationships with others (only on the current user).
    public var relations: [Relationship]?
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
    /// The relationship to the current user (`None`, `User`, `Friend`, `Outgoing`, `Incoming`, `Blocked`,
    /// `BlockedOther`).
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

        enum CodingKeys: String, CodingKey, CaseIterable {
            case text, presence
        }
    }

    /// Information about a bot user.
    public struct Bot: Sendable, Hashable, Codable {
        /// The bot's owner.
        public var owner: String

        /// Creates bot information.
        public init(owner: String) { self.owner = owner }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case owner
        }
    }

    /// The current user's relationship with another user.
    public struct Relationship: Sendable, Hashable, Codable {
        /// The other user's id (`_id`).
        public var userID: String
        /// The relationship (`Friend`, `Outgoing`, `Incoming`, `Blocked`, …).
        public var status: String

        /// Creates a relationship.
        public init(userID: String, status: String) {
            self.userID = userID
            self.status = status
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case userID = "_id"
            case status
        }
    }

    /// A field a `UserUpdate` can clear (stoatchat's `FieldsUser`).
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

        /// The avatar.
        public static let avatar = Field(rawValue: "Avatar")
        /// The status text.
        public static let statusText = Field(rawValue: "StatusText")
        /// The presence.
        public static let statusPresence = Field(rawValue: "StatusPresence")
        /// The profile's text.
        public static let profileContent = Field(rawValue: "ProfileContent")
        /// The profile's background.
        public static let profileBackground = Field(rawValue: "ProfileBackground")
        /// The display name.
        public static let displayName = Field(rawValue: "DisplayName")
        /// The pronouns.
        public static let pronouns = Field(rawValue: "Pronouns")

        /// The wire name.
        public var description: String { rawValue }
    }

    /// Creates a user.
    public init(
        id: String, username: String, discriminator: String, displayName: String? = nil, pronouns: String? = nil,
        avatar: File? = nil, relations: [Relationship]? = nil, badges: Int? = nil, status: Status? = nil,
        flags: Int = 0, privileged: Bool? = nil, bot: Bot? = nil, relationship: String? = nil, online: Bool? = nil
    ) {
        self.id = id
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

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id = "_id"
        case username, discriminator
        case displayName = "display_name"
        case pronouns, avatar, relations, badges, status, flags, privileged, bot, relationship, online
    }

    /// Decodes a user; `flags` defaults to 0 and `discriminator` to "".
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        username = try container.decode(String.self, forKey: .username)
        discriminator = try container.decodeIfPresent(String.self, forKey: .discriminator) ?? ""
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        pronouns = try container.decodeIfPresent(String.self, forKey: .pronouns)
        // Stoat's new events server writes a user without an avatar as `avatar: {}` in `Ready`.
        avatar = try container.decodeIfPresent(FileOrEmpty.self, forKey: .avatar)?.file
        relations = try container.decodeIfPresent([Relationship].self, forKey: .relations)
        badges = try container.decodeIfPresent(Int.self, forKey: .badges)
        status = try container.decodeIfPresent(Status.self, forKey: .status)
        flags = try container.decodeIfPresent(Int.self, forKey: .flags) ?? 0
        privileged = try container.decodeIfPresent(Bool.self, forKey: .privileged)
        bot = try container.decodeIfPresent(Bot.self, forKey: .bot)
        relationship = try container.decodeIfPresent(String.self, forKey: .relationship)
        online = try container.decodeIfPresent(Bool.self, forKey: .online)
    }
}

/// A file, or an empty object standing for none.
private struct FileOrEmpty: Decodable {
    var file: File?

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        file = try decoder.container(keyedBy: AnyKey.self).allKeys.isEmpty ? nil : File(from: decoder)
    }
}
