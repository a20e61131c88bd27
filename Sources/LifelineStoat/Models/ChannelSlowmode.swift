import LifelineCore

/// A slowmode holding the current user back in a channel (`UserSlowmodes`' entries).
///
/// Stoat states both counts as unsigned 64-bit seconds with no upper bound (stoatchat sends `UserSlowmodes`
/// after every `Ready`), so any JSON number is read and clamped to `0 … ServerHorizon.longestWait` (366 days,
/// 31 622 400 seconds): a fraction rounds up, a negative is zero. A longer slowmode is confirmed with the
/// server at that horizon rather than ended.
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

    /// Decodes an entry, clamping its counts to the horizon.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        channelID = try container.decode(String.self, forKey: .channelID)
        duration = try container.decodeSeconds(forKey: .duration)
        retryAfter = try container.decodeSeconds(forKey: .retryAfter)
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case channelID = "channel_id"
        case duration
        case retryAfter = "retry_after"
    }
}

extension KeyedDecodingContainer {
    /// A count of seconds as Stoat states one (`u64`, unbounded): any JSON number, clamped to
    /// `0 … ServerHorizon.longestWait` in whole seconds (fractions round up).
    ///
    /// - Throws: `DecodingError` when the key is missing or its value is not a number.
    func decodeSeconds(forKey key: Key) throws -> Int {
        if let exact = try? decode(Int64.self, forKey: key) { return ServerHorizon.seconds(exact) }
        // Beyond `Int64` (a `u64`), an exponent, or a fraction.
        return ServerHorizon.seconds(try decode(Double.self, forKey: key))
    }
}
