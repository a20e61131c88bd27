#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A message in a channel.
///
/// Written in stoatchat's field order: `_id`, `nonce`, `channel`, `author`, then `user` and `member` where the
/// answer includes them, `webhook` for a webhook's message (the `Message` event and the answer to a send), `content`,
/// `attachments`, `edited`, `embeds`, `mentions`, `role_mentions`, `replies`, `reactions` (left out when empty) and
/// `flags` (left out when 0). Its id is a ULID whose time part is when it was sent
/// in the server's clock.
public struct StoatMessage: Sendable, Equatable, Codable {
    /// The message's id.
    public var id: String
    /// The nonce: the sender's `Idempotency-Key`, their deprecated `nonce`, or one the server made up.
    public var nonce: String?
    /// The channel it was sent in.
    public var channel: String
    /// The author's user id, or a webhook's id for a webhook's message.
    public var author: String
    /// The webhook that sent it, for a webhook's message (stoatchat's `MessageWebhook`).
    public var webhook: Webhook?
    /// The text, if any.
    public var content: String?
    /// When it was last edited, if it was.
    public var edited: Date?
    /// The ids of the users it mentions.
    public var mentions: [String]?
    /// The ids of the server's roles it mentions (`<%ROLE>` in the text, kept when the server has the role).
    public var roleMentions: [String]?
    /// The ids of the messages it replies to.
    public var replies: [String]?
    /// Message flag bits (2 suppresses notifications, 4 mentions everyone, 8 mentions everyone online:
    /// stoatchat's `MessageFlags` are bit positions); left out on the wire when 0.
    public var flags: UInt32
    /// The embeds; an edit leaves an empty list, as stoatchat's does.
    var embeds: [JSONValue]?
    /// The reactions, in the order their emojis were first used; nil or empty is left out on the wire (optional
    /// so that data files written before reactions still decode).
    public var reactions: [Reaction]?
    /// The files it carries, as they were when the message claimed them (stoatchat copies them into the
    /// message); nil when it has none.
    public var attachments: [StoatFile]?

    /// The users who reacted with one emoji, in the order they did (stoatchat's `IndexSet`).
    public struct Reaction: Sendable, Equatable, Codable {
        /// The emoji: a Unicode emoji or a custom emoji's id.
        public var emoji: String
        /// The users who reacted with it.
        public var users: [String]

        /// Creates a reaction.
        public init(emoji: String, users: [String]) {
            self.emoji = emoji
            self.users = users
        }
    }

    /// The webhook a message came from: its name and avatar, as the message carries them.
    public struct Webhook: Sendable, Equatable, Codable {
        /// The webhook's name (1–32 characters).
        public var name: String
        /// Its avatar's file id, if it has one.
        public var avatar: String?

        /// Creates a webhook's signature.
        public init(name: String, avatar: String?) {
            self.name = name
            self.avatar = avatar
        }
    }

    /// Creates a message.
    public init(
        id: String, nonce: String? = nil, channel: String, author: String, content: String?, edited: Date? = nil,
        mentions: [String]? = nil, roleMentions: [String]? = nil, replies: [String]? = nil, flags: UInt32 = 0
    ) {
        self.id = id
        self.nonce = nonce
        self.channel = channel
        self.author = author
        self.content = content
        self.edited = edited
        self.mentions = mentions
        self.roleMentions = roleMentions
        self.replies = replies
        self.flags = flags
    }

    /// The message with its author's user and member objects, as the `Message` event and a send's answer
    /// carry them.
    func wire(user: StoatUser?, member: StoatMember?) -> Wire {
        .object([
            "_id": .string(id),
            "nonce": .str(nonce),
            "channel": .string(channel),
            "author": .string(author),
            "user": user?.wire,
            "member": member?.wire,
            "webhook": webhook.map { .object(["name": .string($0.name), "avatar": .str($0.avatar)]) },
            "content": .str(content),
            "attachments": attachments.map { files in .array(files.map(\.wire)) },
            "edited": edited.map { .timestamp($0) },
            "embeds": embeds.map { list in .array(list.map(\.wire)) },
            "mentions": mentions.map { .strings($0) },
            "role_mentions": roleMentions.map { .strings($0) },
            "replies": replies.map { .strings($0) },
            "reactions": reactions.flatMap { list in
                list.isEmpty ? nil : .object(list.map { Wire.Field(key: $0.emoji, value: .strings($0.users)) })
            },
            "flags": flags == 0 ? nil : .uint(UInt64(flags)),
        ])
    }
}

extension StoatMessage: WireEncodable {
    var wire: Wire { wire(user: nil, member: nil) }
}
