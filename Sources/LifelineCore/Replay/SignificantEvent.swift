/// An event played on the connection that may be worth restoring after a reconnect (the
/// reconnect-with-replay specification's "significant events").
///
/// Protocol-neutral: a kind and a target. The protocol module says how to play it (for Stoat,
/// `subscribe` is a `Subscribe` frame). Connecting and authenticating — the specification's first two
/// significant events — are the lifecycle's own prerequisites: every connection performs them before
/// SOCKET_CONNECTED, so the replay starts once they have succeeded.
///
/// Only kinds that are ``Kind/isRecorded`` are restored: a subscription is state the server forgets with
/// the socket; the user's own typing indicator lives seconds and is played once, never replayed. (The
/// specification's "listening to typing" is a subscription to *others'* typing, which Stoat sends for
/// every channel the user can see without being asked.)
public struct SignificantEvent: Sendable, Hashable, CustomStringConvertible {
    /// What kind of event it is.
    public struct Kind: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The kind's stable name.
        public var rawValue: String
        /// Creates a kind from its stable name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Listening to a server's events (Stoat's `Subscribe`).
        public static let subscribe = Kind(rawValue: "subscribe")
        /// Stopping listening (Stoat has no frame for it: the subscription simply is not renewed).
        public static let unsubscribe = Kind(rawValue: "unsubscribe")
        /// Typing started in a channel (`BeginTyping`).
        public static let beginTyping = Kind(rawValue: "beginTyping")
        /// Typing ended in a channel (`EndTyping`).
        public static let endTyping = Kind(rawValue: "endTyping")

        /// Whether a played event of this kind is recorded and replayed after every reconnect: `true` for
        /// subscriptions and for kinds Lifeline does not know, `false` for the user's own typing indicator
        /// (``beginTyping``, ``endTyping``), which is played once on the current connection or not at all.
        public var isRecorded: Bool { self != .beginTyping && self != .endTyping }

        /// The kind whose record this kind removes, if it is an "opposite" (unsubscribe, end typing).
        public var cancels: Kind? {
            switch self {
            case .unsubscribe: .subscribe
            case .endTyping: .beginTyping
            default: nil
            }
        }

        /// The stable name.
        public var description: String { rawValue }
    }

    /// The kind.
    public var kind: Kind
    /// What it applies to: a server id, a channel id.
    public var target: String

    /// Creates an event.
    public init(_ kind: Kind, _ target: String) {
        self.kind = kind
        self.target = target
    }

    /// `kind(target)`.
    public var description: String { "\(kind)(\(target))" }
}
