import LifelineCore
import LifelineTesting
import Testing

@Suite("The retry delay")
struct RetryPolicyTests {
    @Test("the nominal delay is (2^x − 1) units, capped by the ceiling", arguments: 1...20)
    func nominal(failures: Int) {
        let policy = RetryPolicy.spec
        let formula = Double((1 << failures) - 1)
        #expect(policy.nominalDelay(failures: failures) == .seconds(min(formula, 300)))
    }

    @Test("every jittered delay for x = 1…20 stays within ±20 % of the capped nominal delay", arguments: 1...20)
    func jitteredWithinBounds(failures: Int) throws {
        var random = SeededRandomNumberGenerator(seed: UInt64(failures))
        let policy = try RetryPolicy(unit: .milliseconds(500), ceiling: .seconds(60))
        let nominal = policy.nominalDelay(failures: failures)
        for _ in 0..<1_000 {
            let delay = policy.delay(failures: failures, using: &random)
            #expect(delay >= nominal * 0.8 && delay <= nominal * 1.2, "x=\(failures): \(delay)")
            #expect(delay <= .seconds(72), "the ceiling applies before the jitter")
        }
    }

    @Test("the jitter covers the whole ±20 % band, evenly")
    func jitterCoversTheBand() {
        var random = SeededRandomNumberGenerator(seed: 42)
        var buckets = [Int](repeating: 0, count: 10)
        var low = 2.0
        var high = 0.0
        let draws = 20_000
        for _ in 0..<draws {
            let factor = RetryPolicy.spec.delay(failures: 1, using: &random) / .seconds(1)
            low = min(low, factor)
            high = max(high, factor)
            buckets[min(9, Int((factor - 0.8) / 0.04))] += 1
        }
        #expect(low >= 0.8 && low < 0.801)
        #expect(high <= 1.2 && high > 1.199)
        for count in buckets { #expect(abs(count - draws / 10) < draws / 50, "buckets: \(buckets)") }
    }

    @Test("a large failure count neither overflows nor exceeds the ceiling")
    func hugeFailureCount() {
        #expect(RetryPolicy.spec.nominalDelay(failures: 10_000) == .seconds(300))
        #expect(RetryPolicy.spec.nominalDelay(failures: 0) == .seconds(1), "x counts as at least 1")
    }

    @Test("the machine arms DISCONNECTED's timer with the policy's delay for the incremented count")
    func machineUsesPolicy() throws {
        let policy = try RetryPolicy(unit: .seconds(2), ceiling: .seconds(10))
        let story = Story(in: .connected, policy: policy)
        var expectedRandom = story.random
        for failures in 1...5 {
            let expected = policy.delay(failures: failures, using: &expectedRandom)
            let actions = story.send(.temporaryFailure(.socketDropped)).actions
            guard case .armTimer(let timer)? = actions.last else {
                Issue.record("no timer armed: \(actions)")
                return
            }
            #expect(timer.purpose == .retry(failures: failures) && timer.delay == expected)
            story.send(.retry)
        }
    }
}

@Suite("Refused retry policies")
struct RetryPolicyValidationTests {
    @Test(
        "a ceiling below the unit, a unit that is not positive, or a jitter outside 0..<1 is refused with a typed error",
        arguments: [
            (Duration.seconds(1), Duration.zero, 0.2), (.seconds(1), .milliseconds(999), 0.2),
            (.zero, .seconds(1), 0.2),
            (.seconds(-1), .seconds(1), 0.2), (.seconds(1), .seconds(300), 1.0), (.seconds(1), .seconds(300), -0.1),
        ])
    func refused(unit: Duration, ceiling: Duration, jitter: Double) {
        let error = #expect(throws: ConfigurationError.self) {
            try RetryPolicy(unit: unit, ceiling: ceiling, jitter: jitter)
        }
        #expect(error?.code == .outOfRange)
    }

    @Test("a ceiling equal to the unit is the smallest accepted: every retry waits one unit")
    func ceilingEqualToUnit() throws {
        let policy = try RetryPolicy(unit: .seconds(2), ceiling: .seconds(2), jitter: 0)
        var random = SeededRandomNumberGenerator(seed: 1)
        for failures in 1...10 { #expect(policy.delay(failures: failures, using: &random) == .seconds(2)) }
    }

    @Test("a negative number of session checks is refused")
    func negativeChecks() {
        let error = #expect(throws: ConfigurationError.self) { try SessionCheckPolicy(checks: -1, backoff: .spec) }
        #expect(error?.code == .outOfRange)
    }
}
