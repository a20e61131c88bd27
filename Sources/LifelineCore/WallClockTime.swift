/// A reading of a wall clock — the server's or the device's — as the time since the Unix epoch.
///
/// Wall clocks are set by people and by network time, and they jump; two of them, on two machines, do
/// not agree. Lifeline therefore never compares a wall-clock time with a wall-clock "now" to decide when
/// something expires: a ``ServerClockAnchor`` turns server times into deadlines on a monotonic clock once,
/// when they arrive. This type is only the value; it reads no clock.
///
/// Foundation's `Date` converts with `WallClockTime(secondsSince1970: date.timeIntervalSince1970)`.
public struct WallClockTime: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The time since 1970-01-01T00:00:00Z (leap seconds not counted, as in Unix time).
    public var sinceEpoch: Duration

    /// Creates a time from its distance to the Unix epoch.
    public init(sinceEpoch: Duration) {
        self.sinceEpoch = sinceEpoch
    }

    /// Creates a time from whole seconds since the Unix epoch (an HTTP `Date` header's precision).
    public init(secondsSince1970 seconds: Int64) {
        sinceEpoch = .seconds(seconds)
    }

    /// Creates a time from fractional seconds since the Unix epoch (`Date.timeIntervalSince1970`).
    public init(secondsSince1970 seconds: Double) {
        sinceEpoch = .seconds(seconds)
    }

    /// Creates a time from milliseconds since the Unix epoch (a JSON timestamp's usual precision).
    public init(millisecondsSince1970 milliseconds: Int64) {
        sinceEpoch = .milliseconds(milliseconds)
    }

    /// The time `duration` later.
    public func advanced(by duration: Duration) -> WallClockTime {
        WallClockTime(sinceEpoch: sinceEpoch + duration)
    }

    /// The duration from this time to `other`: positive when `other` is later.
    public func duration(to other: WallClockTime) -> Duration {
        other.sinceEpoch - sinceEpoch
    }

    /// Orders times.
    public static func < (lhs: WallClockTime, rhs: WallClockTime) -> Bool {
        lhs.sinceEpoch < rhs.sinceEpoch
    }

    /// The time since the epoch, e.g. `1700000000.5 seconds since 1970`.
    public var description: String { "\(sinceEpoch) since 1970" }
}
