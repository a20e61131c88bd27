/// Converts times on the server's clock into deadlines on the device's monotonic clock, once, when a
/// response arrives — so that no later change of the device's wall clock moves them.
///
/// A response states the server's time (an HTTP `Date` header, or a timestamp field); the client reads
/// its monotonic clock when the response has arrived. An expiry `E` on the server's clock becomes the
/// monotonic deadline `receivedAt + (E − serverTime)`: the device's own wall clock is never read, so a
/// device clock that is hours off, or that jumps after the list arrived, changes nothing.
///
/// ## How far off the estimate can be
///
/// The server wrote its time at some moment between sending the request and receiving the response, and
/// a `Date` header truncates it to the second. So when the response arrives, the server's clock reads
/// between `serverTime` and `serverTime + resolution + roundTrip`. The anchor assumes the lowest value:
///
/// - a deadline is **never early** — when it is reached, the server's clock has passed the expiry (as long
///   as the two clocks tick at the same rate; quartz drift is a few seconds a day at worst);
/// - a deadline is **late by at most ``uncertainty``** (`resolution + roundTrip`): with a `Date` header and
///   a 200 ms request, at most 1.2 s.
///
/// Refreshing the list after the deadline therefore finds the operation expired on the server, unless
/// the server is slow to remove it — which ``ExpiryRecheckPolicy`` handles.
///
/// ```swift
/// let anchor = ServerClockAnchor(
///     serverTime: dateHeader, resolution: .seconds(1), roundTrip: .milliseconds(180), receivedAt: clock.now)
/// let deadline = anchor.localDeadline(for: operation.expires)   // on the monotonic clock
/// ```
public struct ServerClockAnchor: Sendable, Hashable {
    /// The server's time, as the response stated it.
    public var serverTime: WallClockTime

    /// How coarsely the response states it: 1 s for an HTTP `Date` header, zero for an exact timestamp.
    /// The server's true time is assumed to lie in `serverTime ..< serverTime + resolution`.
    public var resolution: Duration

    /// The request's round trip, from sending it to receiving the response, on the monotonic clock.
    public var roundTrip: Duration

    /// The monotonic clock's reading when the response had arrived (any origin: deadlines share it).
    public var receivedAt: Duration

    /// Creates an anchor from what one response said and when it arrived.
    ///
    /// - Parameters:
    ///   - serverTime: The server's time from the response.
    ///   - resolution: The precision of `serverTime`: `.seconds(1)` for a `Date` header. Not negative.
    ///   - roundTrip: The request's round trip. Not negative.
    ///   - receivedAt: The monotonic clock's reading, taken after the response arrived.
    public init(serverTime: WallClockTime, resolution: Duration, roundTrip: Duration, receivedAt: Duration) {
        precondition(resolution >= .zero, "ServerClockAnchor.resolution must not be negative, got \(resolution)")
        precondition(roundTrip >= .zero, "ServerClockAnchor.roundTrip must not be negative, got \(roundTrip)")
        self.serverTime = serverTime
        self.resolution = resolution
        self.roundTrip = roundTrip
        self.receivedAt = receivedAt
    }

    /// The most the deadlines can be late: `resolution + roundTrip`. They are never early.
    public var uncertainty: Duration { resolution + roundTrip }

    /// The monotonic deadline at which the server's clock has certainly reached `serverInstant`.
    ///
    /// - Parameter serverInstant: A time on the server's clock, such as an operation's expiry.
    /// - Returns: `receivedAt + (serverInstant − serverTime)`, on the monotonic clock `receivedAt` was read
    ///   from; at most ``uncertainty`` later than the true moment.
    public func localDeadline(for serverInstant: WallClockTime) -> Duration {
        receivedAt + serverTime.duration(to: serverInstant)
    }

    /// The earliest monotonic reading at which the server's clock may have reached `serverInstant`:
    /// ``localDeadline(for:)`` minus ``uncertainty``.
    public func earliestPossibleDeadline(for serverInstant: WallClockTime) -> Duration {
        localDeadline(for: serverInstant) - uncertainty
    }
}
