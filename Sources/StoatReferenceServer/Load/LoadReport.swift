#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What a load test checks on the server (``ReferenceServer/loadReport(closedAfter:)``): the counters, how many
/// sockets one token ever had open at once, and per connection its user, whether it got `Ready` and the
/// `Subscribe` frames it sent.
public struct LoadReport: Sendable, Equatable {
    /// One connection, open or closed.
    public struct Connection: Sendable, Equatable {
        /// The connection's number (``ConnectionRecord/id``).
        public var id: Int
        /// The user it authenticated as, or whose token its `Authenticate` frame carried (a silent socket's);
        /// nil before any `Authenticate`.
        public var userID: String?
        /// Whether it is still open.
        public var isOpen: Bool
        /// Whether the server sent it `Ready`.
        public var receivedReady: Bool
        /// How many `Subscribe` frames it sent, by server id.
        public var subscribes: [String: Int]
    }

    /// One token presented on a socket while another socket with the same token was still open.
    public struct Overlap: Sendable, Equatable {
        /// The token's user.
        public var userID: String?
        /// The open connections with the token, the new one included.
        public var connectionIDs: [Int]
        /// When, in the server's clock.
        public var at: Date
    }

    /// The socket counters.
    public var counters: SocketCounters
    /// The most sockets one session token had open at once since the server started (a socket counts from its
    /// `Authenticate` frame to its close).
    public var maximumOpenPerToken: Int
    /// How many times a token was presented while another socket with it was open.
    public var overlapCount: Int
    /// The first such overlaps (at most 100).
    public var overlaps: [Overlap]
    /// How many connections have closed since the server started: the `closedAfter` of the next report.
    public var closedCount: Int
    /// The connections that closed after the first `closedAfter`, in the order they closed.
    public var closed: [Connection]
    /// The connections open now, by id.
    public var open: [Connection]
}
