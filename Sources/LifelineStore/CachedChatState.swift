/// What a client must remember about a chat besides its messages: how far the user has read, what mentions
/// them, the holes in the cached history, and where an interrupted catch-up stopped.
///
/// Wholly sealed, in its own table (schema `v4`), one row per chat, keyed by the chat's tag; deleting the chat
/// deletes it. Kept apart from ``CachedChat`` so that a read state or a catch-up step, which change often,
/// never rewrites the chat row the first screen orders by.
public struct CachedChatState: Sendable, Hashable {
    /// A range of a chat's history the cache does not hold: the messages after ``after`` and before
    /// ``before`` (both exclusive) may exist on the server.
    public struct Gap: Sendable, Hashable {
        /// The last message id known below the hole.
        public var after: String
        /// The first message id known above the hole.
        public var before: String

        /// Creates a gap.
        public init(after: String, before: String) {
            self.after = after
            self.before = before
        }
    }

    /// The server's id of the chat. Sealed.
    public var chatID: String
    /// The last message the user acknowledged, if any. Sealed.
    public var lastReadID: String?
    /// The unacknowledged messages that mention the user, oldest first. Sealed.
    public var mentionIDs: [String]
    /// The holes in the cached history, oldest first. Sealed.
    public var gaps: [Gap]
    /// Where the chat's catch-up resumes: the newest message up to which its history is known whole, while
    /// a catch-up is under way; nil when none is. Sealed.
    public var catchUpCursor: String?

    /// Creates a chat's state.
    ///
    /// - Parameters:
    ///   - chatID: The chat's id.
    ///   - lastReadID: The last message the user acknowledged.
    ///   - mentionIDs: The unacknowledged messages that mention the user.
    ///   - gaps: The holes in the cached history.
    ///   - catchUpCursor: Where an interrupted catch-up resumes.
    public init(
        chatID: String, lastReadID: String? = nil, mentionIDs: [String] = [], gaps: [Gap] = [],
        catchUpCursor: String? = nil
    ) {
        self.chatID = chatID
        self.lastReadID = lastReadID
        self.mentionIDs = mentionIDs
        self.gaps = gaps
        self.catchUpCursor = catchUpCursor
    }
}
