/// Users made in one step for a load test (``ReferenceServer/addLoadPopulation(users:groups:)``): each with a
/// session token of their own, spread over groups that each have a server, a text channel and a poster.
public struct LoadPopulation: Sendable, Equatable {
    /// One group: a server with one text channel, owned by a poster who may send in it.
    public struct Group: Sendable, Equatable {
        /// The group's server.
        public var serverID: String
        /// The server's text channel.
        public var channelID: String
        /// The user who owns the server and posts in the channel (no session: post as them through
        /// ``ReferenceServer/postMessage(as:in:content:nonce:)`` or the admin `messages` route).
        public var posterID: String
        /// The server's other text channels, when the population asked for more than one per group.
        public var otherChannelIDs: [String] = []
    }

    /// One user of the population.
    public struct User: Sendable, Equatable {
        /// The user's id.
        public var userID: String
        /// A live session token of the user's own.
        public var token: String
        /// The index of the group the user is a member of, or nil when the population has no groups.
        public var group: Int?
    }

    /// The groups, in order.
    public var groups: [Group]
    /// The users, in order: user `i` is in group `i % groups.count`.
    public var users: [User]
}
