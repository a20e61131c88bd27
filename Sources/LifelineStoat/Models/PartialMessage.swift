#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The fields of a ``Message`` a `MessageUpdate` changes (stoatchat's `PartialMessage`): each set field
/// replaces the message's; unset fields stay as they are.
public struct PartialMessage: Sendable, Hashable, Codable {
    /// The new text.
    public var content: String?
    /// When it was edited.
    public var edited: Date?
    /// The new embeds.
    public var embeds: [Message.Embed]?
    /// The attachments.
    public var attachments: [File]?
    /// The users it mentions.
    public var mentions: [String]?
    /// The roles it mentions.
    public var roleMentions: [String]?
    /// The messages it replies to.
    public var replies: [String]?
    /// The users who reacted, by emoji.
    public var reactions: [String: [String]]?
    /// How it may be interacted with.
    public var interactions: Message.Interactions?
    /// The masquerade.
    public var masquerade: Message.Masquerade?
    /// Whether it is pinned.
    public var pinned: Bool?
    /// The flags (``MessageFlags``).
    public var flags: MessageFlags?

    /// Creates a partial with the given fields set.
    public init(
        content: String? = nil, edited: Date? = nil, embeds: [Message.Embed]? = nil, attachments: [File]? = nil,
        mentions: [String]? = nil, roleMentions: [String]? = nil, replies: [String]? = nil,
        reactions: [String: [String]]? = nil, interactions: Message.Interactions? = nil,
        masquerade: Message.Masquerade? = nil, pinned: Bool? = nil, flags: MessageFlags? = nil
    ) {
        self.content = content
        self.edited = edited
        self.embeds = embeds
        self.attachments = attachments
        self.mentions = mentions
        self.roleMentions = roleMentions
        self.replies = replies
        self.reactions = reactions
        self.interactions = interactions
        self.masquerade = masquerade
        self.pinned = pinned
        self.flags = flags
    }

    /// Whether no field is set.
    public var isEmpty: Bool { self == PartialMessage() }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case content
        case edited
        case embeds
        case attachments
        case mentions
        case roleMentions = "role_mentions"
        case replies
        case reactions
        case interactions
        case masquerade
        case pinned
        case flags
    }

    /// Decodes a partial; timestamps are ISO 8601.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        content = try container.decodeIfPresent(String.self, forKey: .content)
        edited = try container.decodeTimestampIfPresent(forKey: .edited)
        embeds = try container.decodeIfPresent([Message.Embed].self, forKey: .embeds)
        attachments = try container.decodeIfPresent([File].self, forKey: .attachments)
        mentions = try container.decodeIfPresent([String].self, forKey: .mentions)
        roleMentions = try container.decodeIfPresent([String].self, forKey: .roleMentions)
        replies = try container.decodeIfPresent([String].self, forKey: .replies)
        reactions = try container.decodeIfPresent([String: [String]].self, forKey: .reactions)
        interactions = try container.decodeIfPresent(Message.Interactions.self, forKey: .interactions)
        masquerade = try container.decodeIfPresent(Message.Masquerade.self, forKey: .masquerade)
        pinned = try container.decodeIfPresent(Bool.self, forKey: .pinned)
        flags = try container.decodeIfPresent(Int.self, forKey: .flags).map(MessageFlags.init(rawValue:))
    }

    /// Encodes the fields that are set; timestamps as ISO 8601.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(content, forKey: .content)
        try container.encodeTimestampIfPresent(edited, forKey: .edited)
        try container.encodeIfPresent(embeds, forKey: .embeds)
        try container.encodeIfPresent(attachments, forKey: .attachments)
        try container.encodeIfPresent(mentions, forKey: .mentions)
        try container.encodeIfPresent(roleMentions, forKey: .roleMentions)
        try container.encodeIfPresent(replies, forKey: .replies)
        try container.encodeIfPresent(reactions, forKey: .reactions)
        try container.encodeIfPresent(interactions, forKey: .interactions)
        try container.encodeIfPresent(masquerade, forKey: .masquerade)
        try container.encodeIfPresent(pinned, forKey: .pinned)
        try container.encodeIfPresent(flags?.rawValue, forKey: .flags)
    }
}
