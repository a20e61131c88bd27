#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A message in a channel, with the fields stoatchat sends.
///
/// Only the id, the channel and the author are required; every other field is absent when stoatchat
/// leaves it out (it omits empty reactions, a false `pinned`, zero `flags`…). `user` and `member` come
/// with messages fetched with `include_users` and with some events.
public struct Message: Sendable, Hashable, Codable, Identifiable {
    /// A system message's event (`system`): `type` says which, the other fields are the event's.
    public struct SystemEvent: Sendable, Hashable, Codable {
        /// `text`, `user_added`, `user_remove`, `user_joined`, `user_left`, `user_kicked`, `user_banned`,
        /// `channel_renamed`, `channel_description_changed`, `channel_icon_changed`,
        /// `channel_ownership_changed`, `message_pinned`, `message_unpinned` or `call_started`.
        public var type: String
        /// The text (`text`).
        public var content: String?
        /// The user or message concerned (`id`).
        public var id: String?
        /// Who did it (`by`).
        public var by: String?
        /// The channel's new name (`channel_renamed`).
        public var name: String?
        /// The previous owner (`channel_ownership_changed`).
        public var from: String?
        /// The new owner (`channel_ownership_changed`).
        public var to: String?

        /// Creates a system event.
        public init(
            type: String, content: String? = nil, id: String? = nil, by: String? = nil, name: String? = nil,
            from: String? = nil, to: String? = nil
        ) {
            self.type = type
            self.content = content
            self.id = id
            self.by = by
            self.name = name
            self.from = from
            self.to = to
        }
    }

    /// A name, avatar or colour shown instead of the author's (`masquerade`).
    public struct Masquerade: Sendable, Hashable, Codable {
        /// The name shown.
        public var name: String?
        /// The avatar's URL.
        public var avatar: String?
        /// The role colour shown, as CSS.
        public var colour: String?

        /// Creates a masquerade.
        public init(name: String? = nil, avatar: String? = nil, colour: String? = nil) {
            self.name = name
            self.avatar = avatar
            self.colour = colour
        }
    }

    /// How the message may be interacted with (`interactions`).
    public struct Interactions: Sendable, Hashable, Codable {
        /// Reactions always shown, by emoji id.
        public var reactions: [String]?
        /// Whether only those reactions are allowed.
        public var restrictReactions: Bool?

        /// Creates interactions.
        public init(reactions: [String]? = nil, restrictReactions: Bool? = nil) {
            self.reactions = reactions
            self.restrictReactions = restrictReactions
        }

        enum CodingKeys: String, CodingKey {
            case reactions
            case restrictReactions = "restrict_reactions"
        }
    }

    /// The webhook that sent the message (`webhook`).
    public struct Webhook: Sendable, Hashable, Codable {
        /// The webhook's name.
        public var name: String
        /// The id of its avatar file, if any.
        public var avatar: String?

        /// Creates a webhook reference.
        public init(name: String, avatar: String? = nil) {
            self.name = name
            self.avatar = avatar
        }
    }

    /// An embed: a link's preview, an image, a video or a bot's text embed. Only the common fields are kept.
    public struct Embed: Sendable, Hashable, Codable {
        /// `Website`, `Image`, `Video`, `Text` or `None`.
        public var type: String
        /// The URL.
        public var url: String?
        /// The URL before redirects.
        public var originalURL: String?
        /// The title.
        public var title: String?
        /// The description.
        public var description: String?
        /// The icon's URL.
        public var iconURL: String?
        /// The site's name.
        public var siteName: String?
        /// The colour, as CSS.
        public var colour: String?
        /// The width, for images and videos.
        public var width: Int?
        /// The height, for images and videos.
        public var height: Int?

        /// Creates an embed.
        public init(
            type: String, url: String? = nil, originalURL: String? = nil, title: String? = nil,
            description: String? = nil, iconURL: String? = nil, siteName: String? = nil, colour: String? = nil,
            width: Int? = nil, height: Int? = nil
        ) {
            self.type = type
            self.url = url
            self.originalURL = originalURL
            self.title = title
            self.description = description
            self.iconURL = iconURL
            self.siteName = siteName
            self.colour = colour
            self.width = width
            self.height = height
        }

        enum CodingKeys: String, CodingKey {
            case type, url
            case originalURL = "original_url"
            case title, description
            case iconURL = "icon_url"
            case siteName = "site_name"
            case colour, width, height
        }
    }

    /// A field a `MessageUpdate` can clear (stoatchat's `FieldsMessage`).
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

        /// Whether the message is pinned.
        public static let pinned = Field(rawValue: "Pinned")

        /// The wire name.
        public var description: String { rawValue }
    }

    /// The message's id (`_id`).
    public var id: String
    /// The client's nonce, if it sent one.
    public var nonce: String?
    /// The channel it was sent in.
    public var channel: String
    /// Its author's user id (or the webhook's id).
    public var author: String
    /// The author, when the server included it.
    public var user: User?
    /// The author's membership, when the server included it (server channels).
    public var member: Member?
    /// The webhook that sent it, if one did.
    public var webhook: Webhook?
    /// Its text, if any.
    public var content: String?
    /// The event, for a system message.
    public var system: SystemEvent?
    /// Its attachments.
    public var attachments: [File]?
    /// When it was last edited, if it was.
    public var edited: Date?
    /// Its embeds.
    public var embeds: [Embed]?
    /// The users it mentions.
    public var mentions: [String]?
    /// The roles it mentions.
    public var roleMentions: [String]?
    /// The messages it replies to.
    public var replies: [String]?
    /// The users who reacted, by emoji.
    public var reactions: [String: [String]]?
    /// How it may be interacted with.
    public var interactions: Interactions?
    /// The name, avatar or colour shown instead of the author's.
    public var masquerade: Masquerade?
    /// Whether it is pinned.
    public var pinned: Bool?
    /// The message's flags (``MessageFlags``: 2 suppresses notifications, 4 mentions everyone, 8 mentions everyone
    /// online — stoatchat's flags are bit positions); empty when omitted.
    public var flags: MessageFlags

    /// Creates a message.
    public init(
        id: String, nonce: String? = nil, channel: String, author: String, user: User? = nil, member: Member? = nil,
        webhook: Webhook? = nil, content: String? = nil, system: SystemEvent? = nil, attachments: [File]? = nil,
        edited: Date? = nil, embeds: [Embed]? = nil, mentions: [String]? = nil, roleMentions: [String]? = nil,
        replies: [String]? = nil, reactions: [String: [String]]? = nil, interactions: Interactions? = nil,
        masquerade: Masquerade? = nil, pinned: Bool? = nil, flags: MessageFlags = []
    ) {
        self.id = id
        self.nonce = nonce
        self.channel = channel
        self.author = author
        self.user = user
        self.member = member
        self.webhook = webhook
        self.content = content
        self.system = system
        self.attachments = attachments
        self.edited = edited
        self.embeds = embeds
        self.mentions = mentions
        self.roleMentions = roleMentions
        self.replies = replies
        self.reactions = reactions
        self.interactions = interactions
        self.masquerade = masquerade
        self.pinned = pinned
        self.flags = flags
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id = "_id"
        case nonce, channel, author, user, member, webhook, content, system, attachments, edited, embeds, mentions
        case roleMentions = "role_mentions"
        case replies, reactions, interactions, masquerade, pinned, flags
    }

    /// Decodes a message; `edited` is an ISO 8601 timestamp and `flags` defaults to none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
        channel = try container.decode(String.self, forKey: .channel)
        author = try container.decode(String.self, forKey: .author)
        user = try container.decodeIfPresent(User.self, forKey: .user)
        member = try container.decodeIfPresent(Member.self, forKey: .member)
        webhook = try container.decodeIfPresent(Webhook.self, forKey: .webhook)
        content = try container.decodeIfPresent(String.self, forKey: .content)
        system = try container.decodeIfPresent(SystemEvent.self, forKey: .system)
        attachments = try container.decodeIfPresent([File].self, forKey: .attachments)
        edited = try container.decodeTimestampIfPresent(forKey: .edited)
        embeds = try container.decodeIfPresent([Embed].self, forKey: .embeds)
        mentions = try container.decodeIfPresent([String].self, forKey: .mentions)
        roleMentions = try container.decodeIfPresent([String].self, forKey: .roleMentions)
        replies = try container.decodeIfPresent([String].self, forKey: .replies)
        reactions = try container.decodeIfPresent([String: [String]].self, forKey: .reactions)
        interactions = try container.decodeIfPresent(Interactions.self, forKey: .interactions)
        masquerade = try container.decodeIfPresent(Masquerade.self, forKey: .masquerade)
        pinned = try container.decodeIfPresent(Bool.self, forKey: .pinned)
        flags = MessageFlags(rawValue: try container.decodeIfPresent(Int.self, forKey: .flags) ?? 0)
    }

    /// Encodes a message as stoatchat does, `edited` as ISO 8601.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encodeIfPresent(nonce, forKey: .nonce)
        try container.encode(channel, forKey: .channel)
        try container.encode(author, forKey: .author)
        try container.encodeIfPresent(user, forKey: .user)
        try container.encodeIfPresent(member, forKey: .member)
        try container.encodeIfPresent(webhook, forKey: .webhook)
        try container.encodeIfPresent(content, forKey: .content)
        try container.encodeIfPresent(system, forKey: .system)
        try container.encodeIfPresent(attachments, forKey: .attachments)
        try container.encodeTimestampIfPresent(edited, forKey: .edited)
        try container.encodeIfPresent(embeds, forKey: .embeds)
        try container.encodeIfPresent(mentions, forKey: .mentions)
        try container.encodeIfPresent(roleMentions, forKey: .roleMentions)
        try container.encodeIfPresent(replies, forKey: .replies)
        try container.encodeIfPresent(reactions, forKey: .reactions)
        try container.encodeIfPresent(interactions, forKey: .interactions)
        try container.encodeIfPresent(masquerade, forKey: .masquerade)
        try container.encodeIfPresent(pinned, forKey: .pinned)
        if !flags.isEmpty { try container.encode(flags.rawValue, forKey: .flags) }
    }
}
