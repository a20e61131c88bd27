public import Foundation

/// A message as the store caches it: one of a chat's latest messages.
///
/// The store keeps each chat's newest messages, up to a bound the batch write enforces (see
/// ``AccountDatabase/apply(_:messagesPerChat:)``). Everything but ``sentAt`` is sealed; the chat is named in
/// plaintext only by a keyed tag.
public struct CachedMessage: Sendable, Hashable {
    /// The server's id of the message. Sealed.
    public var id: String

    /// The id of the chat the message belongs to. Sealed; rows of one chat share a keyed tag.
    public var chatID: String

    /// The id of the message's author. Sealed.
    public var authorID: String

    /// The message's text. Sealed.
    public var body: String

    /// When the message was sent. Stored in plaintext, to the millisecond: it orders a chat's messages.
    public var sentAt: Date

    /// When the message was last edited, if it was. Sealed.
    public var editedAt: Date?

    /// Anything else the client keeps about the message (attachments, embeds, replies, reactions), in its own
    /// encoding. The store seals it and never reads it.
    public var details: Data

    /// Creates a cached message.
    ///
    /// - Parameters:
    ///   - id: The server's id of the message.
    ///   - chatID: The id of the chat the message belongs to.
    ///   - authorID: The id of the message's author.
    ///   - body: The message's text.
    ///   - sentAt: When the message was sent; kept to the millisecond.
    ///   - editedAt: When the message was last edited, if it was; kept to the millisecond.
    ///   - details: Anything else the client keeps, in its own encoding.
    public init(
        id: String,
        chatID: String,
        authorID: String,
        body: String,
        sentAt: Date,
        editedAt: Date? = nil,
        details: Data = Data()
    ) {
        self.id = id
        self.chatID = chatID
        self.authorID = authorID
        self.body = body
        self.sentAt = sentAt
        self.editedAt = editedAt
        self.details = details
    }
}
