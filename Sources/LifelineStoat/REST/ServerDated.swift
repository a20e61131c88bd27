#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A value the server answered, with what the answer said about the server's clock: its `Date` header and
/// how long the request took.
///
/// Compare times in the value (a member's `timeout`) with ``serverDate``, never with the device's clock,
/// and anchor the difference to a monotonic clock when the answer arrives (`LifelineCore`'s
/// `ServerClockAnchor`); ``roundTrip`` bounds how stale ``serverDate`` is.
public struct ServerDated<Value: Sendable>: Sendable {
    /// What the server answered.
    public var value: Value
    /// The server's clock when it answered (the `Date` header, whole seconds), or `nil` when the header was
    /// missing or unreadable.
    public var serverDate: Date?
    /// From sending the request to receiving the whole answer, on the API's clock.
    public var roundTrip: Duration

    /// Creates an answer.
    public init(_ value: Value, serverDate: Date?, roundTrip: Duration) {
        self.value = value
        self.serverDate = serverDate
        self.roundTrip = roundTrip
    }
}

extension ServerDated: Equatable where Value: Equatable {}
extension ServerDated: Hashable where Value: Hashable {}
