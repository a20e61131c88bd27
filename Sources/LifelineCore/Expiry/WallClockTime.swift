/// A reading of a wall clock — the server's or the device's — as the time since the Unix epoch.
///
/// Wall clocks are set by people and by network time, and they jump; two of them, on two machines, do
/// not agree. Lifeline therefore never compares a wall-clock time with a wall-clock "now" to decide when
/// something expires: a ``ServerClockAnchor`` turns server times into deadlines on a monotonic clock once,
/// when they arrive. This type is only the value; it reads no clock.
///
/// Foundation's `Date` converts with `WallClockTime(secondsSince1970: date.timeIntervalSince1970)`.
///
/// A time comes from a server, so every initialiser clamps it to ``ServerHorizon``'s years 0001–9999
/// (not a number is the epoch), and its arithmetic saturates there: no time a server states can make a
/// difference or a sum trap.
public struct WallClockTime: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The time since 1970-01-01T00:00:00Z (leap seconds not counted, as in Unix time).
    public var sinceEpoch: Duration

    /// Creates a time from its distance to the Unix epoch, clamped to ``ServerHorizon``'s years 0001–9999.
    public init(sinceEpoch: Duration) {
        self.sinceEpoch = Self.clamped(sinceEpoch)
    }

    /// Creates a time from whole seconds since the Unix epoch (an HTTP `Date` header's precision), clamped to
    /// ``ServerHorizon``'s years 0001–9999.
    public init(secondsSince1970 seconds: Int64) {
        self.init(sinceEpoch: .seconds(seconds))
    }

    /// Creates a time from fractional seconds since the Unix epoch (`Date.timeIntervalSince1970`), clamped to
    /// ``ServerHorizon``'s years 0001–9999; not a number is the epoch.
    public init(secondsSince1970 seconds: Double) {
        let bound = Double(ServerHorizon.timeSpan.components.seconds)
        self.init(sinceEpoch: .seconds(seconds.isNaN ? 0 : min(max(seconds, -bound), bound)))
    }

    /// Creates a time from milliseconds since the Unix epoch (a JSON timestamp's usual precision), clamped to
    /// ``ServerHorizon``'s years 0001–9999.
    public init(millisecondsSince1970 milliseconds: Int64) {
        self.init(sinceEpoch: .milliseconds(milliseconds))
    }

    /// A time taken as it is: for the horizon's own bounds.
    init(unclamped sinceEpoch: Duration) {
        self.sinceEpoch = sinceEpoch
    }

    /// The time `duration` later, saturating at ``ServerHorizon``'s bounds.
    public func advanced(by duration: Duration) -> WallClockTime {
        let span = ServerHorizon.timeSpan
        return WallClockTime(sinceEpoch: Self.clamped(sinceEpoch) + min(max(duration, .zero - span), span))
    }

    /// The duration from this time to `other`: positive when `other` is later. Never more than the span of
    /// ``ServerHorizon``'s years, even for times set beyond them through ``sinceEpoch``.
    public func duration(to other: WallClockTime) -> Duration {
        Self.clamped(other.sinceEpoch) - Self.clamped(sinceEpoch)
    }

    private static func clamped(_ sinceEpoch: Duration) -> Duration {
        min(max(sinceEpoch, ServerHorizon.earliestTime.sinceEpoch), ServerHorizon.latestTime.sinceEpoch)
    }

    /// Orders times.
    public static func < (lhs: WallClockTime, rhs: WallClockTime) -> Bool {
        lhs.sinceEpoch < rhs.sinceEpoch
    }

    /// The time since the epoch, e.g. `1700000000.5 seconds since 1970`.
    public var description: String { "\(sinceEpoch) since 1970" }
}
