/// A slowmode holding the current user back in a channel (`UserSlowmodes`' entries).
public struct ChannelSlowmode: Sendable, Hashable, Codable {
    /// The channel.
    public var channelID: String
    /// The channel's slowmode, in seconds.
    public var duration: Int
    /// How long until the user may send again, in seconds.
    public var retryAfter: Int

    /// Creates a slowmode.
    public init(channelID: String, duration: Int, retryAfter: Int) {
        self.channelID = channelID
        self.duration = duration
        self.retryAfter = retryAfter
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case channelID = "channel_id"
        case duration
        case retryAfter = "retry_after"
    }
}
