/// A channel's history as a screen shows it while the channel is shown: the cache's newest messages, and the
/// older pages the app loaded by scrolling back — which the cache's bound (``StoatClient/Configuration/historyLimit``)
/// does not keep — with the gaps of both.
///
/// The store's limit bounds what is stored, not what is shown: a page loaded by scrolling stays shown while the
/// channel is, also when new messages push it out of the cache. Each value is a pure fold of what the client
/// reports — the cache's history (``update(_:)``), a page of older messages (``olderPage(_:before:limit:)``), the
/// message events (``apply(_:)``) — so it is tested without a network; ``ChannelModel`` keeps one.
///
/// - The cache's range (its oldest message and up) is the cache's: its messages and gaps replace the shown ones
///   there, so an edit, a deletion or a catch-up inside it shows as the cache has it.
/// - Below it, the shown history keeps its own pages and its own gaps: a gap the cache forgot once its bound
///   moved past it stays a visible hole until a page fills it, never a silent one.
/// - Edits and deletions of messages below the cache's range come from ``StoatClient/messages``; reactions to
///   them are not followed (the cache keeps no copy to apply them to).
/// - A jump (``insert(_:)`` with a ``HistoryPage`` around a message) joins as an *island* (``island``): a gap is
///   recorded on each side where the page does not reach what is shown, and the space above an island with
///   nothing shown above it yet stays open until newer messages show, when it becomes a gap. Every stretch
///   between two messages shown is therefore known whole or covered by a gap — for-web#1331's silent hole after a
///   jump to a pinned message cannot happen — and a message arriving live joins the newest messages, above the
///   island's gap.
public struct ShownHistory: Sendable, Hashable {
    /// The channel.
    public let channelID: String
    /// The messages shown, oldest first.
    public private(set) var messages: [Message]
    /// The holes among them, oldest first.
    public private(set) var gaps: [HistoryGap]
    /// Whether the cache's part may miss messages no gap records (``ChannelHistory/isStale``).
    public private(set) var isStale: Bool
    /// Whether the channel's first message is shown: a page older than everything shown came back short.
    public private(set) var reachedStart = false
    /// The message the last jump went to (``insert(_:)`` of a page with a ``HistoryPage/target``), if any.
    public private(set) var jumpTarget: String?
    /// The newest id below which a jump's page is known whole while nothing newer is shown: what lies above it
    /// is unknown, and becomes a gap as soon as newer messages show.
    private var openAbove: String?

    /// A shown history starting from the cache's.
    ///
    /// - Parameter history: The cache's history of the channel (``StoatClient/cachedHistory(of:)``).
    public init(_ history: ChannelHistory) {
        channelID = history.channelID
        messages = history.messages
        gaps = history.gaps
        isStale = history.isStale
    }

    /// Where the next page of older messages starts: before the newest gap, when there is one (scrolling back fills
    /// the holes first), else before the oldest message shown; `nil` when nothing is shown.
    public var nextPage: String? { gaps.last?.before ?? messages.first?.id }

    /// The cache's history changed (``StoatClient/historyUpdates(of:)``): it replaces what is shown from its oldest
    /// message up; older pages and their gaps stay.
    ///
    /// - Parameter history: The cache's new history of the channel.
    public mutating func update(_ history: ChannelHistory) {
        isStale = history.isStale
        guard let floor = history.messages.first?.id else {
            // An empty cache (discarded, or never loaded): what is shown stays, with the cache's gaps added.
            gaps = Self.merged(gaps, history.gaps)
            return
        }
        let older = messages.prefix { $0.id < floor }
        messages = Array(older) + history.messages
        // Below the cache's oldest message the cache forgets gaps (its trim); the shown history remembers them.
        // The cache's range is whole from its oldest message up (but for its own gaps): a shown gap reaching into
        // it ends there — the cache's range grew down into it by a page of older messages.
        var keptGaps = gaps.filter { $0.after < floor }.map { gap in
            HistoryGap(after: gap.after, before: min(gap.before, floor))
        }
        if let open = openAbove {
            // Newer messages show above a jump's page: what lies between is a gap, unless the cache's range
            // reaches down to the page.
            if open < floor {
                keptGaps.append(HistoryGap(after: open, before: floor))
                openAbove = nil
            } else if !history.isStale {
                openAbove = nil
            }
        }
        gaps = Self.merged(keptGaps.filter { ULID.successor(of: $0.after) != $0.before }, history.gaps)
    }

    /// A page of the channel's history fetched from the server — around a message jumped to, at the first
    /// unread, or after a message while scrolling down (``StoatClient/history(of:around:limit:)``,
    /// ``StoatClient/history(of:after:limit:)``) — joins what is shown: its messages are added, the gaps shrink by
    /// the stretch it covers, and where it does not reach what is shown a gap is recorded (below it, when
    /// messages older than it are shown; above it, when newer ones are); above a page with nothing newer shown,
    /// the space stays open until newer messages show (``update(_:)``). A page with a
    /// ``HistoryPage/target`` becomes the ``island``'s target.
    ///
    /// - Parameter page: The page.
    public mutating func insert(_ page: HistoryPage) {
        guard page.channelID == channelID else { return }
        var added: [HistoryGap] = []
        // Below: everything shown is older than the page, and the page does not reach down to it.
        if let from = page.from, let below = messages.last, below.id <= from {
            added.append(HistoryGap(after: below.id, before: ULID.successor(of: from) ?? from))
        }
        // Above: everything shown is newer than the page, and the page does not reach up to it.
        let firstAbove = messages.first { message in page.through.map { message.id > $0 } ?? false }
        if let through = page.through, let above = messages.first, above.id > through {
            added.append(HistoryGap(after: through, before: above.id))
        }
        if let open = openAbove, let from = page.from, from > open {
            // A page above an open island, nothing shown between: the space between them is not known.
            added.append(HistoryGap(after: open, before: ULID.successor(of: from) ?? from))
        }
        if let through = page.through {
            if firstAbove == nil { openAbove = max(openAbove ?? through, through) }
        } else {
            openAbove = nil
        }
        let known = Set(messages.map(\.id))
        let new = page.messages.filter { $0.channel == channelID && page.covers($0.id) && !known.contains($0.id) }
        if !new.isEmpty { messages = (messages + new).sorted { $0.id < $1.id } }
        let remaining = HistoryGap.remaining(of: gaps, coveredFrom: page.from, through: page.through)
        gaps = Self.merged(
            remaining, added.filter { $0.after < $0.before && ULID.successor(of: $0.after) != $0.before })
        if page.from == nil { reachedStart = true }
        if let target = page.target { jumpTarget = target }
    }

    /// The stretch shown around the message jumped to, while a gap (or the unknown above a page with nothing newer
    /// shown) parts it from the newest messages; `nil` when no jump was made or once the island joined the rest.
    public var island: HistoryIsland? {
        guard let target = jumpTarget else { return nil }
        let above = gaps.first { $0.after >= target }
        guard above != nil || openAbove != nil else { return nil }
        let below = gaps.last { $0.before <= target && $0.after < target }
        let lower = below?.before ?? ""
        let upper = above?.after ?? openAbove ?? target
        let inside = messages.filter { $0.id >= lower && $0.id <= upper }
        guard let first = inside.first?.id, let last = inside.last?.id else { return nil }
        return HistoryIsland(target: target, first: first, last: last, gapBelow: below, gapAbove: above)
    }

    /// Where the next page of newer messages starts, scrolling down from the ``island``: after the gap above it
    /// begins, or after its newest message while nothing newer is shown; `nil` without an island.
    public var nextNewerPage: String? {
        guard let island else { return nil }
        return island.gapAbove?.after ?? island.last
    }

    /// A page of older messages arrived (``StoatClient/history(of:before:limit:)``): its messages join the
    /// shown history, the gaps shrink by the range it covers, and a short page before the oldest message shown
    /// means the channel's start is shown.
    ///
    /// - Parameters:
    ///   - page: The page's messages, oldest first.
    ///   - before: The id the page was asked before.
    ///   - limit: How many messages were asked: a page this long may have more before it.
    public mutating func olderPage(_ page: [Message], before: String, limit: Int) {
        let isFull = page.count >= limit
        let pagedFromOldest = messages.first.map { before <= $0.id } ?? true
        let known = Set(messages.map(\.id))
        let added = page.filter { $0.channel == channelID && $0.id < before && !known.contains($0.id) }
        if !added.isEmpty { messages = (messages + added).sorted { $0.id < $1.id } }
        let from = isFull ? page.first.flatMap { ULID.predecessor(of: $0.id) } : nil
        gaps = HistoryGap.remaining(of: gaps, coveredFrom: from, through: ULID.predecessor(of: before) ?? before)
        if !isFull, pagedFromOldest, !gaps.contains(where: { $0.before <= before }) { reachedStart = true }
    }

    /// A message event (``StoatClient/messages``): a message below the cache's range that was edited is updated,
    /// one deleted leaves. Events of other channels change nothing.
    ///
    /// - Parameter event: The event.
    public mutating func apply(_ event: MessageEvent) {
        switch event {
        case .updated(let change) where change.channel == channelID:
            guard let index = messages.firstIndex(where: { $0.id == change.id }) else { return }
            if let message = change.message {
                messages[index] = message
            } else {
                messages[index].apply(change.data)
            }
        case .deleted(let id, let channel, _) where channel == channelID:
            messages.removeAll { $0.id == id }
        default:
            return
        }
    }

    /// Two gap lists as one, overlapping gaps joined.
    private static func merged(_ first: [HistoryGap], _ second: [HistoryGap]) -> [HistoryGap] {
        var result: [HistoryGap] = []
        for gap in (first + second).sorted(by: { $0.after < $1.after }) {
            if let last = result.last, gap.after < last.before {
                result[result.count - 1].before = max(last.before, gap.before)
            } else if result.last != gap {
                result.append(gap)
            }
        }
        return result
    }
}
