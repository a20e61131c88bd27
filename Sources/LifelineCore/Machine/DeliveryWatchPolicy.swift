/// How long the lifecycle waits, after the user's own send succeeded over REST, for the socket to deliver
/// that message's event before it calls the socket deaf: `deadline × U(1 − jitter, 1 + jitter)`.
///
/// A socket can answer every `Ping` and still deliver nothing (stoatchat#649: an events bus that stopped),
/// which the heartbeat cannot see. The user's own message is the proof that it still delivers: the server
/// has stored it (the REST answer carries it) and publishes its event to every socket of the channel. When
/// the event does not come within the deadline, CONNECTED takes TEMPORARY_FAILURE with
/// ``TemporaryFailureCode/deliveryStalled``, and the reconnect (and the catch-up after it) brings what
/// was missed. The jitter spreads the reconnects of many clients behind one lagging events bus, so they do
/// not all come back at once. See <doc:SessionLifecycle>.
public struct DeliveryWatchPolicy: Sendable, Hashable {
    /// The deadline before jitter. Default 15 s: an events bus that lags more than that is as good as deaf.
    public let deadline: Duration

    /// The relative jitter: 0.2 draws the factor from `0.8..<1.2` (12–18 s by default).
    public let jitter: Double

    /// Whether the lifecycle watches deliveries at all.
    public var isEnabled: Bool { deadline > .zero }

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - deadline: The deadline before jitter; must be positive.
    ///   - jitter: The relative jitter, from 0 (none) up to but excluding 1.
    /// - Throws: ``ConfigurationError`` with ``ConfigurationErrorCode/outOfRange`` when an argument is
    ///   outside its range.
    public init(deadline: Duration = .seconds(15), jitter: Double = 0.2) throws(ConfigurationError) {
        guard deadline > .zero else {
            throw ConfigurationError(
                code: .outOfRange, message: "The delivery deadline must be positive, got \(deadline).")
        }
        guard (0..<1).contains(jitter) else {
            throw ConfigurationError(
                code: .outOfRange, message: "The delivery deadline's jitter must be in 0..<1, got \(jitter).")
        }
        self.deadline = deadline
        self.jitter = jitter
    }

    private init(known deadline: Duration, jitter: Double) {
        self.deadline = deadline
        self.jitter = jitter
    }

    /// 15 s ± 20 %.
    public static let standard = DeliveryWatchPolicy(known: .seconds(15), jitter: 0.2)

    /// No watch: a deaf socket goes unnoticed until something else fails.
    public static let disabled = DeliveryWatchPolicy(known: .zero, jitter: 0)

    /// The jittered deadline: ``deadline`` times a factor drawn uniformly from `(1 − jitter)..<(1 + jitter)`.
    ///
    /// - Parameter generator: The random source; one 64-bit draw.
    public func delay(using generator: inout some RandomNumberGenerator) -> Duration {
        let unitInterval = Double(generator.next() >> 11) * 0x1p-53
        let factor = 1 - jitter + 2 * jitter * unitInterval
        return .nanoseconds(Int64((deadline.secondsValue * 1e9 * factor).rounded()))
    }
}
