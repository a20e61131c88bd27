#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// One accepted events-socket connection, as the server saw it. Kept after it closes.
public struct ConnectionRecord: Sendable, Equatable {
    /// The connection's number: 1 for the first accepted since start, then 2, 3, …
    public let id: Int
    /// When it was accepted, in the server's clock.
    public let acceptedAt: Date
    /// The session (or bot) token it authenticated with (or tried to), once known.
    public internal(set) var token: String?
    /// The user it authenticated as, once authenticated.
    public internal(set) var userID: String?
    /// Whether it authenticated with a bot token.
    public internal(set) var isBot: Bool
    /// Whether the socket is still open.
    public internal(set) var isOpen: Bool
    /// Whether `Authenticated` was sent.
    public internal(set) var isAuthenticated: Bool
    /// Whether `Ready` was sent.
    public internal(set) var receivedReady: Bool
    /// The text frames the client sent, in order, verbatim (malformed ones included): the newest
    /// ``ObservationLimits/framesPerConnection`` of them; ``droppedFrames`` counts the older ones.
    public internal(set) var receivedFrames: [String]
    /// The server ids the client sent `Subscribe` for after authenticating, in order, without repeats, whether
    /// or not the server accepted them (see ``activeSubscriptions``).
    public internal(set) var subscriptions: [String]
    /// The servers in the socket's active-subscription cache when the record was read: accepted (the user is a
    /// member), at most ``ReferenceServer/Configuration/maximumSubscriptions``, least recently renewed first,
    /// leaving out those older than ``ReferenceServer/Configuration/subscriptionLifetime`` in the server's clock.
    public internal(set) var activeSubscriptions: [String]
    /// The servers whose subscription lapsed (expired unrenewed and was dropped when the socket's listener next
    /// woke), in order; a repeat means it lapsed again after a renewal.
    public internal(set) var lapsedSubscriptions: [String]
    /// The servers whose member events (`<server>u`) the socket receives now. Includes servers that left the
    /// cache by eviction or by expiring at a `Subscribe`, which stoatchat never unsubscribes.
    public internal(set) var memberEventServers: [String]
    /// How many of the client's frames fell out of ``receivedFrames`` (beyond
    /// ``ObservationLimits/framesPerConnection``).
    public internal(set) var droppedFrames = 0

    /// How many frames the client sent in all.
    public var framesReceived: Int { receivedFrames.count + droppedFrames }
}
