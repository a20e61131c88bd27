/// A channel's latest messages as the client holds them, oldest first.
///
/// The history is bounded (``StoatClient/Configuration/historyLimit``, 100 by default): the newest
/// messages are kept. It is *stale* when it may miss messages — loaded from the store, never fetched,
/// or invalidated when the session reconnected — and fresh once fetched from the server since; live
/// messages keep a fresh history fresh.
public struct ChannelHistory: Sendable, Hashable {
    /// The channel.
    public var channelID: String
    /// The latest messages, oldest first.
    public var messages: [Message]
    /// Whether the history may miss messages and is refetched when next asked for.
    public var isStale: Bool

    /// Creates a history.
    public init(channelID: String, messages: [Message] = [], isStale: Bool = true) {
        self.channelID = channelID
        self.messages = messages
        self.isStale = isStale
    }
}
