import LifelineCore
import LifelineTesting
import Testing

@Suite("Server time")
struct ServerClockAnchorTests {
    /// 2024-11-14T22:13:20Z, a server time with no significance.
    static let base = WallClockTime(secondsSince1970: 1_731_622_400 as Int64)

    @Test(
        "a server clock two hours ahead or behind gives the same deadline as an unskewed one",
        arguments: [-7_200, -1, 0, 1, 7_200] as [Int64])
    func skewDoesNotMatter(skewSeconds: Int64) {
        // The server's clock reads `base + skew` at the moment it answers, and its operation expires 90 s
        // later on that same clock. The device's clock is never consulted.
        let skew = Duration.seconds(skewSeconds)
        let anchor = ServerClockAnchor(
            serverTime: Self.base.advanced(by: skew), resolution: .seconds(1), roundTrip: .milliseconds(200),
            receivedAt: .seconds(500))
        #expect(anchor.localDeadline(for: Self.base.advanced(by: skew + .seconds(90))) == .seconds(590))
    }

    @Test("an expiry already past on the server's clock gives a deadline already past")
    func pastExpiry() {
        let anchor = ServerClockAnchor(
            serverTime: Self.base, resolution: .zero, roundTrip: .zero, receivedAt: .seconds(500))
        #expect(anchor.localDeadline(for: Self.base.advanced(by: .seconds(-30))) == .seconds(470))
    }

    @Test("the deadline is never early and at most resolution + round trip late", arguments: [1, 2, 3] as [UInt64])
    func errorIsBoundedByTheRoundTrip(seed: UInt64) {
        var random = SeededRandomNumberGenerator(seed: seed)
        for _ in 0..<10_000 {
            // The server's clock is the device's monotonic clock plus an offset, in milliseconds.
            let offset = Int64.random(in: -10_000_000...10_000_000, using: &random)
            let sent = Int64.random(in: 0...1_000_000, using: &random)
            let roundTrip = Int64.random(in: 0...3_000, using: &random)
            let received = sent + roundTrip
            // The server stamps its Date header somewhere during the request, truncated to the second.
            let stamped = Int64.random(in: sent...received, using: &random) + offset
            let header = stamped - ((stamped % 1_000) + 1_000) % 1_000
            let expiry = stamped + Int64.random(in: -60_000...600_000, using: &random)
            let anchor = ServerClockAnchor(
                serverTime: WallClockTime(millisecondsSince1970: header), resolution: .seconds(1),
                roundTrip: .milliseconds(roundTrip), receivedAt: .milliseconds(received))
            let deadline = anchor.localDeadline(for: WallClockTime(millisecondsSince1970: expiry))
            // The monotonic moment the server's clock reaches the expiry.
            let truth = Duration.milliseconds(expiry - offset)
            #expect(deadline >= truth, "never early")
            #expect(deadline - truth <= anchor.uncertainty, "late by at most \(anchor.uncertainty)")
            #expect(anchor.earliestPossibleDeadline(for: WallClockTime(millisecondsSince1970: expiry)) <= truth)
        }
    }

    @Test("re-checks wait 1 s, 2 s, 4 s … doubling up to the ceiling, then stay there")
    func recheckBackoff() {
        let policy = ExpiryRecheckPolicy.standard
        let delays = (0..<10).map { policy.delay(afterChecks: $0) }
        #expect(delays == [1, 2, 4, 8, 16, 32, 60, 60, 60, 60].map { Duration.seconds($0) })
        #expect(policy.delay(afterChecks: .max) == .seconds(60))
        #expect(
            ExpiryRecheckPolicy(initial: .milliseconds(300), ceiling: .seconds(1)).delay(afterChecks: 2) == .seconds(1))
    }
}
