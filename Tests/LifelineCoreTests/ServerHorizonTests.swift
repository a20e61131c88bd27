import LifelineCore
import Testing

/// Every number a server states is clamped to ``ServerHorizon`` before anything computes with it: extreme
/// values go through each conversion and sum without trapping, and land on the documented bounds.
@Suite("ServerHorizon: waits and times a server states, bounded")
struct ServerHorizonTests {
    static let year = ServerHorizon.longestWait

    @Test(
        "a wait in whole seconds or milliseconds is clamped to 0 … 366 days",
        arguments: [
            (Int64.max, year), (Int64.min, .zero), (-1, .zero), (0, .zero), (90, .seconds(90)),
            (31_622_400, year), (31_622_401, year),
        ] as [(Int64, Duration)])
    func integerWaits(_ seconds: Int64, _ expected: Duration) {
        #expect(ServerHorizon.wait(seconds: seconds) == expected)
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        let asMilliseconds = milliseconds.overflow ? (seconds > 0 ? Int64.max : Int64.min) : milliseconds.partialValue
        #expect(ServerHorizon.wait(milliseconds: asMilliseconds) == expected)
    }

    @Test(
        "a wait as a JSON number is clamped; not a number is no wait; a fraction rounds up, never early",
        arguments: [
            (1e300, year), (-1e300, .zero), (.infinity, year), (-.infinity, .zero), (.nan, .zero),
            (.greatestFiniteMagnitude, year), (9.3e18, year), (0.5, .milliseconds(500)),
            (1e-12, .nanoseconds(1)), (-0.0, .zero),
        ] as [(Double, Duration)])
    func fractionalWaits(_ seconds: Double, _ expected: Duration) {
        #expect(ServerHorizon.wait(seconds: seconds) == expected)
        #expect(ServerHorizon.wait(milliseconds: seconds * 1000) == expected || seconds.isNaN)
    }

    @Test("a count of seconds is kept as a count within the horizon")
    func secondCounts() {
        #expect(ServerHorizon.seconds(Int64.max) == 31_622_400)
        #expect(ServerHorizon.seconds(Int64.min) == 0)
        #expect(ServerHorizon.seconds(1e300) == 31_622_400)
        #expect(ServerHorizon.seconds(Double.nan) == 0)
        #expect(ServerHorizon.seconds(0.2) == 1, "rounded up: a slowmode is never shorter than stated")
        #expect(ServerHorizon.seconds(Int64(42)) == 42)
        #expect(ServerHorizon.wait(.seconds(Int64.max) * 10) == Self.year)
        #expect(ServerHorizon.wait(.zero - .seconds(Int64.max)) == .zero)
    }

    @Test(
        "a wall-clock time is clamped to the years 0001–9999 from every initialiser; not a number is the epoch",
        arguments: [1e300, -1e300, .infinity, -.infinity, .nan, 9.3e18, -9.3e18, 1_750_000_000.25] as [Double])
    func times(_ seconds: Double) {
        let time = WallClockTime(secondsSince1970: seconds)
        #expect(time >= ServerHorizon.earliestTime && time <= ServerHorizon.latestTime)
        if seconds.isNaN { #expect(time == WallClockTime(sinceEpoch: .zero)) }
        if seconds > 1e12 { #expect(time == ServerHorizon.latestTime) }
        if seconds < -1e12 { #expect(time == ServerHorizon.earliestTime) }
        if seconds == 1_750_000_000.25 { #expect(time.sinceEpoch == .milliseconds(1_750_000_000_250)) }
        #expect(WallClockTime(secondsSince1970: Int64.max) == ServerHorizon.latestTime)
        #expect(WallClockTime(secondsSince1970: Int64.min) == ServerHorizon.earliestTime)
        #expect(WallClockTime(millisecondsSince1970: Int64.max) == ServerHorizon.latestTime)
        #expect(WallClockTime(sinceEpoch: .seconds(Int64.max) * 10) == ServerHorizon.latestTime)
    }

    @Test("arithmetic on times saturates at the horizon, even for a time set beyond it")
    func timeArithmetic() {
        let latest = ServerHorizon.latestTime
        let earliest = ServerHorizon.earliestTime
        #expect(latest.advanced(by: .seconds(Int64.max) * 10) == latest)
        #expect(earliest.advanced(by: .zero - .seconds(Int64.max) * 10) == earliest)
        #expect(earliest.duration(to: latest) == .seconds(253_402_300_799 + 62_135_596_800))
        var beyond = WallClockTime(sinceEpoch: .zero)
        beyond.sinceEpoch = .seconds(Int64.max) * 10  // set past the horizon by hand
        var before = WallClockTime(sinceEpoch: .zero)
        before.sinceEpoch = .zero - .seconds(Int64.max) * 10
        #expect(before.duration(to: beyond) == earliest.duration(to: latest))
    }

    @Test("a server-clock anchor turns the most extreme times into deadlines without trapping")
    func anchorAtTheExtremes() {
        for serverTime in [
            ServerHorizon.earliestTime, ServerHorizon.latestTime, WallClockTime(secondsSince1970: 1e300),
        ] {
            let anchor = ServerClockAnchor(
                serverTime: serverTime, resolution: .seconds(1), roundTrip: .milliseconds(100),
                receivedAt: .seconds(5))
            for expiry in [
                WallClockTime(secondsSince1970: -1e300), WallClockTime(secondsSince1970: .nan),
                WallClockTime(secondsSince1970: Int64.max), ServerHorizon.latestTime,
            ] {
                let deadline = anchor.localDeadline(for: expiry)
                let span = ServerHorizon.earliestTime.duration(to: ServerHorizon.latestTime)
                #expect(deadline <= .seconds(5) + span && deadline >= .seconds(5) - span)
                _ = anchor.earliestPossibleDeadline(for: expiry)
            }
        }
    }
}
