public import LifelineCore

extension StoatAPI {
    /// `{"content": …}`, the body of an edit.
    private struct Edit: Encodable {
        var content: String
    }

    // MARK: - Changing messages

    /// Edits a message the user sent (`PATCH /channels/{id}/messages/{message}`).
    ///
    /// stoatchat stamps `edited` again on every edit, also one that sets the text the message already has: an
    /// edit repeated after a lost answer is harmless, and the answer (or the message read back) shows it
    /// applied. The channel hears `MessageUpdate {content, edited, embeds}`.
    ///
    /// - Parameters:
    ///   - message: The message's id.
    ///   - channel: The channel's id.
    ///   - content: The new text, 1 to 2 000 characters.
    ///   - credentials: The session (or a bot).
    /// - Returns: The message as the server stored it.
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/cannotEditMessage`` for another user's message,
    ///   ``StoatAPIErrorCode/notFound`` for a message that is not (or no longer) in the channel,
    ///   ``StoatAPIErrorCode/missingPermission`` without `SendMessage`, ``StoatAPIErrorCode/failedValidation``
    ///   for an empty text, ``StoatAPIErrorCode/payloadTooLarge`` for a long one.
    public func editMessage(
        _ message: String, in channel: String, content: String, _ credentials: some StoatAuthorizing
    ) async throws(StoatAPIError) -> Message {
        let response = try await send(
            .PATCH, path: Self.messagePath(message, in: channel), auth: credentials.authorization,
            body: Edit(content: content))
        return try response.decode(Message.self, expecting: 200)
    }

    /// One message of a channel (`GET /channels/{id}/messages/{message}`), as the server has it now: the outbox
    /// reads an action's message back with it after an answer that was lost.
    ///
    /// - Parameters:
    ///   - message: The message's id.
    ///   - channel: The channel's id.
    ///   - credentials: The session (or a bot).
    /// - Returns: The message.
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/notFound`` for a message that is not (or no longer) in
    ///   the channel, ``StoatAPIErrorCode/missingPermission`` without `ViewChannel`.
    public func message(
        _ message: String, in channel: String, _ credentials: some StoatAuthorizing
    ) async throws(StoatAPIError) -> Message {
        let response = try await send(
            .GET, path: Self.messagePath(message, in: channel), auth: credentials.authorization)
        return try response.decode(Message.self, expecting: 200)
    }

    /// Deletes a message (`DELETE /channels/{id}/messages/{message}`): the user's own, or another user's with
    /// `ManageMessages` in the channel.
    ///
    /// A message already gone answers ``StoatAPIErrorCode/notFound``, as stoatchat looks it up before anything
    /// else: after a lost answer, that means the deletion is done. The channel hears `MessageDelete` (and
    /// `ChannelUpdate {last_message_id}` when it was the last message).
    ///
    /// - Parameters:
    ///   - message: The message's id.
    ///   - channel: The channel's id.
    ///   - credentials: The session (or a bot).
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/notFound`` for a message not in the channel,
    ///   ``StoatAPIErrorCode/missingPermission`` (`ManageMessages`) for another user's message.
    public func deleteMessage(
        _ message: String, in channel: String, _ credentials: some StoatAuthorizing
    ) async throws(StoatAPIError) {
        let response = try await send(
            .DELETE, path: Self.messagePath(message, in: channel), auth: credentials.authorization)
        try response.expect(204)
    }

    /// Reacts to a message with an emoji (`PUT /channels/{id}/messages/{message}/reactions/{emoji}`).
    ///
    /// Reacting again with an emoji the user already reacted with answers `204` as the first time did (the
    /// channel hears `MessageReact` again): a reaction repeated after a lost answer is harmless.
    ///
    /// - Parameters:
    ///   - message: The message's id.
    ///   - channel: The channel's id.
    ///   - emoji: A Unicode emoji, or a custom emoji's id.
    ///   - credentials: The session (or a bot).
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/invalidOperation`` for something that is not an emoji
    ///   (or a 21st emoji on the message), ``StoatAPIErrorCode/notFound``, ``StoatAPIErrorCode/missingPermission``
    ///   (`React`).
    public func react(
        to message: String, in channel: String, emoji: String, _ credentials: some StoatAuthorizing
    ) async throws(StoatAPIError) {
        let response = try await send(
            .PUT, path: Self.reactionPath(message, in: channel, emoji: emoji), auth: credentials.authorization)
        try response.expect(204)
    }

    /// Takes a reaction back (`DELETE /channels/{id}/messages/{message}/reactions/{emoji}`): the user's own, or
    /// `user`'s, or everyone's with `removeAll` (both need `ManageMessages`).
    ///
    /// A reaction that is not there answers ``StoatAPIErrorCode/notFound`` (unless `removeAll`, which always
    /// answers `204`): after a lost answer, that means it is done.
    ///
    /// - Parameters:
    ///   - message: The message's id.
    ///   - channel: The channel's id.
    ///   - emoji: The emoji.
    ///   - user: Another user whose reaction to remove; `nil` for the user's own.
    ///   - removeAll: Whether to remove every user's reaction with this emoji.
    ///   - credentials: The session (or a bot).
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/notFound``, ``StoatAPIErrorCode/missingPermission``.
    public func unreact(
        to message: String, in channel: String, emoji: String, user: String? = nil, removeAll: Bool = false,
        _ credentials: some StoatAuthorizing
    ) async throws(StoatAPIError) {
        var query: [String] = []
        if let user { query.append("user_id=\(Self.percentEncoded(user))") }
        if removeAll { query.append("remove_all=true") }
        let path =
            Self.reactionPath(message, in: channel, emoji: emoji)
            + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        let response = try await send(.DELETE, path: path, auth: credentials.authorization)
        try response.expect(204)
    }

    // MARK: - A page around a message

    /// The messages around one (`GET /channels/{id}/messages?nearby=`), oldest first: a page to jump to (a
    /// reply, a pinned message, the first unread).
    ///
    /// stoatchat answers the message and up to `limit / 2` newer ones, then up to `limit / 2 + 1` older ones
    /// newest first (`limit + 2` at most; `before`, `after` and `sort` are ignored); this call sorts them. The
    /// message need not exist: the page is then the messages on either side of its id.
    ///
    /// - Parameters:
    ///   - message: The message's id (or any id: a time in the channel).
    ///   - channel: The channel's id.
    ///   - limit: 1 to 100; the server's default (50) when `nil`.
    ///   - includeUsers: Whether to include the authors and their memberships.
    ///   - credentials: The session (or a bot).
    /// - Returns: The page, its messages oldest first.
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/failedValidation`` for a limit outside 1–100 or an id
    ///   that is not 26 characters, ``StoatAPIErrorCode/missingPermission`` (`ReadMessageHistory`).
    public func messages(
        around message: String, in channel: String, limit: Int? = nil, includeUsers: Bool = false,
        _ credentials: some StoatAuthorizing
    ) async throws(StoatAPIError) -> MessagesPage {
        var page = try await messages(
            in: channel, query: .around(message, limit: limit, includeUsers: includeUsers), credentials)
        page.messages.sort { $0.id < $1.id }
        return page
    }

    // MARK: - Web Push

    /// Subscribes this session's device to Web Push (`POST /push/subscribe`).
    ///
    /// stoatchat keeps the subscription on the session, replacing the one it had: it ends with the session (a
    /// logout, a revocation), and a new login must subscribe again. A session token is required: a bot, or a
    /// session not yet valid, is refused.
    ///
    /// - Parameters:
    ///   - subscription: The push service's endpoint and the device's keys.
    ///   - credentials: The session.
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/invalidSession`` (a `401` without a kind) for a session
    ///   that is not valid.
    public func subscribePush(
        _ subscription: WebPushSubscription, _ credentials: SessionCredentials
    ) async throws(StoatAPIError) {
        let response = try await send(
            .POST, path: "/push/subscribe", auth: credentials.authorization, body: subscription)
        try response.expect(204, 200)
    }

    /// Removes this session's Web Push subscription (`POST /push/unsubscribe`); `204` whether or not it had one.
    ///
    /// - Parameter credentials: The session.
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/invalidSession`` for a session that is not valid.
    public func unsubscribePush(_ credentials: SessionCredentials) async throws(StoatAPIError) {
        let response = try await send(.POST, path: "/push/unsubscribe", auth: credentials.authorization)
        try response.expect(204, 200)
    }

    // MARK: - Paths

    static func messagePath(_ message: String, in channel: String) -> String {
        "/channels/\(percentEncoded(channel))/messages/\(percentEncoded(message))"
    }

    static func reactionPath(_ message: String, in channel: String, emoji: String) -> String {
        messagePath(message, in: channel) + "/reactions/\(percentEncoded(emoji))"
    }
}
