#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The pending operations `GET /operations` lists, with what an expiration watcher needs to anchor their
/// expiries: the server's clock when it answered and how long the request took.
///
/// Expiries are in the server's clock. Compare each ``Operation/expiresAt`` with ``serverDate`` (not with
/// the device's clock, which may be wrong) and anchor the difference to a monotonic clock at the time the
/// page arrived; ``roundTrip`` bounds how stale ``serverDate`` is.
public struct OperationsPage: Sendable, Hashable {
    /// One pending operation.
    public struct Operation: Sendable, Hashable, Identifiable {
        /// The operation's id (`id`).
        public var id: String
        /// What kind of operation it is (`kind`), as the server names it.
        public var kind: String
        /// When it expires (`expires_at`), in the server's clock.
        public var expiresAt: Date

        /// Creates an operation.
        public init(id: String, kind: String, expiresAt: Date) {
            self.id = id
            self.kind = kind
            self.expiresAt = expiresAt
        }
    }

    /// The pending operations, in the server's order.
    public var operations: [Operation]
    /// The server's clock when it answered (the response's `Date` header, whole seconds), or `nil` when the
    /// header was missing or unreadable.
    public var serverDate: Date?
    /// The time from sending the request to receiving the whole response, on the API's clock.
    public var roundTrip: Duration

    /// Creates a page.
    public init(operations: [Operation], serverDate: Date?, roundTrip: Duration) {
        self.operations = operations
        self.serverDate = serverDate
        self.roundTrip = roundTrip
    }
}
