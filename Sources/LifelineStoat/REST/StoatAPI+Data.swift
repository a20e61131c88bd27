public import LifelineCore
import NIOHTTP1

extension StoatAPI {
    /// `{"keys": […]}`.
    private struct SettingsKeys: Encodable {
        var keys: [String]
    }

    /// A channel (`GET /channels/{id}`).
    ///
    /// - Parameters:
    ///   - id: The channel's id.
    ///   - credentials: The session (or a bot, see ``StoatAuthorization``).
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/notFound`` or ``StoatAPIErrorCode/unknownChannel``
    ///   for a channel that does not exist or that the user cannot see.
    public func channel(_ id: String, _ credentials: some StoatAuthorizing) async throws(StoatAPIError) -> Channel {
        let response = try await send(
            .GET, path: "/channels/\(Self.percentEncoded(id))", auth: credentials.authorization)
        return try response.decode(Channel.self, expecting: 200)
    }

    /// A server the user is a member of (`GET /servers/{id}`).
    ///
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/notFound`` when the user is not a member.
    public func server(_ id: String, _ credentials: some StoatAuthorizing) async throws(StoatAPIError) -> Server {
        let response = try await send(
            .GET, path: "/servers/\(Self.percentEncoded(id))", auth: credentials.authorization)
        return try response.decode(Server.self, expecting: 200)
    }

    /// A user (`GET /users/{id}`), with the current user's relationship to them.
    ///
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/notFound`` for an unknown user.
    public func user(_ id: String, _ credentials: some StoatAuthorizing) async throws(StoatAPIError) -> User {
        let response = try await send(.GET, path: "/users/\(Self.percentEncoded(id))", auth: credentials.authorization)
        return try response.decode(User.self, expecting: 200)
    }

    /// The current user's direct messages and groups (`GET /users/dms`).
    ///
    /// - Throws: ``StoatAPIError``.
    public func directMessages(_ credentials: some StoatAuthorizing) async throws(StoatAPIError) -> [Channel] {
        let response = try await send(.GET, path: "/users/dms", auth: credentials.authorization)
        return try response.decode([Channel].self, expecting: 200)
    }

    /// A page of a channel's messages (`GET /channels/{id}/messages`).
    ///
    /// - Parameters:
    ///   - channel: The channel's id.
    ///   - query: Which messages; the latest by default.
    ///   - credentials: The session (or a bot).
    /// - Returns: The messages, and their authors when ``MessageQuery/includeUsers`` is set.
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/missingPermission`` without the right to read the
    ///   history, ``StoatAPIErrorCode/failedValidation`` for a limit outside 1–100 or an id that is not one.
    public func messages(
        in channel: String, query: MessageQuery = MessageQuery(), _ credentials: some StoatAuthorizing
    ) async throws(StoatAPIError) -> MessagesPage {
        let items = query.queryItems
        let path = "/channels/\(Self.percentEncoded(channel))/messages" + (items.isEmpty ? "" : "?" + items)
        let response = try await send(.GET, path: path, auth: credentials.authorization)
        return try response.decode(MessagesPage.self, expecting: 200)
    }

    /// Sends a message once (`POST /channels/{id}/messages`) with its `Idempotency-Key`.
    ///
    /// One post, no retry: ``StoatClient/send(_:to:)-(OutgoingMessage,_)`` is the exactly-once path (its outbox looks the message
    /// up whenever an answer leaves it unclear whether the server stored it).
    ///
    /// - Parameters:
    ///   - message: The message.
    ///   - channel: The channel's id.
    ///   - credentials: The session (or a bot).
    /// - Returns: The message as the server stored it; its `nonce` is the key.
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/duplicateNonce`` (a `409` without an error kind) when
    ///   the server's process had the key already — from a post it stored, or one it refused — so the message
    ///   may or may not exist; ``StoatAPIErrorCode/inSlowmode`` with ``StoatAPIErrorDetails/retryAfter`` (the key is
    ///   used up), ``StoatAPIErrorCode/emptyMessage``, ``StoatAPIErrorCode/missingPermission``.
    public func sendMessage(
        _ message: OutgoingMessage, in channel: String, _ credentials: some StoatAuthorizing
    ) async throws(StoatAPIError) -> Message {
        let response = try await send(
            .POST, path: "/channels/\(Self.percentEncoded(channel))/messages", auth: credentials.authorization,
            headers: [("Idempotency-Key", message.idempotencyKey)], body: message)
        return try response.decode(Message.self, expecting: 200)
    }

    /// Every member of a server and their users (`GET /servers/{id}/members`).
    ///
    /// - Parameters:
    ///   - server: The server's id.
    ///   - excludeOffline: Whether to leave out members who are offline.
    ///   - credentials: The session (or a bot).
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/notFound`` when the user is not a member.
    public func members(
        of server: String, excludeOffline: Bool = false, _ credentials: some StoatAuthorizing
    ) async throws(StoatAPIError) -> ServerMembers {
        let path = "/servers/\(Self.percentEncoded(server))/members" + (excludeOffline ? "?exclude_offline=true" : "")
        let response = try await send(.GET, path: path, auth: credentials.authorization)
        return try response.decode(ServerMembers.self, expecting: 200)
    }

    /// The account's sessions (`GET /auth/session/all`).
    ///
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/invalidSession`` for a session that ended.
    public func sessions(_ credentials: SessionCredentials) async throws(StoatAPIError) -> [SessionInfo] {
        let response = try await send(.GET, path: "/auth/session/all", auth: credentials.authorization)
        return try response.decode([SessionInfo].self, expecting: 200)
    }

    /// The account's synced settings under `keys` (`POST /sync/settings/fetch`); keys never set are absent.
    ///
    /// - Throws: ``StoatAPIError``.
    public func settings(
        _ keys: [String], _ credentials: some StoatAuthorizing
    ) async throws(StoatAPIError) -> [String: SyncedSetting] {
        let response = try await send(
            .POST, path: "/sync/settings/fetch", auth: credentials.authorization, body: SettingsKeys(keys: keys))
        return try response.decode([String: SyncedSetting].self, expecting: 200)
    }

    /// Acknowledges a message: the user has read `channel` up to `message` (`PUT /channels/{id}/ack/{message}`).
    /// The user's sockets receive `ChannelAck`, and `GET /sync/unreads` says so (stoatchat writes it a few
    /// seconds later). The request shares the channel's `channels` rate-limit bucket with its message fetches.
    ///
    /// - Parameters:
    ///   - message: The newest message read (stoatchat does not look it up).
    ///   - channel: The channel's id.
    ///   - credentials: The session (a bot cannot acknowledge: ``StoatAPIErrorCode/isBot``).
    /// - Throws: ``StoatAPIError``; ``StoatAPIErrorCode/missingPermission`` without `ViewChannel`,
    ///   ``StoatAPIErrorCode/notFound`` for an unknown channel.
    public func acknowledge(
        _ message: String, in channel: String, _ credentials: some StoatAuthorizing
    ) async throws(StoatAPIError) {
        let path = "/channels/\(Self.percentEncoded(channel))/ack/\(Self.percentEncoded(message))"
        let response = try await send(.PUT, path: path, auth: credentials.authorization)
        try response.expect(204)
    }

    /// The current user's read state of every channel they read (`GET /sync/unreads`).
    ///
    /// - Throws: ``StoatAPIError``.
    public func unreads(_ credentials: some StoatAuthorizing) async throws(StoatAPIError) -> [ChannelUnread] {
        let response = try await send(.GET, path: "/sync/unreads", auth: credentials.authorization)
        return try response.decode([ChannelUnread].self, expecting: 200)
    }
}
