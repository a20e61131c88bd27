/// The stretch of a channel's shown history around a message jumped to, while a gap still parts it from the
/// newest messages (``ShownHistory/island``): a screen draws it with a "history not loaded here" row on each side
/// that has a gap, and scrolling fills them (``ChannelModel/loadNewer()``, ``ChannelModel/loadOlder()``) until
/// the island joins the rest.
public struct HistoryIsland: Sendable, Hashable {
    /// The message jumped to (it may be gone: a deleted message, or any id, is a place in the channel).
    public var target: String
    /// The island's oldest message's id.
    public var first: String
    /// The island's newest message's id.
    public var last: String
    /// The hole below the island, if one is recorded; none when the island starts at the channel's start or at
    /// the oldest message shown (older history is paged with ``ChannelModel/loadOlder()``).
    public var gapBelow: HistoryGap?
    /// The hole above the island, between it and the newer messages shown; `nil` while nothing newer than the
    /// island is shown yet (scrolling down, ``ChannelModel/loadNewer()``, pages after ``last``).
    public var gapAbove: HistoryGap?

    /// Creates an island.
    ///
    /// - Parameters:
    ///   - target: The message jumped to.
    ///   - first: The oldest message's id.
    ///   - last: The newest message's id.
    ///   - gapBelow: The hole below, if any.
    ///   - gapAbove: The hole above, if any.
    public init(target: String, first: String, last: String, gapBelow: HistoryGap?, gapAbove: HistoryGap?) {
        self.target = target
        self.first = first
        self.last = last
        self.gapBelow = gapBelow
        self.gapAbove = gapAbove
    }
}
