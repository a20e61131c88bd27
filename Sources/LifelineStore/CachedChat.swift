public import Foundation

/// A chat as the store caches it: what the chat list shows for one conversation.
///
/// A chat is any conversation: a channel of a space (a Stoat server's text channel), a direct message, a group,
/// the user's saved notes. Everything but ``lastActivity`` is sealed; ``lastActivity`` is the plaintext ordering
/// key the first screen's index reads (see <doc:LifelineStore#What-is-protected>).
public struct CachedChat: Sendable, Hashable {
    /// What kind of conversation a chat is. Compare with the static members; a client may add its own.
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The kind's stable name, as stored.
        public let rawValue: String

        /// Creates a kind from its stable name.
        ///
        /// - Parameter rawValue: The kind's stable name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// A channel of a space (``CachedChat/parentID`` is the space's id).
        public static let channel = Kind(rawValue: "channel")
        /// A conversation between the user and one other user.
        public static let directMessage = Kind(rawValue: "directMessage")
        /// A conversation among a group of users, outside any space.
        public static let group = Kind(rawValue: "group")
        /// The user's notes to themself.
        public static let savedNotes = Kind(rawValue: "savedNotes")
        /// A chat cached before the store knew kinds (schema `v1`).
        public static let unknown = Kind(rawValue: "unknown")

        /// The kind's name.
        public var description: String { rawValue }
    }

    /// The server's id of the chat (a Stoat channel id). Sealed.
    public var id: String

    /// What kind of conversation this is. Sealed.
    public var kind: Kind

    /// The chat's display name. Sealed.
    public var name: String

    /// The id of the space the chat belongs to, for a ``Kind/channel``; nil otherwise. Sealed.
    public var parentID: String?

    /// When the chat last had activity. Chats are listed newest first by this date. Stored in plaintext, to
    /// the millisecond: it is the ordering key (see <doc:LifelineStore#What-is-protected>).
    public var lastActivity: Date

    /// The id of the chat's last message as the server reported it, which the cache may not hold. Sealed.
    public var lastMessageID: String?

    /// How many messages the user has not read. Sealed.
    public var unreadCount: Int

    /// Anything else the client keeps about the chat (icon, permissions, recipients), in its own encoding. The
    /// store seals it and never reads it.
    public var details: Data

    /// The newest message the cache holds for this chat.
    ///
    /// Reading: filled from the chat's messages (the newest by ``CachedMessage/sentAt``), one index lookup per
    /// chat; nil when none is cached. Writing (``CacheChange/upsertChat(_:)``): a non-nil message is stored with
    /// the chat's messages, as ``CacheChange/upsertMessage(_:)`` would; nil leaves the messages as they are.
    public var lastMessage: CachedMessage?

    /// Creates a cached chat.
    ///
    /// - Parameters:
    ///   - id: The server's id of the chat.
    ///   - kind: What kind of conversation this is.
    ///   - name: The chat's display name.
    ///   - parentID: The id of the chat's space, for a channel.
    ///   - lastActivity: When the chat last had activity; kept to the millisecond.
    ///   - lastMessageID: The id of the chat's last message, as the server reported it.
    ///   - unreadCount: How many messages the user has not read.
    ///   - details: Anything else the client keeps, in its own encoding.
    ///   - lastMessage: The chat's newest message, stored with the chat's messages.
    public init(
        id: String,
        kind: Kind = .channel,
        name: String,
        parentID: String? = nil,
        lastActivity: Date,
        lastMessageID: String? = nil,
        unreadCount: Int = 0,
        details: Data = Data(),
        lastMessage: CachedMessage? = nil
    ) {
        self.id = id
        self.kind = kind
        self.name = name
        self.parentID = parentID
        self.lastActivity = lastActivity
        self.lastMessageID = lastMessageID
        self.unreadCount = unreadCount
        self.details = details
        self.lastMessage = lastMessage
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
