/// A Stoat user, as `GET /users/…`, onboarding, `Ready` and user events describe it.
///
/// Fields Lifeline does not model are ignored when decoding; optional fields absent on the wire stay
/// `nil`, `flags` (omitted by the server when 0) decodes as 0, and a missing `discriminator` as "".
public struct User: Sendable, Hashable, Codable, Identifiable, CustomReflectable {
    /// The fields, in one copy-on-write box. A user is copied at each step from the socket to the cache (the
    /// decoder's array, the cache's dictionary, each snapshot) and a `Ready` holds thousands: as one reference a
    /// copy is a retain, not some 400 bytes moved and a dozen strings retained. A mutation of a shared box copies
    /// it first, so `User` keeps value semantics; equality, hashing and the Codable shape are the fields'.
    private final class Storage: @unchecked Sendable {
        // `@unchecked Sendable` is safe: a box is written only through `User.unique()`, that is only while the one
        // `User` that holds it is being mutated (exclusive access); a box two values share, and so perhaps two
        // threads, is only ever read.
        var fields: Fields

        init(_ fields: Fields) { self.fields = fields }
    }

    /// The fields themselves: equality and hashing are theirs, synthesized.
    private struct Fields: Hashable, Sendable {
        var id: String
        var username: String
        var discriminator: String
        var displayName: String?
        var pronouns: String?
        var avatar: File?
        var relations: [Relationship]?
        var badges: Int?
        var status: Status?
        var flags: Int
        var privileged: Bool?
        var bot: Bot?
        var relationship: String?
        var online: Bool?
    }

    private var storage: Storage

    /// The box, copied first when another value shares it.
    @inline(__always)
    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(storage.fields) }
        return storage
    }

    /// The user's id (`_id`).
    public var id: String {
        get { storage.fields.id }
        set { unique().fields.id = newValue }
    }
    /// The username.
    public var username: String {
        get { storage.fields.username }
        set { unique().fields.username = newValue }
    }
    /// The four-digit discriminator.
    public var discriminator: String {
        get { storage.fields.discriminator }
        set { unique().fields.discriminator = newValue }
    }
    /// The display name, if set.
    public var displayName: String? {
        get { storage.fields.displayName }
        set { unique().fields.displayName = newValue }
    }
    /// The pronouns, if set.
    public var pronouns: String? {
        get { storage.fields.pronouns }
        set { unique().fields.pronouns = newValue }
    }
    /// The avatar, if set.
    public var avatar: File? {
        get { storage.fields.avatar }
        set { unique().fields.avatar = newValue }
    }
    /// The current user's relationships with others (only on the current user).
    public var relations: [Relationship]? {
        get { storage.fields.relations }
        set { unique().fields.relations = newValue }
    }
    /// Badge bits.
    public var badges: Int? {
        get { storage.fields.badges }
        set { unique().fields.badges = newValue }
    }
    /// The user's status (text and presence), if known.
    public var status: Status? {
        get { storage.fields.status }
        set { unique().fields.status = newValue }
    }
    /// Account flags: 1 suspended, 2 deleted, 4 banned, 8 removed as spam; 0 when omitted.
    public var flags: Int {
        get { storage.fields.flags }
        set { unique().fields.flags = newValue }
    }
    /// Whether the user is a platform administrator.
    public var privileged: Bool? {
        get { storage.fields.privileged }
        set { unique().fields.privileged = newValue }
    }
    /// The bot's owner, when the user is a bot.
    public var bot: Bot? {
        get { storage.fields.bot }
        set { unique().fields.bot = newValue }
    }
    /// The relationship to the current user (`None`, `User`, `Friend`, `Outgoing`, `Incoming`, `Blocked`,
    /// `BlockedOther`).
    public var relationship: String? {
        get { storage.fields.relationship }
        set { unique().fields.relationship = newValue }
    }
    /// Whether the user is online.
    public var online: Bool? {
        get { storage.fields.online }
        set { unique().fields.online = newValue }
    }

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
        storage = Storage(
            Fields(
                id: id, username: username, discriminator: discriminator, displayName: displayName,
                pronouns: pronouns, avatar: avatar, relations: relations, badges: badges, status: status, flags: flags,
                privileged: privileged, bot: bot, relationship: relationship, online: online))
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
        self.init(
            id: try container.decode(String.self, forKey: .id),
            username: try container.decode(String.self, forKey: .username),
            discriminator: try container.decodeIfPresent(String.self, forKey: .discriminator) ?? "",
            displayName: try container.decodeIfPresent(String.self, forKey: .displayName),
            pronouns: try container.decodeIfPresent(String.self, forKey: .pronouns),
            // Stoat's new events server writes a user without an avatar as `avatar: {}` in `Ready`.
            avatar: try container.decodeIfPresent(FileOrEmpty.self, forKey: .avatar)?.file,
            relations: try container.decodeIfPresent([Relationship].self, forKey: .relations),
            badges: try container.decodeIfPresent(Int.self, forKey: .badges),
            status: try container.decodeIfPresent(Status.self, forKey: .status),
            flags: try container.decodeIfPresent(Int.self, forKey: .flags) ?? 0,
            privileged: try container.decodeIfPresent(Bool.self, forKey: .privileged),
            bot: try container.decodeIfPresent(Bot.self, forKey: .bot),
            relationship: try container.decodeIfPresent(String.self, forKey: .relationship),
            online: try container.decodeIfPresent(Bool.self, forKey: .online))
    }

    /// Encodes the fields under their wire names, absent ones left out, as the synthesized conformance did.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(username, forKey: .username)
        try container.encode(discriminator, forKey: .discriminator)
        try container.encodeIfPresent(displayName, forKey: .displayName)
        try container.encodeIfPresent(pronouns, forKey: .pronouns)
        try container.encodeIfPresent(avatar, forKey: .avatar)
        try container.encodeIfPresent(relations, forKey: .relations)
        try container.encodeIfPresent(badges, forKey: .badges)
        try container.encodeIfPresent(status, forKey: .status)
        try container.encode(flags, forKey: .flags)
        try container.encodeIfPresent(privileged, forKey: .privileged)
        try container.encodeIfPresent(bot, forKey: .bot)
        try container.encodeIfPresent(relationship, forKey: .relationship)
        try container.encodeIfPresent(online, forKey: .online)
    }

    /// Equal when every field is.
    public static func == (lhs: User, rhs: User) -> Bool {
        lhs.storage === rhs.storage || lhs.storage.fields == rhs.storage.fields
    }

    /// Hashes every field.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage.fields)
    }

    /// The fields, so that a user prints and dumps as the plain struct it reads as, not as its box.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "id": id, "username": username, "discriminator": discriminator, "displayName": displayName as Any,
                "pronouns": pronouns as Any, "avatar": avatar as Any, "relations": relations as Any,
                "badges": badges as Any, "status": status as Any, "flags": flags, "privileged": privileged as Any,
                "bot": bot as Any, "relationship": relationship as Any, "online": online as Any,
            ], displayStyle: .struct)
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
