/// The horizons every number a server sends is clamped to before Lifeline computes with it, so that no
/// server — wrong, buggy or hostile — can make a conversion or a sum trap.
///
/// A server states waits (a slowmode's `retry_after`, a rate limit's reset, a health poll rate), times (a
/// member's timeout, an operation's expiry, the `Date` header) and counts. Stoat states many of them as
/// unsigned 64-bit numbers and none with an upper bound, and a `Duration` or an `Int` built from an
/// unchecked one traps (`Duration.seconds(1e300)`, `Int64(9.3e18)`, a clock's `sleep(until:)` past
/// `Int64.max` nanoseconds). So Lifeline clamps each number where it is decoded or first used:
///
/// | what | horizon |
/// |---|---|
/// | a wait the server imposes (slowmode, timeout's distance, health poll rate) | `0 … ` ``longestWait`` (366 days) |
/// | a time on the server's clock | ``earliestTime`` `…` ``latestTime`` (ISO 8601's years 0001–9999) |
/// | a rate-limit wait (`retry_after`, `X-RateLimit-Reset-After`) | LifelineStoat's own, shorter cap |
///
/// A wait longer than the horizon is not shortened in meaning: the client asks the server again when the
/// horizon is reached (a deadline is confirmed with the server, never ended on the client's own clock), and
/// no process waits longer than a year for anything. Not a number counts as zero.
public enum ServerHorizon {
    /// The longest wait a server can impose that Lifeline schedules: 366 days.
    public static let longestWait: Duration = .seconds(366 * 86_400)

    /// The earliest server time Lifeline represents: 0001-01-01T00:00:00Z.
    public static let earliestTime = WallClockTime(unclamped: .seconds(-62_135_596_800))

    /// The latest server time Lifeline represents: 9999-12-31T23:59:59Z.
    public static let latestTime = WallClockTime(unclamped: .seconds(253_402_300_799))

    /// The span from ``earliestTime`` to ``latestTime``: no difference of two clamped times is larger.
    static let timeSpan: Duration = .seconds(253_402_300_799 + 62_135_596_800)

    /// A wait of `seconds`, clamped to `0 … longestWait`.
    public static func wait(seconds: Int64) -> Duration {
        seconds <= 0 ? .zero : min(.seconds(min(seconds, longestWaitSeconds)), longestWait)
    }

    /// A wait of `seconds` (fractions kept to the nanosecond), clamped to `0 … longestWait`; not a number is zero.
    public static func wait(seconds: Double) -> Duration {
        guard seconds > 0 else { return .zero }  // NaN compares false
        guard seconds < Double(longestWaitSeconds) else { return longestWait }
        return .nanoseconds(Int64((seconds * 1e9).rounded(.up)))
    }

    /// A wait of `milliseconds`, clamped to `0 … longestWait`.
    public static func wait(milliseconds: Int64) -> Duration {
        milliseconds <= 0 ? .zero : min(.milliseconds(min(milliseconds, longestWaitSeconds * 1000)), longestWait)
    }

    /// A wait of `milliseconds`, clamped to `0 … longestWait`; not a number is zero.
    public static func wait(milliseconds: Double) -> Duration {
        guard milliseconds > 0 else { return .zero }
        return wait(seconds: milliseconds / 1000)
    }

    /// A duration clamped to `0 … longestWait`.
    public static func wait(_ duration: Duration) -> Duration {
        min(max(duration, .zero), longestWait)
    }

    /// A whole number of seconds clamped to `0 … longestWait` (31 622 400): for a count the server states in
    /// seconds and the client keeps as a count.
    public static func seconds(_ seconds: Int64) -> Int {
        Int(max(0, min(seconds, longestWaitSeconds)))
    }

    /// A number of seconds clamped to `0 … longestWait`, rounded up to a whole second; not a number is zero.
    public static func seconds(_ seconds: Double) -> Int {
        guard seconds > 0 else { return 0 }
        guard seconds < Double(longestWaitSeconds) else { return Int(longestWaitSeconds) }
        return Int(seconds.rounded(.up))
    }

    /// `time` moved into ``earliestTime`` `…` ``latestTime``.
    public static func time(_ time: WallClockTime) -> WallClockTime {
        min(max(time, earliestTime), latestTime)
    }

    static let longestWaitSeconds: Int64 = 366 * 86_400
}
