/// What happened to a message, as ``StoatClient/messages`` delivers it: a message received (live or caught up
/// after a reconnect), an edit, a deletion.
///
/// Each message id is ``received(_:origin:)`` once per run of the client, whichever way it came: live on the
/// socket, in a catch-up page after a reconnect, in a refetched history. A bot answers each
/// ``received(_:origin:)`` and answers a command posted while it was away exactly once.
public enum MessageEvent: Sendable, Hashable {
    /// A message the client had not seen: from the socket (``MessageOrigin/live``) or found by the catch-up
    /// after a reconnect (``MessageOrigin/caughtUp``).
    case received(Message, origin: MessageOrigin)
    /// A message changed: the socket's `MessageUpdate`, or an edit the re-verification after a reconnect found.
    case updated(MessageChange)
    /// A message was deleted: the socket's `MessageDelete`, each id of a `BulkMessageDelete`, or a deletion the
    /// re-verification after a reconnect found.
    case deleted(id: String, channel: String, origin: MessageOrigin)

    /// The message's id.
    public var id: String {
        switch self {
        case .received(let message, _): message.id
        case .updated(let change): change.id
        case .deleted(let id, _, _): id
        }
    }

    /// The message's channel.
    public var channel: String {
        switch self {
        case .received(let message, _): message.channel
        case .updated(let change): change.channel
        case .deleted(_, let channel, _): channel
        }
    }
}

/// How the client learnt of a message or a change.
public enum MessageOrigin: Sendable, Hashable {
    /// The events socket delivered it as it happened.
    case live
    /// The catch-up after a reconnect found it over REST: it happened while the socket was away.
    case caughtUp
}

/// An edit of a message: the changed fields, and the message as the cache holds it afterwards.
public struct MessageChange: Sendable, Hashable {
    /// The message's id.
    public var id: String
    /// The message's channel.
    public var channel: String
    /// The fields set (`MessageUpdate`'s `data`; for a re-verification, the text and edit date found).
    public var data: PartialMessage
    /// The message after the change, when the cache holds it.
    public var message: Message?
    /// How the client learnt of it.
    public var origin: MessageOrigin

    /// Creates a change.
    public init(id: String, channel: String, data: PartialMessage, message: Message?, origin: MessageOrigin) {
        self.id = id
        self.channel = channel
        self.data = data
        self.message = message
        self.origin = origin
    }

    /// The message's text after the change, when known: the cache's copy, else the text the change set.
    public var content: String? { message?.content ?? data.content }
}
