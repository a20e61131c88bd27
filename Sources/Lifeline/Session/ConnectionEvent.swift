public import LifelineCore
import Logging

/// A milestone in a connection's life.
public enum ConnectionEvent: Sendable, Hashable {
    /// The socket opened.
    case opened
    /// The server accepted the session (Stoat's `Authenticated`).
    case authenticated
    /// The initial data has loaded (Stoat's `Ready`): the session is connected.
    case ready
    /// The connection ended, and why.
    case ended(SessionFailure)
}

extension ConnectionEvent {
    /// The report's log metadata: the generation, the milestone (`opened`, `authenticated`, `ready`, `ended`)
    /// and, for an end, its kind (`temporary`, `permanent`, `loggedOut`) and its code.
    func logMetadata(generation: UInt64) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["lifeline.generation": "\(generation)"]
        switch self {
        case .opened: metadata["lifeline.event"] = "opened"
        case .authenticated: metadata["lifeline.event"] = "authenticated"
        case .ready: metadata["lifeline.event"] = "ready"
        case .ended(let end):
            metadata["lifeline.event"] = "ended"
            switch end {
            case .temporary(let cause):
                metadata["lifeline.end"] = "temporary"
                metadata["lifeline.cause"] = "\(cause.code.rawValue)"
            case .permanent(let reason):
                metadata["lifeline.end"] = "permanent"
                metadata["lifeline.cause"] = "\(reason.code.rawValue)"
            case .loggedOut:
                metadata["lifeline.end"] = "loggedOut"
            }
        }
        return metadata
    }
}
