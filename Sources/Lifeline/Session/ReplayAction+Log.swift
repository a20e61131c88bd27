import LifelineCore
import Logging

extension ReplayAction {
    /// Logs what the plan surfaces to the user: a significant event that failed for good, or events the
    /// server does not support. Other actions are not logged.
    ///
    /// - Returns: Whether the action surfaces something, which the interface shows.
    func logSurfaced(to logger: Logger) -> Bool {
        switch self {
        case .surface(let event, let attempts):
            logger.info(
                "significant event failed",
                metadata: ["lifeline.event": "\(event)", "lifeline.attempts": "\(attempts)"])
        case .unsupported(let kind, let events):
            logger.info(
                "significant events not supported by the server",
                metadata: ["lifeline.kind": "\(kind)", "lifeline.events": "\(events.count)"])
        case .play, .cancelTimeout, .armRetry, .cancelRetry:
            return false
        }
        return true
    }
}
