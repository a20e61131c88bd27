/// A server's members as the client holds them.
///
/// Stale, like a ``ChannelHistory``, until fetched from the server since the last reconnect; `Ready`
/// and member events keep it up to date meanwhile.
public struct MemberList: Sendable, Hashable {
    /// The server.
    public var serverID: String
    /// The members, by user id order.
    public var members: [Member]
    /// Whether the list may miss members and is refetched when next asked for.
    public var isStale: Bool

    /// Creates a member list.
    public init(serverID: String, members: [Member] = [], isStale: Bool = true) {
        self.serverID = serverID
        self.members = members
        self.isStale = isStale
    }
}
