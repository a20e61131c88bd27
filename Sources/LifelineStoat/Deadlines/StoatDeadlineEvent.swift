/// A deadline starting or ending, for logs and command lines; an interface reads
/// ``StoatClient/deadlineUpdates`` instead.
public enum StoatDeadlineEvent: Sendable, Hashable {
    /// The server set a deadline, or moved one to a new time (a longer timeout, a new slowmode).
    case started(StoatDeadline)
    /// The deadline is over, as the server said.
    case ended(StoatDeadline, StoatDeadline.EndReason)
}
