/// How long DISCONNECTED waits before RETRY: `(2^x − 1) × unit × U(1 − jitter, 1 + jitter)`.
///
/// `x` is the failure count after DISCONNECTED incremented it, so the first retry comes after about one
/// unit, the second after three, the third after seven. The specification sets no upper bound; Lifeline
/// caps `(2^x − 1) × unit` at ``ceiling`` *before* applying the jitter, so that sessions that have failed
/// for a long time still spread their retries out instead of retrying in lockstep (see <doc:SessionLifecycle>).
/// The random source is always passed in, so tests choose it.
public struct RetryPolicy: Sendable, Hashable {
    /// The delay of the first retry before jitter: the formula's "seconds". Default 1 s.
    public let unit: Duration

    /// The largest delay before jitter. Default 300 s.
    public let ceiling: Duration

    /// The relative jitter: 0.2 draws the factor from `0.8..<1.2`.
    public let jitter: Double

    /// ``unit`` and ``ceiling`` in nanoseconds, computed once: the delay is drawn on every DISCONNECTED
    /// entry, and `Duration`'s 128-bit arithmetic costs more than the rest of a transition.
    private let unitNanoseconds: Double
    private let ceilingNanoseconds: Double

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - unit: The delay of the first retry before jitter. Must be positive.
    ///   - ceiling: The largest delay before jitter. Must be at least `unit`: a smaller ceiling would make
    ///     every retry come sooner than the first, down to a loop that reconnects without pause.
    ///   - jitter: The relative jitter, from 0 (none) up to but excluding 1.
    /// - Throws: ``ConfigurationError`` with ``ConfigurationErrorCode/outOfRange`` when an argument is
    ///   outside its range.
    public init(
        unit: Duration = .seconds(1), ceiling: Duration = .seconds(300), jitter: Double = 0.2
    ) throws(ConfigurationError) {
        guard unit > .zero else {
            throw ConfigurationError(code: .outOfRange, message: "The retry unit must be positive, got \(unit).")
        }
        guard ceiling >= unit else {
            throw ConfigurationError(
                code: .outOfRange, message: "The retry ceiling (\(ceiling)) must be at least the unit (\(unit)).")
        }
        guard (0..<1).contains(jitter) else {
            throw ConfigurationError(code: .outOfRange, message: "The retry jitter must be in 0..<1, got \(jitter).")
        }
        self.unit = unit
        self.ceiling = ceiling
        self.jitter = jitter
        unitNanoseconds = unit.secondsValue * 1e9
        ceilingNanoseconds = ceiling.secondsValue * 1e9
    }

    /// The specification's policy: a 1 s unit, ±20 % jitter, and Lifeline's 300 s ceiling.
    public static let spec = RetryPolicy(checkedUnit: .seconds(1), ceiling: .seconds(300), jitter: 0.2)

    /// A policy from constants known to be valid (the library's own defaults).
    init(checkedUnit unit: Duration, ceiling: Duration, jitter: Double) {
        do {
            try self.init(unit: unit, ceiling: ceiling, jitter: jitter)
        } catch {
            preconditionFailure("a built-in retry policy is invalid: \(error)")
        }
    }

    /// The delay before jitter after `failures` failures: `min((2^failures − 1) × unit, ceiling)`.
    ///
    /// - Parameter failures: The failure count after DISCONNECTED incremented it; values below 1 count as 1.
    public func nominalDelay(failures: Int) -> Duration {
        .nanoseconds(Int64(nominalNanoseconds(failures: failures).rounded()))
    }

    private func nominalNanoseconds(failures: Int) -> Double {
        let x = max(1, failures)
        let multiplier = x >= 62 ? Double.infinity : Double((Int64(1) << x) - 1)
        return min(unitNanoseconds * multiplier, ceilingNanoseconds)
    }

    /// The jittered delay after `failures` failures: ``nominalDelay(failures:)`` times a factor drawn
    /// uniformly from `(1 − jitter)..<(1 + jitter)`, to the nanosecond.
    ///
    /// - Parameters:
    ///   - failures: The failure count after DISCONNECTED incremented it.
    ///   - generator: The random source; tests pass a seeded one. One 64-bit draw per delay.
    public func delay(failures: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        // 53 random bits make a uniform Double in [0, 1), as `Double.random(in:)` does, without its
        // generic overhead across the module boundary.
        let unitInterval = Double(generator.next() >> 11) * 0x1p-53
        let factor = 1 - jitter + 2 * jitter * unitInterval
        return .nanoseconds(Int64((nominalNanoseconds(failures: failures) * factor).rounded()))
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`. `package`, so every Lifeline module shares one conversion.
    package var secondsValue: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) * 1e-18
    }
}
