public import Lifeline

extension StoatClient {
    // MARK: - Sending text

    /// Queues a text message for a channel in the outbox: ``send(_:to:)-(OutgoingMessage,_)`` with `OutgoingMessage(content:)`.
    ///
    /// - Parameters:
    ///   - text: The message's text.
    ///   - channel: The channel's id.
    /// - Returns: The outbox entry, `queued`; it is delivered exactly once (``delivery(of:)`` waits for it).
    /// - Throws: ``StoatClientError`` with ``StoatClientErrorCode/storageFailed`` when the account's store
    ///   cannot keep it (nothing is queued then).
    @discardableResult
    public func send(_ text: String, to channel: String) async throws(StoatClientError) -> OutboxEntry {
        try await send(OutgoingMessage(content: text), to: channel)
    }

    /// Queues a reply to `message` in its channel, through the outbox as ``send(_:to:)-(OutgoingMessage,_)`` does.
    ///
    /// - Parameters:
    ///   - message: The message answered.
    ///   - text: The reply's text.
    ///   - mention: Whether the reply mentions the message's author (notifies them). Default `false`.
    /// - Returns: The outbox entry, `queued`.
    /// - Throws: ``StoatClientError`` as ``send(_:to:)-(OutgoingMessage,_)``.
    @discardableResult
    public func reply(
        to message: Message, with text: String, mention: Bool = false
    ) async throws(StoatClientError) -> OutboxEntry {
        let outgoing = OutgoingMessage(
            content: text, replies: [OutgoingMessage.Reply(id: message.id, mention: mention)])
        return try await send(outgoing, to: message.channel)
    }

    // MARK: - Naming authors

    /// A user: the cache's copy (kept current by the socket's events), else a user fetched earlier, else
    /// fetched now (`GET /users/{id}`). Concurrent calls for one id share one request; fetched users are kept
    /// beside the cache, at most ``Configuration/fetchedUserLimit`` of them (the least recently asked for is
    /// forgotten first).
    ///
    /// - Parameter id: The user's id (a message's ``Message/author``).
    /// - Throws: ``StoatClientError`` with ``StoatClientErrorCode/notSignedIn`` without a session, or
    ///   ``StoatClientErrorCode/requestFailed`` with the ``StoatAPIError`` (an unknown user is
    ///   ``StoatAPIErrorCode/notFound``).
    public func fetchUser(_ id: String) async throws(StoatClientError) -> User {
        if let known = user(id) ?? userDirectory.withLock({ $0.user(id) }) { return known }
        let result = await userFetches.run(key: id) { () async -> Result<User, StoatClientError> in
            // A fetch that ended between this caller's look and its joining has kept the user already.
            if let kept = self.userDirectory.withLock({ $0.user(id) }) { return .success(kept) }
            guard let credentials = self.currentCredentials else {
                return .failure(StoatClientError(code: .notSignedIn, message: "fetching a user needs a session"))
            }
            do {
                let fetched = try await self.api.user(id, credentials)
                self.userDirectory.withLock { $0.keep(fetched) }
                return .success(fetched)
            } catch {
                return .failure(StoatClientError(code: .requestFailed, message: "fetching a user failed", cause: error))
            }
        }
        return try result.get()
    }

    /// The name to show for a message's author, as Stoat's clients choose it: the message's masquerade name,
    /// the author's nickname on the channel's server, the user's display name, the username; a webhook's
    /// name; the author's id when the user cannot be fetched (``fetchUser(_:)``, which this may call).
    ///
    /// - Parameter message: The message.
    public func authorName(of message: Message) async -> String {
        if let name = message.masquerade?.name { return name }
        if let webhook = message.webhook { return webhook.name }
        if let nickname = message.member?.nickname { return nickname }
        let nickname = cache.read { cache -> String? in
            guard let server = cache.channels[message.channel]?.server else { return nil }
            return cache.members[server]?[message.author]?.nickname
        }
        if let nickname { return nickname }
        var user = message.user
        if user == nil { user = try? await fetchUser(message.author) }
        guard let user else { return message.author }
        return user.displayName ?? user.username
    }

    // MARK: - The session's common actions

    /// The session's states: the current snapshot first, then every transition (the session's
    /// `Session/states`).
    public var states: SessionStates { session.states }

    /// The session's current snapshot: its state, what the interface shows, the retry countdown.
    public var snapshot: SessionSnapshot { session.snapshot }

    /// Logs out (`Session/logOut()`): the server's session is deleted, the cache discarded, and a sign-in
    /// through the account's store asks for the password with the server again.
    ///
    /// - Returns: Whether the session was in a state that logs out (not READY).
    @discardableResult
    public func logOut() async -> Bool { await session.logOut() }

    /// Reconnects now instead of waiting for the retry countdown (`Session/reconnectNow()`): the
    /// "Reconnect now" button of the disconnected banner.
    ///
    /// - Returns: Whether the session was waiting to retry.
    @discardableResult
    public func reconnectNow() async -> Bool { await session.reconnectNow() }

    /// Dismisses the notice READY shows after a failure (`Session/dismissError()`).
    ///
    /// - Returns: Whether there was a notice to dismiss.
    @discardableResult
    public func dismissError() async -> Bool { await session.dismissError() }

    /// Chooses the account's username during onboarding (`Session/submitUsername(_:)`).
    ///
    /// - Parameter username: The username the user chose.
    /// - Throws: `SessionError` when the session is not onboarding or the server refuses the name.
    public func submitUsername(_ username: String) async throws(SessionError) {
        try await session.submitUsername(username)
    }
}
