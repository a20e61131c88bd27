#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A restriction the server set for the signed-in user, until which it refuses something: a member
/// timeout in a server (the user may read, not send) or a slowmode in a channel (the user may send
/// again only after it).
///
/// ``StoatClient`` holds one per server and channel while the server says it is in force
/// (``StoatClient/restrictions``), on its own clock: ``deadline`` is when the client will ask the server
/// whether it is over — a timer's deadline, apart from the restriction itself — and the restriction ends only when the server says so — confirmed over REST after
/// ``deadline``, or cleared on the events socket. See <doc:LifelineStoat#Restrictions-the-server-sets>.
public struct StoatRestriction: Sendable, Hashable, Identifiable {
    /// What the server holds the user back from.
    public struct Kind: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The kind's stable name.
        public var rawValue: String

        /// Creates a kind from its stable name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The user's own member `timeout` in a server: until it passes, the user can read the server's
        /// channels but not send in them. ``StoatRestriction/target`` is the server's id.
        public static let timeout = Kind(rawValue: "timeout")
        /// A channel's slowmode holds the user back: they sent there less than the slowmode ago.
        /// ``StoatRestriction/target`` is the channel's id.
        public static let slowmode = Kind(rawValue: "slowmode")

        /// The kind's stable name.
        public var description: String { rawValue }
    }

    /// A deadline's key: its kind and the server or channel it holds.
    public struct ID: Sendable, Hashable, Comparable, CustomStringConvertible {
        /// The kind.
        public var kind: Kind
        /// The server (for a timeout) or the channel (for a slowmode).
        public var target: String

        /// Creates a key.
        public init(_ kind: Kind, _ target: String) {
            self.kind = kind
            self.target = target
        }

        /// Orders keys by kind, then target.
        public static func < (lhs: ID, rhs: ID) -> Bool {
            (lhs.kind.rawValue, lhs.target) < (rhs.kind.rawValue, rhs.target)
        }

        /// `kind:target`, e.g. `timeout:01H…`.
        public var description: String { "\(kind):\(target)" }
    }

    /// Where a deadline stands, as far as the client can tell.
    public enum State: Sendable, Hashable {
        /// Its ``StoatRestriction/deadline`` has not come yet.
        case active
        /// Its deadline has come on the client's estimate of the server's clock, and the server is being
        /// asked whether it is over. It stays listed until the server says so: the interface may show a
        /// countdown at zero, and must not let the user act as if it were over.
        case awaitingConfirmation
    }

    /// Why a deadline ended.
    public struct EndReason: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The reason's stable name.
        public var rawValue: String

        /// Creates a reason from its stable name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The client asked after the deadline, and the server answered that it is over (a member without
        /// a `timeout`, or whose `timeout` its clock has passed; a slowmode whose time its own count has
        /// run out).
        public static let confirmed = EndReason(rawValue: "confirmed")
        /// The server cleared it on the events socket (a `ServerMemberUpdate` clearing `Timeout`, a
        /// `ChannelUpdate` removing the channel's slowmode), or restated it as already past.
        public static let cleared = EndReason(rawValue: "cleared")
        /// The server or the channel is gone for the user (they left or were removed, it was deleted).
        public static let gone = EndReason(rawValue: "gone")

        /// The reason's stable name.
        public var description: String { rawValue }
    }

    /// The deadline's key.
    public var id: ID
    /// Until when the member is timed out, on the server's clock, as the server last stated it (timeouts).
    public var until: Date?
    /// How many seconds the server last said the user had to wait (slowmodes: `retry_after`).
    public var retryAfter: Int?
    /// When the client will ask the server whether it is over, on the client's clock (compare
    /// ``StoatClient/restrictionClockNow``): the server's own statement anchored to that clock when it
    /// arrived, never early.
    public var deadline: Duration
    /// Where it stands.
    public var state: State

    /// Creates a deadline.
    ///
    /// - Parameters:
    ///   - id: The kind and the server or channel.
    ///   - until: A timeout's end on the server's clock.
    ///   - retryAfter: A slowmode's wait in seconds, as the server stated it.
    ///   - deadline: When the client checks, on its clock.
    ///   - state: Where it stands.
    public init(id: ID, until: Date? = nil, retryAfter: Int? = nil, deadline: Duration, state: State = .active) {
        self.id = id
        self.until = until
        self.retryAfter = retryAfter
        self.deadline = deadline
        self.state = state
    }

    /// The kind.
    public var kind: Kind { id.kind }
    /// The server (for a timeout) or the channel (for a slowmode).
    public var target: String { id.target }
}
