/// Where stoatchat is late or loses events, as faults and switches a test drives (`ServerState+Lag`).
extension ReferenceServer {
    /// Turns stoatchat's debounced `last_message_id` on (the default) or off.
    ///
    /// On, a channel's `last_message_id` (and a direct message's `active`) is committed by the server's clock
    /// about 6 s after the channel's last message and 31 s at most for a busy one, and nothing is published when
    /// it is (`tasks/last_message_id.rs`): `Ready`, `GET /channels/{id}`, `GET /servers/{id}?include_channels`
    /// and `GET /users/dms` show it only then. Off, a send writes it at once, and what was pending is committed
    /// now. `POST /admin/last-message-id-lag {"enabled": BOOL}`; ``resetFaults()`` turns it back on.
    ///
    /// - Parameter enabled: Whether the field lags as stoatchat's does.
    public func setLastMessageIDLag(_ enabled: Bool) async {
        await state.setLastMessageIDLag(enabled)
    }

    /// Posts a webhook's message in `channelID`, as `POST /webhooks/{id}/{token}` would: its author is a
    /// webhook id, it carries `webhook: {name}` and no `user` or `member`. Bonfire sockets receive it; on the
    /// gateway, a server channel's webhook message reaches no socket (its consumer fans a message out to a
    /// server only when it carries a member). `POST /admin/webhook-messages {"channel_id","content","name"?}`.
    ///
    /// - Parameters:
    ///   - channelID: The channel.
    ///   - name: The webhook's name.
    ///   - content: The text.
    /// - Returns: The message as stored.
    /// - Throws: ``ReferenceServerError`` with ``ReferenceServerError/Code/notFound`` for an unknown channel.
    @discardableResult
    public func postWebhookMessage(
        in channelID: String, name: String = "Webhook", content: String
    ) async throws(ReferenceServerError) -> StoatMessage {
        try await state.postWebhookMessage(channelID: channelID, name: name, content: content)
    }

    /// The gateway's session processes of `userID` crash (`session.ex`): the user's gateway sockets stay open
    /// and answer `Ping`, and every event published until ``restoreGatewaySessions(userID:)`` is lost. Bonfire
    /// sockets are not affected. `POST /admin/restart-session {"user_id","down_milliseconds"?}` does both, the
    /// given time apart.
    ///
    /// - Parameter userID: Whose sessions.
    /// - Returns: How many sockets lost their session process.
    @discardableResult
    public func crashGatewaySessions(userID: String) async -> Int {
        await state.crashGatewaySessions(userID: userID)
    }

    /// The supervisor restarts the crashed session processes of `userID` (`restart: :transient`): each sends a
    /// second `Ready` on its open socket (`handle_continue(:ready)`), and events reach it again.
    ///
    /// - Parameter userID: Whose sessions.
    /// - Returns: How many sockets received a second `Ready`.
    @discardableResult
    public func restoreGatewaySessions(userID: String) async -> Int {
        await state.restoreGatewaySessions(userID: userID)
    }

    /// The next `count` `Message` events are each overtaken by the next event published (say, the message's own
    /// `MessageDelete`), as the gateway consumer's parallel processors may deliver them; a held message also
    /// goes out before the server answers its next REST request. `POST /admin/reorder-events {"count": N}`.
    ///
    /// - Parameter count: How many messages to hold back.
    public func reorderMessages(_ count: Int) async {
        await state.reorderMessages(count)
    }
}
