#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A conversation the account can see, as a chat list shows it: a server's text channel, a direct
/// message, a group, or the user's saved notes.
///
/// ``StoatClient`` keeps the account's chats from `Ready` and the socket's events, persists them in the
/// account's store, and shows the stored ones first at sign-in. Chats are listed most recently active
/// first.
public struct Chat: Sendable, Hashable, Identifiable {
    /// The channel's id.
    public var id: String
    /// What kind of channel this is.
    public var kind: Channel.Kind
    /// The name to show: the channel's or group's name, the other user's name for a direct message,
    /// "Saved Notes" for the user's own channel.
    public var name: String
    /// The server the channel belongs to, for a server's channel.
    public var serverID: String?
    /// When the chat last had activity: its last message, or its creation when it has none.
    public var lastActivity: Date
    /// The chat's last message, when it is known. After a reconnect the channel's `last_message_id` can be
    /// newer than the last message the client has seen: the chat keeps showing the one it has until its
    /// catch-up fetches the newer one.
    public var lastMessage: Message?
    /// Whether the chat has messages the user has not read: its last message (the channel's
    /// `last_message_id`) is newer than the last one the user acknowledged, on this device or another
    /// (``StoatClient/ack(channel:message:)``, `ChannelAck`, `GET /sync/unreads`). A chat never acknowledged
    /// with messages is unread, as Stoat's clients show it; a last message the user wrote is read; saved notes
    /// are never unread.
    public var isUnread: Bool
    /// How many unacknowledged messages mention the user (in a direct message or a group, every message of
    /// the others, as Stoat counts them).
    public var mentionCount: Int

    /// Creates a chat.
    public init(
        id: String, kind: Channel.Kind, name: String, serverID: String? = nil, lastActivity: Date,
        lastMessage: Message? = nil, isUnread: Bool = false, mentionCount: Int = 0
    ) {
        self.id = id
        self.kind = kind
        self.name = name
        self.serverID = serverID
        self.lastActivity = lastActivity
        self.lastMessage = lastMessage
        self.isUnread = isUnread
        self.mentionCount = mentionCount
    }

    /// Orders chats most recently active first, then by id so the order is total.
    static func isMoreRecent(_ lhs: Chat, _ rhs: Chat) -> Bool {
        lhs.lastActivity != rhs.lastActivity ? lhs.lastActivity > rhs.lastActivity : lhs.id > rhs.id
    }
}
