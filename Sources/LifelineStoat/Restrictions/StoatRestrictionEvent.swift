/// A restriction starting or ending, for logs and command lines; an interface reads
/// ``StoatClient/restrictionUpdates`` instead.
public enum StoatRestrictionEvent: Sendable, Hashable {
    /// The server set a restriction, or moved one to a new time (a longer timeout, a new slowmode).
    case started(StoatRestriction)
    /// The restriction is over, as the server said.
    case ended(StoatRestriction, StoatRestriction.EndReason)
}
