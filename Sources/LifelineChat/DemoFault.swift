public import LifelineTerminal

/// A fault the embedded demo world injects from a key, so that every state of the session's lifecycle is seen.
///
/// The help overlay lists them with their keys (Alt-1 … Alt-0) when the program runs its own reference server.
/// Their wording avoids "disconnect", "reconnect" and "retry": the overlay shows while CONNECTED too, where no
/// text of the client's own says so.
public enum DemoFault: String, Hashable, Sendable, CaseIterable {
    /// The server closes the events socket abruptly.
    case dropSocket
    /// The server refuses the next three socket upgrades, then drops the socket: the backoff shows.
    case refuseConnections
    /// The device's network goes away, or comes back.
    case toggleOffline
    /// The server accepts sockets and answers nothing (no Pong): the heartbeat notices. Again to end it.
    case toggleSilent
    /// The socket answers Pings but delivers no event: the delivery check notices the user's own message.
    case deafSocket
    /// An outage: the socket drops, connections are refused, the health service raises its alert. Again to end it.
    case toggleOutage
    /// Another device logs the session out.
    case externalLogout
    /// The account is suspended and the session revoked while its socket is down: the reconnect is refused and the
    /// account's lookup finds the suspension, so the permanent error (ERROR) names it ("Your account has been
    /// suspended.") with its dismiss key; a login is not refused, so the person signs in again at once.
    case suspendAccount
    /// A slowmode in the open channel (again to lift it).
    case toggleSlowmode
    /// The user is timed out in the open channel's server for 30 s.
    case timeOut

    /// The key that injects it.
    public var key: KeyPress {
        let digit: Character =
            switch self {
            case .dropSocket: "1"
            case .refuseConnections: "2"
            case .toggleOffline: "3"
            case .toggleSilent: "4"
            case .deafSocket: "5"
            case .toggleOutage: "6"
            case .externalLogout: "7"
            case .suspendAccount: "8"
            case .toggleSlowmode: "9"
            case .timeOut: "0"
            }
        return .alt(digit)
    }

    /// What it does, as the help overlay says it.
    public var summary: String {
        switch self {
        case .dropSocket: "drop the socket"
        case .refuseConnections: "drop the socket and refuse the next 3 connections"
        case .toggleOffline: "the device goes offline / comes back"
        case .toggleSilent: "a silent server: no Pong, nothing (again: it speaks)"
        case .deafSocket: "a deaf socket: Pongs, but no events"
        case .toggleOutage: "an outage with the health alert (again: it ends)"
        case .externalLogout: "log this session out from another device"
        case .suspendAccount: "suspend the account (a permanent error)"
        case .toggleSlowmode: "a 10 s slowmode in this channel (again: lift it)"
        case .timeOut: "time the user out in this server for 30 s"
        }
    }
}
