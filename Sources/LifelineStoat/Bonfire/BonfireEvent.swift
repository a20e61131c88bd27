/// An event the server sends on Stoat's events socket, decoded.
public enum BonfireEvent: Sendable, Hashable {
    /// The session was accepted.
    case authenticated
    /// The initial data: after it, the session is connected.
    case ready(Ready)
    /// The answer to a `Ping`; `data` is `nil` when it was not an integer.
    case pong(data: Int64?)
    /// The server pinged the client (Stoat does not, but a peer may): answer with the same data.
    case ping(data: Int64?)
    /// The session was deleted; the server closes the socket next.
    case logout
    /// An error; the server closes the socket after it.
    case error(BonfireError)
    /// Several events in one frame.
    case bulk([BonfireEvent])
    /// A new message.
    case message(Message)
    /// A message was edited.
    case messageUpdate(id: String, channel: String)
    /// A message was deleted.
    case messageDelete(id: String, channel: String)
    /// A user started typing in a channel.
    case channelStartTyping(channel: String, user: String)
    /// A user stopped typing in a channel.
    case channelStopTyping(channel: String, user: String)
    /// A user changed.
    case userUpdate(id: String)
    /// A server changed.
    case serverUpdate(id: String)
    /// A channel changed.
    case channelUpdate(id: String)
    /// A user joined a server.
    case serverMemberJoin(server: String, user: String)
    /// A user left a server (or was removed).
    case serverMemberLeave(server: String, user: String)
    /// A member changed.
    case serverMemberUpdate(server: String, user: String)
    /// The user left or was removed from a server.
    case serverDelete(id: String)
    /// A pending operation ended (`approved`, `rejected`, `timeout`).
    case operationFinished(id: String, result: String)
    /// An event type Lifeline does not model; tolerated and counted, never fatal.
    case unknown(type: String)

    /// The event's `type` on the wire.
    public var type: String {
        switch self {
        case .authenticated: "Authenticated"
        case .ready: "Ready"
        case .pong: "Pong"
        case .ping: "Ping"
        case .logout: "Logout"
        case .error: "Error"
        case .bulk: "Bulk"
        case .message: "Message"
        case .messageUpdate: "MessageUpdate"
        case .messageDelete: "MessageDelete"
        case .channelStartTyping: "ChannelStartTyping"
        case .channelStopTyping: "ChannelStopTyping"
        case .userUpdate: "UserUpdate"
        case .serverUpdate: "ServerUpdate"
        case .channelUpdate: "ChannelUpdate"
        case .serverMemberJoin: "ServerMemberJoin"
        case .serverMemberLeave: "ServerMemberLeave"
        case .serverMemberUpdate: "ServerMemberUpdate"
        case .serverDelete: "ServerDelete"
        case .operationFinished: "OperationFinished"
        case .unknown(let type): type
        }
    }
}

/// An `Error` event: `{"type":"Error","data":{"type":KIND,"location":…}}`.
public struct BonfireError: Sendable, Hashable, CustomStringConvertible {
    /// The error's kind (`InvalidSession`, `NotAuthenticated`, `InternalError`, …).
    public var kind: String
    /// Where the server raised it, if it says.
    public var location: String?

    /// Creates an error.
    public init(kind: String, location: String? = nil) {
        self.kind = kind
        self.location = location
    }

    /// Whether the error says the session cannot authenticate: then the failure is permanent (DESIGN
    /// decision 4). `InvalidSession`, `InvalidToken`, `NotAuthenticated`, `UnverifiedAccount`.
    public var isAuthenticationError: Bool {
        ["InvalidSession", "InvalidToken", "NotAuthenticated", "UnverifiedAccount"].contains(kind)
    }

    /// The kind.
    public var description: String { kind }
}
