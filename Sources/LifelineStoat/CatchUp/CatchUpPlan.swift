#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The decisions of one CONNECTED's catch-up, as a value: which chats need fetching and in which order, the
/// request each needs next, and what each page means — the messages it adds, the cached messages it proves
/// deleted or re-verifies, the gap it leaves, where the chat's catch-up resumes if it is interrupted.
///
/// Pure: no I/O, no clock. ``StoatClient``'s catch-up runner asks it for requests, performs them (a bounded
/// number in flight, each waiting for its rate-limit bucket), and feeds the pages back; the account cache
/// applies each ``Outcome``. Stoat has no resume and no sequence numbers, so this is the only way back: a
/// chat's `last_message_id` against the newest message the cache holds, and `after=` pages, oldest first.
///
/// Per chat, from what the cache knew when `Ready` came (its ``Cursor``):
/// - **Newer messages** (`last_message_id` beyond the cursor): pages forward from a little below the cursor,
///   so the first page also re-verifies the chat's newest cached messages (``CatchUpPolicy/verifiedMessages``;
///   an open channel's whole history); at most ``CatchUpPolicy/pagesPerChat`` pages, then the newest page and
///   a ``HistoryGap`` between. An open channel and the first screen's chats ask for their newest page first,
///   so their last message is right after one request; when it does not reach down to the cursor, forward
///   pages fill in below it (the same number of requests), and its messages are added after theirs, so that
///   the stream still receives them oldest first.
/// - **Nothing newer**: an open channel and the first screen's chats are still re-verified (one page); the
///   others are known whole without a request.
/// - **No cached message**: a chat known to have had none pages forward from its creation; a chat the cache
///   never held gets its newest page. An open channel does so even when `Ready` names no last message (it may
///   lag); another chat with none is known whole without a request.
///
/// Order: open channels, then the first screen's chats by recency, then the rest by recency.
struct CatchUpPlan: Sendable {
    /// What the cache knew of a chat's history when the session connected.
    enum Cursor: Sendable, Hashable {
        /// The history is known whole up to this message.
        case message(String)
        /// The chat was known to have no messages: everything after its creation (the channel id, a ULID) is
        /// new.
        case start(String)
        /// The cache never held the chat's messages.
        case unknown
    }

    /// One chat as the plan starts.
    struct Chat: Sendable, Hashable {
        var id: String
        /// The server's last message (`Ready`'s or `ChannelUpdate`'s `last_message_id`).
        var serverLast: String?
        var cursor: Cursor
        var isOpen: Bool
        var lastActivity: Date
    }

    /// A request for a page of a chat's messages.
    enum Request: Sendable, Hashable {
        /// `after=ID&sort=Oldest&limit=N`.
        case after(String, limit: Int)
        /// `sort=Latest&limit=N`.
        case latest(limit: Int)
    }

    /// What a page means for the cache.
    struct Outcome: Sendable, Hashable {
        /// The chat.
        var chat: String
        /// The page's messages that are not re-verified cached ones, oldest first: the cache adds them and
        /// delivers those it had not seen.
        var added: [Message] = []
        /// The page's copies of cached messages it re-verifies: the cache takes them, and reports an edit.
        var verified: [Message] = []
        /// Cached messages the page proves deleted.
        var deleted: [String] = []
        /// What the page covers, for the cache's gaps: ids above `from` (exclusive; nil from the start) up to
        /// `through` (inclusive; nil to the present).
        var from: String?
        var through: String?
        /// A hole the page leaves (the page budget was met).
        var gap: HistoryGap?
        /// Where the chat's catch-up resumes if it is interrupted now; nil once it is done.
        var cursor: String?
        /// The next request; nil when the chat is done.
        var next: Request?
        /// Whether the chat's cursor was unknown: its messages were not necessarily posted while the client was
        /// away, so the cache delivers only those newer than its baseline.
        var fromUnknownCursor = false
        /// The chat's newest message, known before the pages below it: shown as its last message at once.
        var preview: Message?

        var isDone: Bool { next == nil }
    }

    private enum Phase: Sendable, Hashable {
        /// Not started: the runner gives the cached ids first.
        case waiting
        /// The newest page was asked first (an open or first-screen chat); `after` is where forward pages would
        /// start.
        case newestFirst(after: String)
        /// Paging forward: the last request asked `after` this id; `pages` pages so far. With `until`, the newest
        /// page (kept in ``Job/newest``) starts there, and paging ends on reaching it.
        case forward(after: String, pages: Int, until: String?)
        /// The page budget was met: the newest page was asked for; the gap lies above `cursor`.
        case newest(cursor: String)
        /// The cursor was unknown: the newest page was asked for.
        case latestOnly
        case done
    }

    private struct Job: Sendable, Hashable {
        var chat: Chat
        var phase: Phase = .waiting
        /// Where the history is known whole now.
        var cursor: String?
        /// The cached ids (at most the cursor) the pages re-verify, ascending.
        var verifiable: [String] = []
        /// The newest page, ascending, held until the forward pages reach it.
        var newest: [Message] = []
        /// Whether the chat is an open channel or on the first screen: its newest page comes first.
        var isUrgent = false
    }

    /// The chats to fetch, in the order to start them.
    let order: [String]
    /// The chats known whole without a request (nothing newer, not open, not on the first screen).
    let wholeWithoutFetch: [String]
    let policy: CatchUpPolicy
    private var jobs: [String: Job]

    /// Plans a catch-up.
    ///
    /// - Parameters:
    ///   - chats: Every chat the cache holds, with what it knew when `Ready` came.
    ///   - policy: The budget and the first screen's size.
    init(chats: [Chat], policy: CatchUpPolicy) {
        self.policy = policy
        let byRecency = chats.sorted {
            $0.lastActivity != $1.lastActivity ? $0.lastActivity > $1.lastActivity : $0.id > $1.id
        }
        let firstScreen = Set(byRecency.prefix(policy.firstScreen).map(\.id))
        var open: [String] = []
        var first: [String] = []
        var rest: [String] = []
        var whole: [String] = []
        var jobs: [String: Job] = [:]
        for chat in byRecency {
            guard Self.needsFetch(chat, reVerify: chat.isOpen || firstScreen.contains(chat.id)) else {
                whole.append(chat.id)
                continue
            }
            jobs[chat.id] = Job(chat: chat, isUrgent: chat.isOpen || firstScreen.contains(chat.id))
            if chat.isOpen {
                open.append(chat.id)
            } else if firstScreen.contains(chat.id) {
                first.append(chat.id)
            } else {
                rest.append(chat.id)
            }
        }
        order = open + first + rest
        wholeWithoutFetch = whole
        self.jobs = jobs
    }

    /// Whether a chat needs a request: something newer than the cursor, or a re-verification.
    private static func needsFetch(_ chat: Chat, reVerify: Bool) -> Bool {
        switch chat.cursor {
        case .unknown, .start:
            // An open channel is fetched even when Ready says it is empty: its `last_message_id` may lag, and
            // nothing else would make the history the user is looking at fresh before the next reconnect.
            return chat.serverLast != nil || chat.isOpen
        case .message(let newest):
            if let last = chat.serverLast, last > newest { return true }
            // Nothing newer (or the server's last is older: deleted, or its debounced `last_message_id` lags).
            return reVerify
        }
    }

    /// Where `chat`'s catch-up would resume now (nil: nothing to resume, or not planned).
    func cursor(of chat: String) -> String? {
        jobs[chat]?.cursor
    }

    /// Starts a chat: its first request, given the ids of its cached messages (ascending; the runner reads
    /// the stored history first). Nil for a chat not in ``order``.
    mutating func start(_ chat: String, cachedIDs: [String]) -> Request? {
        guard var job = jobs[chat], job.phase == .waiting else { return nil }
        let limit = policy.pageSize
        switch job.chat.cursor {
        case .unknown:
            job.phase = .latestOnly
            jobs[chat] = job
            return .latest(limit: limit)
        case .start(let channel):
            // Every message is newer than the channel's creation: from below its millisecond (from the very
            // start for an id that is not a ULID).
            let after = ULID.floor(of: channel) ?? Self.smallestULID
            job.cursor = after
            job.phase = .forward(after: after, pages: 0, until: nil)
            jobs[chat] = job
            return .after(after, limit: limit)
        case .message(let newest):
            let known = cachedIDs.filter { $0 <= newest }
            let depth = job.chat.isOpen ? known.count : min(policy.verifiedMessages, known.count)
            let verified = Array(known.suffix(depth))
            // From just below the oldest message to re-verify, so the page holds it (or proves it gone).
            let after = verified.first.flatMap { ULID.predecessor(of: $0) } ?? newest
            job.cursor = newest
            job.verifiable = verified
            if job.isUrgent, let last = job.chat.serverLast, last > newest {
                job.phase = .newestFirst(after: after)
                jobs[chat] = job
                return .latest(limit: limit)
            }
            job.phase = .forward(after: after, pages: 0, until: nil)
            jobs[chat] = job
            return .after(after, limit: limit)
        }
    }

    /// A page arrived for `chat`, in the order the server sent it.
    ///
    /// - Throws: ``StoatClientErrorCode/unexpectedPage`` for a page that is not what was asked — out of order,
    ///   outside the range, of another channel, longer than the limit; the plan and the cache stay as they
    ///   were, and the chat is given up for this connection.
    mutating func received(_ page: [Message], for chat: String) throws(StoatClientError) -> Outcome {
        guard var job = jobs[chat] else {
            throw StoatClientError(code: .unexpectedPage, message: "a page for a chat the catch-up did not ask")
        }
        let limit = policy.pageSize
        guard page.count <= limit else { throw Self.refused("more than the \(limit) messages asked for") }
        guard page.allSatisfy({ $0.channel == chat }) else { throw Self.refused("a message of another channel") }
        var outcome = Outcome(chat: chat)
        switch job.phase {
        case .waiting, .done:
            throw StoatClientError(code: .unexpectedPage, message: "a page the catch-up did not ask for")

        case .newestFirst(let after):
            guard Self.isAscending(page.reversed()) else { throw Self.refused("a newest page out of order") }
            let ascending = Array(page.reversed())
            guard let oldest = ascending.first?.id, page.count == limit, oldest > after else {
                // It reaches down to where forward pages would start: it is the whole catch-up.
                let covered = ascending.filter { $0.id > after }
                forward(covered, from: after, through: nil, reachesEnd: true, job: &job, into: &outcome)
                break
            }
            // More below it: forward pages fill in up to it; it is added after them, in order.
            job.newest = ascending
            job.phase = .forward(after: after, pages: 1, until: oldest)
            outcome.preview = ascending.last
            outcome.cursor = job.cursor
            outcome.next = .after(after, limit: limit)

        case .forward(let after, let pages, let until):
            guard Self.isAscending(page), page.first.map({ $0.id > after }) ?? true else {
                throw Self.refused("a forward page out of order or before its start")
            }
            let isFull = page.count == limit
            let reachesNewest = until.map { newest in !isFull || (page.last.map { $0.id >= newest } ?? true) } ?? false
            if reachesNewest, let until {
                // With the newest page, everything from `after` to now is here.
                let below = page.filter { $0.id < until }
                forward(below + job.newest, from: after, through: nil, reachesEnd: true, job: &job, into: &outcome)
                job.newest = []
                break
            }
            let through = isFull ? page.last?.id : nil
            forward(page, from: after, through: through, reachesEnd: !isFull, job: &job, into: &outcome)
            guard isFull else { break }
            // Known whole: up to the cursor (what the cache held), and now up to the page's end.
            let reached = page.last?.id ?? after
            let cursor = max(job.cursor ?? after, reached)
            job.cursor = cursor
            if pages + 1 < policy.pagesPerChat {
                // On from the page's end, which may still be below the cursor while re-verifying.
                job.phase = .forward(after: reached, pages: pages + 1, until: until)
                outcome.next = .after(reached, limit: limit)
            } else if let until {
                // The budget is spent below the newest page, which is here already: the hole between is a gap.
                outcome.added += job.newest
                outcome.gap = Self.gap(after: cursor, before: until)
                job.newest = []
                job.phase = .done
                job.cursor = nil
            } else {
                job.phase = .newest(cursor: cursor)
                outcome.next = .latest(limit: limit)
            }
            outcome.cursor = job.cursor

        case .newest(let cursor):
            guard Self.isAscending(page.reversed()) else { throw Self.refused("a newest page out of order") }
            let oldest = page.last?.id
            outcome.added = page.filter { $0.id > cursor }.reversed()
            if page.count == limit, let oldest {
                outcome.from = ULID.predecessor(of: oldest)
                outcome.gap = Self.gap(after: cursor, before: oldest)
            }
            job.phase = .done
            job.cursor = nil

        case .latestOnly:
            guard Self.isAscending(page.reversed()) else { throw Self.refused("a newest page out of order") }
            outcome.added = page.reversed()
            outcome.fromUnknownCursor = true
            if page.count == limit, let oldest = page.last?.id { outcome.from = ULID.predecessor(of: oldest) }
            job.phase = .done
            job.cursor = nil
        }
        jobs[chat] = job
        return outcome
    }

    /// What a stretch of pages covering the ids above `from` (up to `through`, or to the present) means: the
    /// cached ids to re-verify in it that it lacks are deleted, those it holds re-verified, the rest added; at
    /// the end (`reachesEnd`) the chat is done.
    private func forward(
        _ messages: [Message], from: String, through: String?, reachesEnd: Bool, job: inout Job,
        into outcome: inout Outcome
    ) {
        let verifiable = job.verifiable.filter { id in id > from && through.map { id <= $0 } ?? true }
        let ids = Set(messages.map(\.id))
        let checked = Set(verifiable)
        outcome.deleted = verifiable.filter { !ids.contains($0) }
        outcome.verified = messages.filter { checked.contains($0.id) }
        outcome.added += messages.filter { !checked.contains($0.id) }
        outcome.from = from
        outcome.through = through
        job.verifiable.removeAll { $0 <= (through ?? $0) }
        if reachesEnd {
            job.phase = .done
            job.cursor = nil
        }
        outcome.cursor = job.cursor
    }

    /// The hole between what was paged and the newest page; none when they touch.
    private static func gap(after cursor: String, before oldest: String) -> HistoryGap? {
        guard oldest > cursor, ULID.predecessor(of: oldest) != cursor else { return nil }
        return HistoryGap(after: cursor, before: oldest)
    }

    /// Gives a chat up for this connection (deleted, unreadable, or its page refused); its stored cursor stays
    /// for the next CONNECTED.
    mutating func abandon(_ chat: String) {
        jobs[chat]?.phase = .done
    }

    /// The smallest ULID: `after` it is every message.
    static let smallestULID = String(repeating: "0", count: 26)

    private static func isAscending(_ page: some Sequence<Message>) -> Bool {
        var previous: String?
        for message in page {
            if let previous, message.id <= previous { return false }
            previous = message.id
        }
        return true
    }

    private static func refused(_ reason: String) -> StoatClientError {
        StoatClientError(code: .unexpectedPage, message: "the server answered \(reason); the page was refused")
    }
}
