/// The current user's read state of a channel (`GET /sync/unreads`, `Ready`'s `channel_unreads`).
public struct ChannelUnread: Sendable, Hashable, Codable {
    /// The channel and the user (`_id`).
    public struct ID: Sendable, Hashable, Codable {
        /// The channel.
        public var channel: String
        /// The user.
        public var user: String

        /// Creates a key.
        public init(channel: String, user: String) {
            self.channel = channel
            self.user = user
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case channel, user
        }
    }

    /// The channel and the user (`_id`).
    public var id: ID
    /// The last message the user read, if any.
    public var lastID: String?
    /// The unread messages that mention the user; empty when omitted.
    public var mentions: [String]

    /// Creates a read state.
    public init(id: ID, lastID: String? = nil, mentions: [String] = []) {
        self.id = id
        self.lastID = lastID
        self.mentions = mentions
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id = "_id"
        case lastID = "last_id"
        case mentions
    }

    /// Decodes a read state; missing `mentions` are empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(ID.self, forKey: .id)
        lastID = try container.decodeIfPresent(String.self, forKey: .lastID)
        mentions = try container.decodeIfPresent([String].self, forKey: .mentions) ?? []
    }
}
