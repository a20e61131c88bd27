/// A message's flags (`flags`), as stoatchat reads them: each of its `MessageFlags` is a bit *position*
/// (`MessageFlagsValue::has` tests `1 << flag`), so the values on the wire are 2, 4 and 8, not 1, 2 and 4
/// (`crates/core/models/src/v0/messages.rs`, `crates/core/database/src/models/messages/model.rs`).
///
/// On a send (``OutgoingMessage/flags``) stoatchat refuses any value above 7 (`InvalidProperty`), so
/// ``mentionsOnline`` can never be sent; ``mentionsEveryone`` is for bots only (`IsNotBot` otherwise) and needs
/// `MentionEveryone` in the channel. A person mentions everyone (or everyone online) by writing `@everyone` (or
/// `@online`) in the text, which the server turns into the same bit on the stored message. The bit value 1 names
/// no flag: the server accepts it and drops it.
///
/// ```swift
/// let silent = OutgoingMessage(content: "deploy done", flags: .suppressNotifications)
/// if message.flags.contains(.mentionsEveryone) { highlight(message) }
/// ```
public struct MessageFlags: OptionSet, Sendable, Hashable, Codable {
    /// The bits, as the server writes them.
    public var rawValue: Int

    /// Creates a set from the server's bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `SuppressNotifications` (bit 1, the value 2): no push or desktop notification, and no mention for the
    /// read state.
    public static let suppressNotifications = MessageFlags(rawValue: 1 << 1)
    /// `MentionsEveryone` (bit 2, the value 4): mentions everyone who can see the channel.
    public static let mentionsEveryone = MessageFlags(rawValue: 1 << 2)
    /// `MentionsOnline` (bit 3, the value 8): mentions everyone online who can see the channel. Only the server
    /// sets it (from `@online` in the text): a send with it is refused (`InvalidProperty`, any value above 7).
    public static let mentionsOnline = MessageFlags(rawValue: 1 << 3)

    /// Reads the bits as a plain integer, as stoatchat writes them.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int.self)
    }

    /// Writes the bits as a plain integer.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
