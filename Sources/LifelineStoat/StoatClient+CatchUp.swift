extension StoatClient {
    // MARK: - Messages

    /// Every message the account receives, with edits and deletions, for any number of observers: each
    /// message id is ``MessageEvent/received(_:origin:)`` once per run of the client — live from the socket,
    /// or caught up over REST after a reconnect (``MessageOrigin/caughtUp``) — so a bot answers each command
    /// exactly once, also one posted while it was away.
    ///
    /// ```swift
    /// for try await event in client.messages {
    ///     if case .received(let message, _) = event, message.content == "!ping" {
    ///         try await client.send(OutgoingMessage(content: "pong"), to: message.channel)
    ///     }
    /// }
    /// ```
    ///
    /// The cache has applied an event before any observer receives it. An observer that falls
    /// ``Configuration/eventBufferLimit`` events behind is told (``StoatClientErrorCode/observerTooSlow``).
    /// Messages inside a recorded gap (``ChannelHistory/gaps``) reached neither the cache nor this stream; they
    /// do when the app pages into the gap (``history(of:before:limit:)``). Reactions and appended embeds change
    /// histories (``historyUpdates(of:)``) without an event here.
    public var messages: StoatMessages { StoatMessages(hub: cache.messages) }

    /// The message events and each catch-up's report, in the order they happened: a report comes after every
    /// message its catch-up found (`package`: for `lifeline connect`).
    package var messageFeed: AsyncThrowingStream<MessageFeedItem, any Error> { cache.messages.throwingStream() }

    // MARK: - Catch-up

    /// One report per CONNECTED's catch-up (the first connection included), from now on: the chats fetched,
    /// the messages found, whether it finished, the gaps left. An interrupted catch-up reports too
    /// (``CatchUpReport/isComplete`` false); the next CONNECTED resumes it.
    public var catchUps: AsyncStream<CatchUpReport> { catchUpEngine.subscribe() }

    /// The last catch-up's report, if one ran.
    public var lastCatchUp: CatchUpReport? { catchUpEngine.lastReport }

    // MARK: - Paging back

    /// The messages before `message` in `channel`, oldest first, fetched from the server
    /// (`GET /channels/{id}/messages?before=…`): scrollback, and how the app fills a ``HistoryGap`` — page
    /// before the gap's ``HistoryGap/before`` until the gap is gone from ``ChannelHistory/gaps``.
    ///
    /// Messages that fit in the cache's bounded history join it; messages inside a recorded gap are new to the
    /// app and also reach ``messages`` as caught up; the gaps shrink by what the page covers. The answer's
    /// ``ChannelHistory/gaps`` are the channel's gaps below `message` that remain.
    ///
    /// - Parameters:
    ///   - channel: The channel's id.
    ///   - message: The id to page before (the oldest message shown, or a gap's ``HistoryGap/before``).
    ///   - limit: How many messages, 1–100.
    /// - Throws: ``StoatClientError``: ``StoatClientErrorCode/notSignedIn``,
    ///   ``StoatClientErrorCode/requestFailed`` with the ``StoatAPIError``, or
    ///   ``StoatClientErrorCode/unexpectedPage`` for a page that is not what was asked (the cache is left as it
    ///   was).
    public func history(
        of channel: String, before message: String, limit: Int = 100
    ) async throws(StoatClientError) -> ChannelHistory {
        guard let credentials = currentCredentials else {
            throw StoatClientError(code: .notSignedIn, message: "a history needs a session")
        }
        let limit = min(100, max(1, limit))
        await loadStoredHistory(channel)
        let token = cache.mutate { ($0.historyFetchStarted(channel: channel), AccountCache.Changes()) }
        let page: MessagesPage
        do {
            page = try await api.messages(
                in: channel, query: .before(message, limit: limit, includeUsers: true), credentials)
            try Self.checkOlderPage(page.messages, channel: channel, before: message, limit: limit)
        } catch {
            cache.update { cache in
                cache.historyFetchFailed(channel: channel, fetch: token)
                return AccountCache.Changes()
            }
            if let refused = error as? StoatClientError { throw refused }
            throw StoatClientError(code: .requestFailed, message: "fetching older messages failed", cause: error)
        }
        let ascending = Array(page.messages.reversed())
        var gaps: [HistoryGap] = []
        cache.update { cache in
            for user in page.users { cache.upsert(user) }
            let changes = cache.olderPage(
                ascending, channel: channel, before: message, isFull: page.messages.count == limit, fetch: token)
            gaps = (cache.gaps[channel] ?? []).filter { $0.after < message }
            return changes
        }
        return ChannelHistory(channelID: channel, messages: ascending, isStale: false, gaps: gaps)
    }

    /// Refuses a page of older messages that is not what was asked: newest first, before `message`, of
    /// `channel`, at most `limit` long.
    static func checkOlderPage(
        _ page: [Message], channel: String, before message: String, limit: Int
    ) throws(StoatClientError) {
        var previous: String?
        for item in page {
            guard item.channel == channel, item.id < message, previous.map({ item.id < $0 }) ?? true else {
                throw StoatClientError(
                    code: .unexpectedPage,
                    message: "the server answered a page of older messages out of order, out of range or of another "
                        + "channel; it was refused")
            }
            previous = item.id
        }
        guard page.count <= limit else {
            throw StoatClientError(code: .unexpectedPage, message: "the server answered more messages than asked")
        }
    }

    // MARK: - Read state

    /// Acknowledges `message` in `channel`: the user has read the channel up to it. The chat's ``Chat/isUnread``
    /// and ``Chat/mentionCount`` follow at once, and the call returns without waiting for the server.
    ///
    /// The request (`PUT /channels/{id}/ack/{message}`) follows on the client's clock: per channel only the newest
    /// id asked for is sent, 1.5 s after the last ack and 4 s after the first at the latest, one request in flight
    /// and at least 1.5 s between two, never an id at or below one already sent or accepted — stoatchat writes the
    /// marker unconditionally, so an older id would mark the channel unread again on the user's other devices. An
    /// id the chat is already read past (here, on another device, or by the server's read states) sends nothing.
    /// The user's other devices receive `ChannelAck`, and so does this one (which changes nothing more). A refusal
    /// — a bot (``StoatAPIErrorCode/isBot``), a missing permission, or a server that failed after announcing the
    /// ack — takes the chat back to the read state it had, unless a newer ack is on its way; a request that fails
    /// without an answer is sent again later.
    ///
    /// - Parameters:
    ///   - channel: The channel's id.
    ///   - message: The newest message read; ``newestMessage(in:)`` is the newest the cache knows.
    /// - Throws: ``StoatClientError`` with ``StoatClientErrorCode/notSignedIn`` without a session (nothing is
    ///   marked).
    public func ack(channel: String, message: String) throws(StoatClientError) {
        guard currentCredentials != nil else {
            throw StoatClientError(code: .notSignedIn, message: "an acknowledgement needs a session")
        }
        ackEngine.acknowledge(channel: channel, message: message)
    }

    /// The newest message id the cache knows in `channel`: its history's, its chat's last message, or the
    /// channel's `last_message_id`.
    public func newestMessage(in channel: String) -> String? {
        cache.read { $0.newestMessage(in: channel) }
    }
}

extension AccountCache {
    /// A page of messages older than `before` arrived (``StoatClient/history(of:before:limit:)``): what fits in
    /// the bounded history joins it; what lies inside a recorded gap was never seen and is delivered as caught
    /// up; the gaps shrink by the range the page covers.
    mutating func olderPage(
        _ page: [Message], channel: String, before: String, isFull: Bool, fetch token: Int?
    ) -> Changes {
        let fetch = endFetch(token, channel: channel)
        var changes = Changes()
        guard chats[channel] != nil || channels[channel] != nil else { return changes }
        let copies = merged(page, channel: channel, fetch: fetch)
        let holes = gaps[channel] ?? []
        for message in page {
            guard let copy = copies[message.id] else { continue }
            let missed = holes.contains { $0.contains(copy.id) }
            insert(copy, origin: .caughtUp, deliver: missed, into: &changes)
        }
        let oldest = page.first?.id
        cover(
            channel, from: isFull ? oldest.flatMap { ULID.predecessor(of: $0) } : nil,
            through: ULID.predecessor(of: before) ?? before)
        trimGaps(channel)
        changes.histories.insert(channel)
        return changes
    }
}
