/// A channel's latest messages as the client holds them, oldest first, with the holes it knows of.
///
/// The history is bounded (``StoatClient/Configuration/historyLimit``, 100 by default): the newest
/// messages are kept. It is *stale* when it may miss messages that no gap records — loaded from the store,
/// never fetched, or invalidated when the session reconnected, until its catch-up ran — and fresh once caught
/// up with the server; live messages keep a fresh history fresh. Fresh speaks of the connection it was caught up
/// on: a socket that dropped (DISCONNECTED or OFFLINE until RECONNECTING) or went deaf (until the delivery
/// deadline notices) misses what is posted meanwhile, and the history turns stale only when RECONNECTING begins.
///
/// A *gap* (``gaps``) is a hole inside the history the cache keeps: after a reconnect, a catch-up that met its
/// page budget (``CatchUpPolicy/pagesPerChat``) fetches the newest page and records what lies between instead
/// of pretending the history whole. Older history, below the oldest message kept, is not a gap. A gap is
/// filled when the app pages into it (``StoatClient/history(of:before:limit:)``), and forgotten once the
/// history's bound moves past it.
public struct ChannelHistory: Sendable, Hashable {
    /// The channel.
    public var channelID: String
    /// The latest messages, oldest first.
    public var messages: [Message]
    /// Whether the history may miss messages that no gap records, and is refetched when next asked for.
    public var isStale: Bool
    /// The holes in the history, oldest first.
    public var gaps: [HistoryGap]

    /// Creates a history.
    public init(channelID: String, messages: [Message] = [], isStale: Bool = true, gaps: [HistoryGap] = []) {
        self.channelID = channelID
        self.messages = messages
        self.isStale = isStale
        self.gaps = gaps
    }
}

/// A range of a channel's history the cache does not hold: messages newer than ``after`` and older than
/// ``before`` (both exclusive) may exist on the server and reached neither the cache nor the app's message
/// stream.
public struct HistoryGap: Sendable, Hashable, Codable {
    /// The newest message id known below the hole.
    public var after: String
    /// The oldest message id known above the hole.
    public var before: String

    /// Creates a gap.
    public init(after: String, before: String) {
        self.after = after
        self.before = before
    }

    /// Whether a message id falls inside the hole.
    public func contains(_ id: String) -> Bool { after < id && id < before }

    /// What remains of `gaps` once a page covered the ids above `from` (exclusive; nil from the start) up to
    /// `through` (inclusive; nil to the present): each gap shrinks by it, those it covers whole are gone, and so
    /// are those left with no id between their ends.
    static func remaining(of gaps: [HistoryGap], coveredFrom from: String?, through: String?) -> [HistoryGap] {
        var remaining: [HistoryGap] = []
        for gap in gaps {
            // What stays below the page: ids in (gap.after, from].
            if let from, from > gap.after {
                let upper = min(gap.before, ULID.successor(of: from) ?? gap.before)
                if gap.after < upper { remaining.append(HistoryGap(after: gap.after, before: upper)) }
            }
            // What stays above it: ids in (through, gap.before).
            if let through, through < gap.before {
                let lower = max(gap.after, through)
                if lower < gap.before, ULID.successor(of: lower) != gap.before {
                    remaining.append(HistoryGap(after: lower, before: gap.before))
                }
            }
        }
        return remaining.filter { $0.after < $0.before && ULID.successor(of: $0.after) != $0.before }
            .sorted { $0.after < $1.after }
    }
}
