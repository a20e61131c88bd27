public import LifelineCore

/// One answer of an ``OperationSource``: the pending operations and what the response said about the
/// server's clock.
public struct OperationListing<Operation: Sendable>: Sendable {
    /// One listed operation and its expiry on the server's clock.
    public struct Entry: Sendable {
        /// The operation.
        public var operation: Operation
        /// When it expires, on the server's clock; `nil` for an operation that does not expire.
        public var expires: WallClockTime?

        /// Creates an entry.
        public init(_ operation: Operation, expires: WallClockTime?) {
            self.operation = operation
            self.expires = expires
        }
    }

    /// The operations, in the server's order.
    public var entries: [Entry]

    /// The server's time when it answered: the response's `Date` header or a timestamp field. `nil` when
    /// the response had none; then the list falls back to the device's wall clock, read once on arrival.
    public var serverTime: WallClockTime?

    /// The precision of ``serverTime``: `.seconds(1)` for a `Date` header (the default), `.zero` for an
    /// exact timestamp.
    public var serverTimeResolution: Duration

    /// The request's round trip, measured on a monotonic clock: the bound on how far the server's time
    /// may have moved before the answer arrived.
    public var roundTrip: Duration

    /// Creates a listing.
    ///
    /// - Parameters:
    ///   - entries: The operations, in the server's order.
    ///   - serverTime: The server's time from the response, when it gave one.
    ///   - serverTimeResolution: Its precision: one second for a `Date` header.
    ///   - roundTrip: The request's round trip.
    public init(
        _ entries: [Entry], serverTime: WallClockTime?, serverTimeResolution: Duration = .seconds(1),
        roundTrip: Duration
    ) {
        self.entries = entries
        self.serverTime = serverTime
        self.serverTimeResolution = serverTimeResolution
        self.roundTrip = roundTrip
    }
}
