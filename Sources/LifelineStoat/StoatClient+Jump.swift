extension StoatClient {
    // MARK: - Jumping

    /// The page around `message` in `channel` (`GET /channels/{id}/messages?nearby=`): a jump to a reply, a pinned
    /// message or a link, to show as an island (``ShownHistory/insert(_:)``, ``ChannelModel/jump(to:)``).
    ///
    /// stoatchat answers up to `limit / 2 + 1` messages from `message` on (it included) and as many before it;
    /// a side that comes back short reaches the channel's start or its newest message, which the page's
    /// ``HistoryPage/from`` and ``HistoryPage/through`` say. Messages in the cache's range (its oldest message and
    /// up) join the cache — those inside a recorded gap reach ``messages`` as caught up — and the cache's gaps
    /// shrink by what the page covers; older ones are the caller's to show.
    ///
    /// - Parameters:
    ///   - channel: The channel's id.
    ///   - message: The message's id (any id is a place in the channel: a deleted message's too).
    ///   - limit: 1–100; 50 by default.
    /// - Returns: The page, its ``HistoryPage/target`` being `message`.
    /// - Throws: ``StoatClientError``: ``StoatClientErrorCode/notSignedIn``,
    ///   ``StoatClientErrorCode/requestFailed`` with the ``StoatAPIError``, or
    ///   ``StoatClientErrorCode/unexpectedPage`` for an answer that is not such a page (the cache is left as it
    ///   was).
    public func history(
        of channel: String, around message: String, limit: Int = 50
    ) async throws(StoatClientError) -> HistoryPage {
        let limit = min(100, max(1, limit))
        let side = limit / 2 + 1
        return try await fetchPage(of: channel, query: .around(message, limit: limit, includeUsers: true)) {
            (ascending) throws(StoatClientError) in
            let newer = ascending.count(where: { $0.id >= message })
            guard newer <= side, ascending.count - newer <= side else {
                throw StoatClientError(
                    code: .unexpectedPage, message: "the server answered more messages around one than asked")
            }
            let from = ascending.count - newer == side ? ascending.first.flatMap { ULID.predecessor(of: $0.id) } : nil
            let through = newer == side ? ascending.last?.id : nil
            return HistoryPage(channelID: channel, messages: ascending, from: from, through: through, target: message)
        }
    }

    /// The page at the first unread message of `channel`, from the read state the client keeps (``lastRead(in:)``,
    /// from `Ready`, `GET /sync/unreads`, acknowledgements here and on other devices): the page around the last
    /// message read, its ``HistoryPage/target`` the first message after it. A channel never read is unread from its
    /// first message; one with nothing unread gives the page around its newest message, with no target.
    ///
    /// - Parameters:
    ///   - channel: The channel's id.
    ///   - limit: 2–100; 50 by default.
    /// - Returns: The page (see ``history(of:around:limit:)``).
    /// - Throws: ``StoatClientError`` as ``history(of:around:limit:)`` does.
    public func historyAtFirstUnread(of channel: String, limit: Int = 50) async throws(StoatClientError) -> HistoryPage
    {
        let limit = min(100, max(2, limit))
        let marker = lastRead(in: channel)
        if let marker, let newest = newestMessage(in: channel), newest <= marker {
            var page = try await history(of: channel, around: newest, limit: limit)
            page.target = nil
            return page
        }
        // Never read: the smallest id is a place before the channel's first message.
        let anchor = marker ?? Self.channelStart
        var page = try await history(of: channel, around: anchor, limit: limit)
        page.target = page.messages.first { $0.id > anchor }?.id
        return page
    }

    /// The messages after `message` in `channel`, oldest first (`GET /channels/{id}/messages?after=…&sort=Oldest`):
    /// scrolling down from a jump's island (``ChannelModel/loadNewer()``) until it joins the newest messages.
    /// Messages in the cache's range join it, as ``history(of:around:limit:)`` says.
    ///
    /// - Parameters:
    ///   - channel: The channel's id.
    ///   - message: The id to page after (the island's newest message, or the gap above it's
    ///     ``HistoryGap/after``).
    ///   - limit: 1–100; 50 by default. A shorter answer reaches the channel's newest message.
    /// - Returns: The page, covering from `message` (exclusive).
    /// - Throws: ``StoatClientError`` as ``history(of:around:limit:)`` does.
    public func history(
        of channel: String, after message: String, limit: Int = 50
    ) async throws(StoatClientError) -> HistoryPage {
        let limit = min(100, max(1, limit))
        return try await fetchPage(of: channel, query: .after(message, limit: limit, includeUsers: true)) {
            (ascending) throws(StoatClientError) in
            guard ascending.count <= limit, ascending.allSatisfy({ $0.id > message }) else {
                throw StoatClientError(
                    code: .unexpectedPage, message: "the server answered a page of newer messages out of range")
            }
            let through = ascending.count == limit ? ascending.last?.id : nil
            return HistoryPage(channelID: channel, messages: ascending, from: message, through: through)
        }
    }

    /// The smallest ULID: a place before any message.
    static let channelStart = "00000000000000000000000000"

    /// Fetches a page, checks it (`shape` throws for one that is not what was asked) and joins it to the cache.
    private func fetchPage(
        of channel: String, query: MessageQuery,
        shape: ([Message]) throws(StoatClientError) -> HistoryPage
    ) async throws(StoatClientError) -> HistoryPage {
        guard let credentials = currentCredentials else {
            throw StoatClientError(code: .notSignedIn, message: "a history needs a session")
        }
        await loadStoredHistory(channel)
        let token = cache.mutate { ($0.historyFetchStarted(channel: channel), AccountCache.Changes()) }
        let answer: MessagesPage
        let page: HistoryPage
        do {
            answer = try await api.messages(in: channel, query: query, credentials)
            let ascending = answer.messages.sorted { $0.id < $1.id }
            guard ascending.allSatisfy({ $0.channel == channel }), Set(ascending.map(\.id)).count == ascending.count
            else {
                throw StoatClientError(
                    code: .unexpectedPage, message: "the server answered a page of another channel, or repeated ids")
            }
            page = try shape(ascending)
        } catch {
            cache.update { cache in
                cache.historyFetchFailed(channel: channel, fetch: token)
                return AccountCache.Changes()
            }
            if let refused = error as? StoatClientError { throw refused }
            throw StoatClientError(code: .requestFailed, message: "fetching a page of messages failed", cause: error)
        }
        cache.update { cache in
            for user in answer.users { cache.upsert(user) }
            return cache.joinPage(page, fetch: token)
        }
        return page
    }
}

extension AccountCache {
    /// A page from anywhere in a channel's history arrived (``StoatClient/history(of:around:limit:)``,
    /// ``StoatClient/history(of:after:limit:)``): its messages in the history's range (its oldest message and up)
    /// join it — those inside a recorded gap were never seen and are delivered as caught up — and the gaps shrink
    /// by the stretch it covers. Older messages stay out: the cache's history has no hole below its newest
    /// messages that no gap records.
    mutating func joinPage(_ page: HistoryPage, fetch token: Int?) -> Changes {
        let channel = page.channelID
        let fetch = endFetch(token, channel: channel)
        var changes = Changes()
        guard chats[channel] != nil || channels[channel] != nil,
            let floor = histories[channel]?.messages.first?.id
        else { return changes }
        let copies = merged(page.messages, channel: channel, fetch: fetch)
        let holes = gaps[channel] ?? []
        for message in page.messages where message.id >= floor {
            guard let copy = copies[message.id] else { continue }
            insert(copy, origin: .caughtUp, deliver: holes.contains { $0.contains(copy.id) }, into: &changes)
        }
        cover(channel, from: page.from, through: page.through)
        trimGaps(channel)
        changes.histories.insert(channel)
        return changes
    }
}
