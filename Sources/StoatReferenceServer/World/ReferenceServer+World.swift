#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

extension ReferenceServer {
    /// Makes `userID` a member of `serverID`, joined now, as stoatchat's `Member::create` does:
    /// `ServerMemberJoin {id, user, member}` to the server's sockets, then `ServerCreate` to the new member's,
    /// which then receive the server's events.
    ///
    /// - Throws: ``ReferenceServerError``: ``ReferenceServerError/Code/notFound`` for an unknown user or server,
    ///   ``ReferenceServerError/Code/refused`` (`AlreadyInServer`) for a member.
    @discardableResult
    public func join(userID: String, serverID: String) async throws(ReferenceServerError) -> StoatMember {
        try await state.join(userID: userID, serverID: serverID)
    }

    /// Removes `userID` from `serverID`: `ServerMemberLeave {id, user, reason}` to the server's sockets (the
    /// leaver's included, which then stop receiving the server's events).
    ///
    /// - Parameters:
    ///   - userID: The member.
    ///   - serverID: The server.
    ///   - reason: `Leave`, `Kick` or `Ban`.
    /// - Throws: ``ReferenceServerError`` with ``ReferenceServerError/Code/notFound`` for a non-member.
    public func removeMember(
        userID: String, serverID: String, reason: String = "Leave"
    )
        async
        throws(ReferenceServerError)
    {
        try await state.removeMember(userID: userID, serverID: serverID, reason: reason)
    }

    /// Times a member out until `until` in the server's clock (they may then only view and read the server's
    /// channels), or clears the timeout when nil: `ServerMemberUpdate` with `data.timeout`, or with
    /// `clear: ["Timeout"]`, to the server's sockets.
    ///
    /// - Throws: ``ReferenceServerError`` with ``ReferenceServerError/Code/notFound`` for a non-member.
    public func timeOutMember(userID: String, serverID: String, until: Date?) async throws(ReferenceServerError) {
        try await state.setTimeout(userID: userID, serverID: serverID, until: until)
    }

    /// Shows `userID` typing in `channelID`, or stops showing it, as that user's own socket would (`BeginTyping`,
    /// `EndTyping`): `ChannelStartTyping` or `ChannelStopTyping` to the channel's sockets. For simulated users
    /// that do not hold a socket.
    ///
    /// - Throws: ``ReferenceServerError`` with ``ReferenceServerError/Code/notFound`` for an unknown user or channel.
    public func setTyping(userID: String, channelID: String, typing: Bool) async throws(ReferenceServerError) {
        try await state.setTyping(userID: userID, channelID: channelID, typing: typing)
    }

    /// Makes two users friends: each sees the other in Ready's users, may message them directly, and receives
    /// `UserRelationship` now.
    ///
    /// - Throws: ``ReferenceServerError`` with ``ReferenceServerError/Code/notFound`` unless both users exist.
    public func makeFriends(_ userID: String, _ otherID: String) async throws(ReferenceServerError) {
        try await state.makeFriends(userID, otherID)
    }

    /// Opens (or returns) the direct message between two users, announced to each as `ChannelCreate`. Stoat
    /// lets only friends, or a user and a bot, send in it; others may read it.
    ///
    /// - Throws: ``ReferenceServerError`` with ``ReferenceServerError/Code/notFound`` unless both users exist.
    public func openDirectMessage(
        _ userID: String, _ otherID: String
    ) async throws(ReferenceServerError)
        -> StoatChannel
    {
        try await state.openDirectMessage(userID, otherID)
    }

    /// Creates a group owned by `owner` with `recipients`, announced to each as `ChannelCreate`.
    ///
    /// - Throws: ``ReferenceServerError`` with ``ReferenceServerError/Code/notFound`` for an unknown user.
    public func createGroup(
        name: String, owner: String, recipients: [String]
    ) async throws(ReferenceServerError)
        -> StoatChannel
    {
        try await state.createGroup(name: name, owner: owner, recipients: recipients)
    }

    /// Creates a text channel in `serverID`, with an optional slowmode in seconds: `ServerUpdate` and
    /// `ChannelCreate` to the server's sockets, which then receive its events.
    ///
    /// - Throws: ``ReferenceServerError`` with ``ReferenceServerError/Code/notFound`` for an unknown server.
    public func addTextChannel(
        serverID: String, name: String, slowmode: UInt64? = nil
    )
        async
        throws(ReferenceServerError) -> StoatChannel
    {
        try await state.addTextChannel(serverID: serverID, name: name, slowmode: slowmode)
    }

    /// Sets or clears (nil) a text channel's slowmode, in seconds: `ChannelUpdate` to the server's sockets.
    ///
    /// - Throws: ``ReferenceServerError`` with ``ReferenceServerError/Code/notFound`` for an unknown text channel.
    public func setSlowmode(channelID: String, seconds: UInt64?) async throws(ReferenceServerError) {
        try await state.setSlowmode(channelID: channelID, seconds: seconds)
    }

    /// Sets or clears a user's display name: `UserUpdate` to the user's topic and to the member events of their
    /// servers, which reach only sockets subscribed to one of those servers (`Subscribe`) or related to the user.
    ///
    /// - Throws: ``ReferenceServerError`` with ``ReferenceServerError/Code/notFound`` for an unknown user.
    public func setDisplayName(userID: String, displayName: String?) async throws(ReferenceServerError) {
        try await state.setDisplayName(userID: userID, displayName: displayName)
    }

    /// Sends a message as `userID`, by the rules and with the events of `POST /channels/{id}/messages`.
    ///
    /// - Throws: ``ReferenceServerError``: ``ReferenceServerError/Code/notFound`` for an unknown user or channel,
    ///   ``ReferenceServerError/Code/refused`` with the Stoat error otherwise (`MissingPermission`, `InSlowmode`…).
    @discardableResult
    public func postMessage(
        as userID: String, in channelID: String, content: String, nonce: String? = nil
    )
        async
        throws(ReferenceServerError) -> StoatMessage
    {
        try await state.postMessage(as: userID, channelID: channelID, content: content, nonce: nonce)
    }

    /// Edits a message as its author: `MessageUpdate` to the channel's sockets.
    ///
    /// - Throws: ``ReferenceServerError`` as ``postMessage(as:in:content:nonce:)`` does.
    @discardableResult
    public func editMessage(id: String, content: String) async throws(ReferenceServerError) -> StoatMessage {
        try await state.editMessage(id: id, content: content)
    }

    /// Deletes a message as its author: `MessageDelete` (and `ChannelUpdate` when it was the last one) to the
    /// channel's sockets.
    ///
    /// - Throws: ``ReferenceServerError`` with ``ReferenceServerError/Code/notFound`` for an unknown message.
    public func deleteMessage(id: String) async throws(ReferenceServerError) {
        try await state.deleteMessage(id: id)
    }

    /// The messages of a channel as stored now, oldest first: what a test finds on the server after a client sent.
    public func messages(in channelID: String) async -> [StoatMessage] {
        await state.messages.values.filter { $0.channel == channelID }.sorted { $0.id < $1.id }
    }

    /// The channel `id` as stored now (its `last_message_id` included), or nil.
    public func channel(id: String) async -> StoatChannel? {
        await state.settledChannel(id)
    }

    /// The member `userID` of `serverID` as stored now, or nil.
    public func member(userID: String, serverID: String) async -> StoatMember? {
        await state.member(server: serverID, user: userID)
    }
}
