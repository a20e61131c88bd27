/// One change to an account's cache; ``AccountDatabase/apply(_:messagesPerChat:)`` applies a batch of them in
/// one transaction, in order.
///
/// Upserts insert a record or replace the one with the same id. Deletes of records that are not stored do
/// nothing. Deleting a chat deletes its messages and its state; deleting a space deletes its members (its chats are deleted by
/// their own ids: the store cannot find a space's chats without decrypting every chat).
public enum CacheChange: Sendable, Hashable {
    /// Inserts or replaces a chat, and its ``CachedChat/lastMessage`` if it has one.
    case upsertChat(CachedChat)
    /// Deletes a chat and its messages.
    case deleteChat(id: String)
    /// Inserts or replaces a space.
    case upsertSpace(CachedSpace)
    /// Deletes a space and its members.
    case deleteSpace(id: String)
    /// Inserts or replaces a message. Its chat is then trimmed to its newest messages.
    case upsertMessage(CachedMessage)
    /// Deletes a message.
    case deleteMessage(id: String)
    /// Inserts or replaces a member of a space.
    case upsertMember(CachedMember)
    /// Deletes a member of a space.
    case deleteMember(spaceID: String, userID: String)
    /// Inserts or replaces a user.
    case upsertUser(CachedUser)
    /// Deletes a user.
    case deleteUser(id: String)
    /// Inserts or replaces a chat's state (schema `v4`).
    case upsertChatState(CachedChatState)
    /// Deletes a chat's state.
    case deleteChatState(chatID: String)
}
