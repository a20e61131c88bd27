/// A contiguous stretch of a channel's history fetched from the server: a page around a message (a jump,
/// ``StoatClient/history(of:around:limit:)``), at the first unread message
/// (``StoatClient/historyAtFirstUnread(of:limit:)``), or after one (scrolling down from a jump,
/// ``StoatClient/history(of:after:limit:)``).
///
/// Every message of the channel with an id above ``from`` (exclusive) and up to ``through`` (inclusive) was in
/// the server's answer: ``ShownHistory/insert(_:)`` joins the page to what a screen shows with exactly that
/// knowledge, recording a ``HistoryGap`` on a side where the page does not reach what is shown, so no hole is
/// ever silent.
public struct HistoryPage: Sendable, Hashable {
    /// The channel.
    public var channelID: String
    /// The page's messages, oldest first.
    public var messages: [Message]
    /// The id below the stretch the page covers (exclusive); `nil` when it reaches the channel's first message.
    public var from: String?
    /// The newest id the page covers (inclusive); `nil` when it reaches the channel's newest message (as the
    /// server answered).
    public var through: String?
    /// The message the page was fetched for, when one is: the message jumped to, or the first unread one;
    /// `nil` for a page after a message, and for a jump to the first unread when nothing is unread (the page is
    /// then the newest messages).
    public var target: String?

    /// Creates a page.
    ///
    /// - Parameters:
    ///   - channelID: The channel.
    ///   - messages: The messages, oldest first.
    ///   - from: The id below the stretch covered (exclusive), `nil` from the channel's start.
    ///   - through: The newest id covered (inclusive), `nil` to the channel's newest message.
    ///   - target: The message the page was fetched for.
    public init(
        channelID: String, messages: [Message], from: String?, through: String?, target: String? = nil
    ) {
        self.channelID = channelID
        self.messages = messages
        self.from = from
        self.through = through
        self.target = target
    }

    /// Whether a message id lies in the stretch the page covers.
    public func covers(_ id: String) -> Bool {
        (from.map { id > $0 } ?? true) && (through.map { id <= $0 } ?? true)
    }
}
