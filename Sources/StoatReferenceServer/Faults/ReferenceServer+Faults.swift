extension ReferenceServer {
    /// Closes every live events socket abruptly, without a close frame, as a network failure would.
    ///
    /// - Returns: How many sockets were dropped.
    @discardableResult
    public func dropAllSockets() async -> Int {
        await state.dropAllSockets()
    }

    /// Refuses the next `count` WebSocket upgrades with HTTP 400 (replacing any count still pending).
    public func refuseNextUpgrades(_ count: Int) async {
        await state.refuseUpgrades(count)
    }

    /// Answers the next `count` message queries (`GET /channels/{id}/messages`) with stoatchat's
    /// `InternalError` (HTTP 500), as a database hiccup would: a client must not take one failed fetch as
    /// the end of it.
    ///
    /// - Parameters:
    ///   - count: How many queries fail.
    ///   - passing: How many queries are answered as usual first (default none): a fetch that fails mid-way.
    public func failNextMessageQueries(_ count: Int, after passing: Int = 0) async {
        await state.failMessageQueries(count, after: passing)
    }

    /// The Stoat REST requests the server answered since it started (or since ``resetRequestCounts()``), by
    /// route with ids written `{id}`: `GET /channels/{id}/messages`, `GET /sync/unreads`…
    public func requestCounts() async -> [String: Int] {
        await state.requestCounts
    }

    /// Forgets the counts ``requestCounts()`` reports.
    public func resetRequestCounts() async {
        await state.resetRequestCounts()
    }

    /// While on, newly accepted sockets stay silent for their whole life: no `Authenticated`, no `Ready`, no
    /// `Pong`, nothing. Their frames are still recorded.
    public func setSilent(_ silent: Bool) async {
        await state.setSilent(silent)
    }

    /// While on, the server is deaf: no socket receives a published event (a message, an update, a typing
    /// indicator), while every socket still answers `Pong` and a new one still gets `Authenticated` and
    /// `Ready` — stoatchat#649, an events bus that stopped delivering, which Ping/Pong cannot see. Events
    /// published meanwhile are lost, as they are for a stalled bus; REST still stores them.
    public func setDeaf(_ deaf: Bool) async {
        await state.setDeaf(deaf)
    }

    /// Deafens the sockets that listen now, for the rest of their lives: they answer `Pong` and receive no
    /// event, while a socket opened later (a reconnect) hears again.
    ///
    /// - Parameter userIDs: Whose sockets; `nil` (the default) for every one.
    /// - Returns: How many sockets went deaf.
    @discardableResult
    public func deafenSockets(userIDs: [String]? = nil) async -> Int {
        await state.deafenListeningSockets(userIDs: userIDs.map(Set.init))
    }

    /// Loses the answer to the next `count` message sends the server stores: the message is stored and
    /// published (its event reaches the sockets), then the HTTP connection drops without an answer, as when
    /// the network fails on the way back. ``SocketCounters/lostSendAnswers`` counts them.
    public func loseNextSendAnswers(_ count: Int) async {
        await state.loseSendAnswers(count)
    }

    /// Loses the answer to the next `count` message actions the server applies — an edit, a deletion, a reaction
    /// or its removal: the change is made and published (its event reaches the sockets), then the HTTP
    /// connection drops without an answer, as when the network fails on the way back.
    public func loseNextActionAnswers(_ count: Int) async {
        await state.loseActionAnswers(count)
    }

    /// Fails the next `count` acknowledgements after their `ChannelAck` went out to the user's sockets and before
    /// the read state is written, with stoatchat's `InternalError` (500): `Channel::ack` publishes first, then
    /// `ack_channel` fails on Redis or AMQP. The user's devices saw the chat read; the server did not record it.
    public func failNextAckWrites(_ count: Int) async {
        await state.failAckWrites(count)
    }

    /// While on, no socket is answered `Pong` (everything else works).
    public func setIgnoresPings(_ ignores: Bool) async {
        await state.setIgnorePings(ignores)
    }

    /// While on, every socket is dropped (without a close frame) right after its `Ready`: a server that
    /// accepts each connection and ends it at once.
    public func setDropsAfterReady(_ drops: Bool) async {
        await state.setDropAfterReady(drops)
    }

    /// Delays each `Ready` by `delay` after `Authenticated`; nil sends it at once.
    public func setReadyDelay(_ delay: Duration?) async {
        await state.setReadyDelay(delay)
    }

    /// Holds back every `Ready` after `Authenticated` until ``releaseReady()``: a late Ready that depends on no
    /// clock, for a test that must see what happens before it.
    public func holdReady() async {
        await state.setReadyHeld(true)
    }

    /// Lets the `Ready`s held by ``holdReady()`` go, and stops holding.
    public func releaseReady() async {
        await state.setReadyHeld(false)
    }

    /// Pads each `Ready` to at least `bytes` bytes with extra, valid users (ids start with `PADDING`); nil stops
    /// padding.
    public func setReadyMinimumSize(_ bytes: Int?) async {
        await state.setReadyMinimumBytes(bytes)
    }

    /// Answers the next `count` logins with `answer`, whatever their credentials.
    public func answerNextLogins(with answer: LoginAnswer, count: Int = 1) async {
        await state.forceLogins(answer, count: count)
    }

    /// Deletes the session `token`, as an admin or another device would: its sockets receive `{"type":"Logout"}`
    /// and are dropped without a close frame; REST calls with it get the framework's 401; the user's other
    /// sockets receive `DeleteSession`, which bonfire forwards as it is.
    ///
    /// - Returns: Whether the session existed.
    @discardableResult
    public func revokeSession(token: String) async -> Bool {
        await state.revoke(token: token)
    }

    /// Sets a user's flags (1 suspended, 2 deleted, 4 banned, 8 spam), as `GET /users/{id}/flags` and
    /// `GET /users/@me` then report.
    ///
    /// - Returns: Whether the user exists.
    @discardableResult
    public func setUserFlags(_ flags: UInt32, userID: String) async -> Bool {
        await state.setFlags(flags, userID: userID)
    }

    /// Disables the account as its owner would: every session is deleted (its sockets receive `Logout`, then
    /// the drop), and a later login answers `Disabled`. The user's flags stay as they are (0).
    ///
    /// - Returns: Whether the account exists.
    @discardableResult
    public func disableAccount(userID: String) async -> Bool {
        await state.disableAccount(userID: userID)
    }

    /// Suspends the account as stoatchat's `User::suspend` does: it is disabled, every session deleted (its
    /// sockets receive `Logout`, then the drop), and the user's flags set to 1 (`UserUpdate`); a later login
    /// answers `Disabled`.
    ///
    /// - Returns: Whether the account or user exists.
    @discardableResult
    public func suspendAccount(userID: String) async -> Bool {
        await state.suspendAccount(userID: userID)
    }

    /// Lifts a suspension or a disabling (``suspendAccount(userID:)``, ``disableAccount(userID:)``): logins are
    /// accepted again and the user's flags are 0. Sessions deleted meanwhile stay deleted.
    ///
    /// - Returns: Whether the account exists.
    @discardableResult
    public func reinstateAccount(userID: String) async -> Bool {
        await state.reinstateAccount(userID: userID)
    }

    /// Makes session-token lookups fail, as stoatchat's do when its database fails during the lookup: the
    /// socket answers `Error{InvalidSession}` (then drops) to valid tokens, and REST session checks answer the
    /// framework's 401, for `duration` of the server's clock or, when nil, until
    /// ``restoreSessionLookups()``. ``SocketCounters/outageSessionChecks`` counts the REST checks so refused,
    /// from zero, so that a test can wait for a client to have re-checked K times.
    public func failSessionLookups(for duration: Duration?) async {
        await state.failSessionLookups(for: duration)
    }

    /// Ends the session-lookup outage.
    public func restoreSessionLookups() async {
        await state.restoreSessionLookups()
    }

    /// While on, the server ends a socket after `Logout` or `Error` with a close frame (1000) instead of
    /// dropping it as bonfire does.
    public func setCloseFramesOnServerEnds(_ enabled: Bool) async {
        await state.setCloseFramesOnServerEnds(enabled)
    }

    /// Forgets every rate-limit bucket, so that the next requests start fresh windows.
    public func resetRateLimits() async {
        await state.resetRateLimits()
    }

    /// Sets or clears the health endpoint's outage alert and `poll_rate` (milliseconds).
    public func setHealthAlert(_ alert: HealthAlert?, pollRate: Int? = nil) async {
        await state.setHealth(alert: alert, pollRate: pollRate)
    }

    /// Sets how far the server's clock is from the configured clock (not cumulative): the `Date` header,
    /// operation expiries, lockouts and TOTP checks all follow it.
    public func setClockSkew(_ skew: Duration) async {
        await state.setClockSkew(skew)
        _ = await state.expireOperations()
    }

    /// Sends `text` verbatim as a text frame to the sockets of session `token`, or to every live socket when nil.
    ///
    /// - Returns: How many sockets it was sent to.
    @discardableResult
    public func sendRawFrame(_ text: String, token: String? = nil) async -> Int {
        await state.sendRaw(text, token: token)
    }

    /// Clears every fault: upgrades, silence, deafness (of the server; sockets deafened one by one stay deaf),
    /// lost answers, pings, Ready delay and size, forced logins, health alert, clock skew, close frames and the
    /// session-lookup outage.
    public func resetFaults() async {
        await state.resetFaults()
    }

    // MARK: Operations

    /// Adds an operation for `userID` that expires `expiresIn` from now in the server's clock.
    public func addOperation(kind: String, userID: String, expiresIn: Duration) async -> StoatOperation {
        await state.addOperation(kind: kind, userID: userID, expiresIn: expiresIn)
    }

    /// Ends an operation (Lifeline's extension): the owner's authenticated sockets receive
    /// `{"type":"OperationFinished","id":…,"result":…}` and `GET /operations` stops listing it.
    ///
    /// - Returns: Whether the operation was pending.
    @discardableResult
    public func finishOperation(id: String, result: OperationResult) async -> Bool {
        await state.finishOperation(id: id, result: result)
    }

    /// Ends with `timeout` every operation whose expiry has passed in the server's clock, now, instead of at
    /// the next periodic check. Tests that move an injected clock call this.
    ///
    /// - Returns: The ids of the operations that timed out.
    @discardableResult
    public func processExpiredOperations() async -> [String] {
        await state.expireOperations()
    }
}
