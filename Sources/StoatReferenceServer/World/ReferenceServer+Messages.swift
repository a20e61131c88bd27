extension ReferenceServer {
    /// Reacts to a message as `userID`, by the rules of `PUT /channels/{id}/messages/{msg}/reactions/{emoji}`:
    /// `MessageReact` to the channel's sockets.
    ///
    /// - Parameters:
    ///   - userID: Who reacts.
    ///   - messageID: The message.
    ///   - emoji: A Unicode emoji or a custom emoji's id.
    /// - Throws: ``ReferenceServerError``: ``ReferenceServerError/Code/notFound`` for an unknown user or message,
    ///   ``ReferenceServerError/Code/refused`` with the Stoat error (`MissingPermission`, `InvalidOperation`).
    public func react(as userID: String, to messageID: String, with emoji: String) async throws(ReferenceServerError) {
        try await state.react(as: userID, messageID: messageID, emoji: emoji, add: true)
    }

    /// Takes back `userID`'s reaction: `MessageUnreact` to the channel's sockets.
    ///
    /// - Throws: ``ReferenceServerError`` as ``react(as:to:with:)`` does; `NotFound` when there was no such
    ///   reaction.
    public func unreact(as userID: String, to messageID: String, with emoji: String) async throws(ReferenceServerError)
    {
        try await state.react(as: userID, messageID: messageID, emoji: emoji, add: false)
    }

    /// Appends a text embed to a message, as stoatchat's link-preview task appends embeds after a send:
    /// `MessageAppend {id, channel, append: {embeds}}` to the channel's sockets.
    ///
    /// - Parameters:
    ///   - messageID: The message.
    ///   - title: The embed's title.
    ///   - description: The embed's text, if any.
    /// - Returns: The message with its embeds.
    /// - Throws: ``ReferenceServerError`` with ``ReferenceServerError/Code/notFound`` for an unknown message.
    @discardableResult
    public func appendTextEmbed(
        to messageID: String, title: String, description: String? = nil
    ) async throws(ReferenceServerError) -> StoatMessage {
        var embed: [String: JSONValue] = ["type": .string("Text"), "title": .string(title)]
        if let description { embed["description"] = .string(description) }
        return try await state.appendEmbeds([.object(embed)], to: messageID)
    }

    /// Deletes messages of a channel at once as `userID` (who needs `ManageMessages`), by the rules of
    /// `DELETE /channels/{id}/messages/bulk`: one `BulkMessageDelete` naming those that were the channel's.
    ///
    /// - Throws: ``ReferenceServerError``: ``ReferenceServerError/Code/refused`` with the Stoat error
    ///   (`InvalidOperation` for an id older than 7 days, `MissingPermission`, `FailedValidation`).
    public func bulkDeleteMessages(
        _ ids: [String], in channelID: String, as userID: String
    ) async throws(ReferenceServerError) {
        try await state.bulkDelete(as: userID, ids: ids, channelID: channelID)
    }

    /// Acknowledges a message as `userID`, as another of their devices would (`PUT /channels/{id}/ack/{message}`):
    /// `ChannelAck` to the user's sockets, and their read state of the channel moves to `messageID`.
    ///
    /// - Throws: ``ReferenceServerError``: `IsBot` for a bot, `MissingPermission`, `NotFound`.
    public func acknowledge(as userID: String, channelID: String, messageID: String) async throws(ReferenceServerError)
    {
        try await state.acknowledge(as: userID, channelID: channelID, messageID: messageID)
    }

    /// Sets a server's default permissions (``StoatPermission`` bits): `ServerUpdate {default_permissions}` to
    /// the server, which each member's socket receives in a `Bulk` after the `ChannelDelete`s and `ChannelCreate`s
    /// of the channels it can no longer, or now, view — as bonfire recalculates them.
    ///
    /// - Throws: ``ReferenceServerError`` with ``ReferenceServerError/Code/notFound`` for an unknown server.
    public func setDefaultPermissions(
        serverID: String, _ permissions: StoatPermission
    ) async throws(ReferenceServerError) {
        try await state.setDefaultPermissions(serverID: serverID, permissions: Int64(bitPattern: permissions.rawValue))
    }

    /// Creates a role in a server: `ServerRoleUpdate` to the server. A member holds it once
    /// ``setMemberRoles(serverID:userID:roles:)`` gives it to them; a message mentions it as `<%ID>`, which needs
    /// `MentionRoles` (``StoatPermission/mentionRoles``).
    ///
    /// - Returns: The role's id.
    /// - Throws: ``ReferenceServerError`` with ``ReferenceServerError/Code/notFound`` for an unknown server.
    @discardableResult
    public func addRole(serverID: String, _ role: StoatRole) async throws(ReferenceServerError) -> String {
        try await state.addRole(serverID: serverID, role: role)
    }

    /// Sets the roles a member holds (replacing theirs): `ServerMemberUpdate {roles}` to the server.
    ///
    /// - Throws: ``ReferenceServerError`` with ``ReferenceServerError/Code/notFound`` for a user who is not a
    ///   member, or a role the server does not have.
    public func setMemberRoles(serverID: String, userID: String, roles: [String]) async throws(ReferenceServerError) {
        try await state.setMemberRoles(serverID: serverID, userID: userID, roles: roles)
    }

    /// Sets a text channel's override of its server's default permissions (nil removes it): `ChannelUpdate
    /// {default_permissions}` to the channel. For instance `StoatOverride(deny: .readMessageHistory)` makes a
    /// channel where members may send but not read what was sent (`GET /channels/{id}/messages` answers
    /// `MissingPermission`).
    ///
    /// - Throws: ``ReferenceServerError`` with ``ReferenceServerError/Code/notFound`` for an unknown text channel.
    public func setChannelDefaultPermissions(
        channelID: String, _ override: StoatOverride?
    ) async throws(ReferenceServerError) {
        try await state.setChannelDefaultPermissions(channelID: channelID, override)
    }

    /// Deletes a server with its channels, their messages and its members: `ServerDelete` to its sockets.
    ///
    /// - Throws: ``ReferenceServerError`` with ``ReferenceServerError/Code/notFound`` for an unknown server.
    public func deleteServer(id: String) async throws(ReferenceServerError) {
        try await state.deleteServer(id)
    }

    /// `userID`'s read states as `GET /sync/unreads` lists them: each channel's last acknowledged message and the
    /// unacknowledged messages that mention the user.
    public func unreads(userID: String) async -> [(channel: String, lastID: String?, mentions: [String])] {
        await state.unreadRecords(userID: userID).map { ($0.channel, $0.lastID, $0.mentions ?? []) }
    }
}

extension ReferenceServer {
    /// The message `id` as stored now (its reactions and attachments included), or nil once deleted.
    public func message(id: String) async -> StoatMessage? {
        await state.messages[id]
    }

    /// The server `id` as stored now (its channels included), or nil.
    public func server(id: String) async -> StoatServer? {
        await state.servers[id]
    }

    /// Every server as stored now, by id: the seeded world (`lifeline serve` prints it).
    public func servers() async -> [StoatServer] {
        await state.servers.values.sorted { $0.id < $1.id }
    }
}
