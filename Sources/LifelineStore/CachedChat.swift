public import Foundation

/// A chat as the store caches it for the first screen: what the chat list shows.
public struct CachedChat: Sendable, Hashable {
    /// The server's id of the chat (a Stoat channel id). Sealed.
    public var id: String

    /// The chat's display name. Sealed.
    public var name: String

    /// When the chat last had activity. Chats are listed newest first by this date. Stored in plaintext, to
    /// the millisecond: it is the ordering key (see <doc:LifelineStore#What-is-protected>).
    public var lastActivity: Date

    /// How many messages the user has not read. Sealed.
    public var unreadCount: Int

    /// Creates a cached chat.
    ///
    /// - Parameters:
    ///   - id: The server's id of the chat.
    ///   - name: The chat's display name.
    ///   - lastActivity: When the chat last had activity; kept to the millisecond.
    ///   - unreadCount: How many messages the user has not read.
    public init(id: String, name: String, lastActivity: Date, unreadCount: Int = 0) {
        self.id = id
        self.name = name
        self.lastActivity = lastActivity
        self.unreadCount = unreadCount
    }
}

/// A message as the store caches it.
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

    /// Creates a cached message.
    ///
    /// - Parameters:
    ///   - id: The server's id of the message.
    ///   - chatID: The id of the chat the message belongs to.
    ///   - authorID: The id of the message's author.
    ///   - body: The message's text.
    ///   - sentAt: When the message was sent; kept to the millisecond.
    public init(id: String, chatID: String, authorID: String, body: String, sentAt: Date) {
        self.id = id
        self.chatID = chatID
        self.authorID = authorID
        self.body = body
        self.sentAt = sentAt
    }
}

extension Date {
    /// Milliseconds since 1970, the stored form of dates.
    var storedMilliseconds: Int64 {
        Int64((timeIntervalSince1970 * 1000).rounded())
    }

    init(storedMilliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(storedMilliseconds) / 1000)
    }
}
