#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A message to send: through the outbox with ``StoatClient/send(_:to:)-(OutgoingMessage,_)``, or once with
/// ``StoatAPI/sendMessage(_:in:_:)`` (`POST /channels/{id}/messages`).
///
/// Each value carries its own ``idempotencyKey``, sent as the `Idempotency-Key` header. stoatchat's request
/// guard consumes the key before the route runs — also when the route then refuses the message (a slowmode, a
/// timeout, a missing permission) — keeps it in one cache of the last 1000 per API process, and echoes it as
/// the message's `nonce`. So posting the same value again never stores it twice on that process, but the
/// second post is answered by the web framework's `409` (``StoatAPIErrorCode/duplicateNonce``, no error kind)
/// whether the first one was stored or refused, and another process of the API takes the key afresh: a `409`
/// means "look for the message", never "sent" or "failed". ``StoatClient/send(_:to:)-(OutgoingMessage,_)`` does that looking.
public struct OutgoingMessage: Sendable, Hashable, Encodable {
    /// A message this one replies to.
    public struct Reply: Sendable, Hashable, Codable {
        /// The message replied to.
        public var id: String
        /// Whether to mention its author.
        public var mention: Bool
        /// Whether to fail when the message does not exist (the server's default is yes).
        public var failIfNotExists: Bool?

        /// Creates a reply.
        public init(id: String, mention: Bool = false, failIfNotExists: Bool? = nil) {
            self.id = id
            self.mention = mention
            self.failIfNotExists = failIfNotExists
        }

        enum CodingKeys: String, CodingKey {
            case id, mention
            case failIfNotExists = "fail_if_not_exists"
        }
    }

    /// The text.
    public var content: String?
    /// A nonce the message will carry back (`nonce`; stoatchat deprecated it for deduplication in favour of
    /// ``idempotencyKey``, but still echoes it on the message).
    public var nonce: String?
    /// The ids of uploaded files to attach.
    public var attachments: [String]?
    /// The messages it replies to.
    public var replies: [Reply]?
    /// A name, avatar or colour to show instead of the author's.
    public var masquerade: Message.Masquerade?
    /// The message's flags: ``MessageFlags/suppressNotifications`` (the value 2) sends it silently;
    /// ``MessageFlags/mentionsEveryone`` (4) mentions everyone, from a bot with `MentionEveryone` only (a person
    /// writes `@everyone` in the text instead). stoatchat's flags are bit positions, and it refuses any value above
    /// 7 (`InvalidProperty`): ``MessageFlags/mentionsOnline`` (8) cannot be sent.
    public var flags: MessageFlags?
    /// The `Idempotency-Key` header: at most 64 characters; a fresh UUID by default.
    public var idempotencyKey: String

    /// Creates a message to send.
    public init(
        content: String?, nonce: String? = nil, attachments: [String]? = nil, replies: [Reply]? = nil,
        masquerade: Message.Masquerade? = nil, flags: MessageFlags? = nil, idempotencyKey: String = UUID().uuidString
    ) {
        self.content = content
        self.nonce = nonce
        self.attachments = attachments
        self.replies = replies
        self.masquerade = masquerade
        self.flags = flags
        self.idempotencyKey = idempotencyKey
    }

    enum CodingKeys: String, CodingKey {
        case content, nonce, attachments, replies, masquerade, flags
    }
}
