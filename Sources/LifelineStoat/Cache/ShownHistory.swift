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
        let keptGaps = gaps.filter { $0.before < floor }
        gaps = Self.merged(keptGaps, history.gaps)
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
