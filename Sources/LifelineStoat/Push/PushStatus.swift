/// Where the device's Web Push subscription stands (``StoatClient/pushStatus``).
public enum PushStatus: Sendable, Equatable {
    /// No subscription was given (``StoatClient/subscribePush(_:)``), or it was withdrawn.
    case off
    /// A subscription waits for the session to be CONNECTED (or for the next CONNECTED, after a failure).
    case pending
    /// The server holds the subscription on the current session.
    case subscribed
    /// The last attempt failed; it is made again at the next CONNECTED (or the next ``StoatClient/subscribePush(_:)``).
    case failed(StoatAPIError)

    /// Compares statuses by case and, for failures, by the error's code.
    public static func == (lhs: PushStatus, rhs: PushStatus) -> Bool {
        switch (lhs, rhs) {
        case (.off, .off), (.pending, .pending), (.subscribed, .subscribed): true
        case (.failed(let left), .failed(let right)): left.code == right.code
        default: false
        }
    }
}
