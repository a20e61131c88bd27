/// The shape of a generated dataset (see ``ReferenceServer/seedDataset(_:for:)``).
public struct DatasetShape: Sendable, Equatable {
    /// Servers the user is a member of.
    public var servers: Int
    /// Text channels per server.
    public var channelsPerServer: Int
    /// Members per server besides the user (each a distinct user). Stoat's Ready does not list them.
    public var membersPerServer: Int
    /// Custom emojis per server.
    public var emojisPerServer: Int
    /// Of each server's members, how many are the user's friends with an open direct message: these are the
    /// users Stoat's Ready lists, with their direct messages among its channels.
    public var friendsPerServer: Int

    /// Creates a shape.
    public init(
        servers: Int, channelsPerServer: Int, membersPerServer: Int, emojisPerServer: Int, friendsPerServer: Int = 0
    ) {
        self.servers = servers
        self.channelsPerServer = channelsPerServer
        self.membersPerServer = membersPerServer
        self.emojisPerServer = emojisPerServer
        self.friendsPerServer = min(friendsPerServer, membersPerServer)
    }

    /// A shape whose Ready for the user is about `bytes` long (within a few percent): servers of 20 channels,
    /// 200 members of whom 40 are friends with a direct message, and 10 emojis, as many servers as the size
    /// needs (at least one).
    public static func approximateReadyBytes(_ bytes: Int) -> DatasetShape {
        // Measured: one such server adds about 21 kB to Ready (a friend ≈ 145 B as a user, 120 B as a direct
        // message and 45 B as a relation; a channel ≈ 115 B; an emoji ≈ 125 B).
        let perServer = 21_000
        return DatasetShape(
            servers: max(1, bytes / perServer), channelsPerServer: 20, membersPerServer: 200, emojisPerServer: 10,
            friendsPerServer: 40)
    }
}
