/// How the lifecycle confirms an `InvalidSession` before it believes it: how many checks of the session
/// (Stoat: `GET /onboard/hello`) must all answer "invalid", and how long to wait between them.
///
/// Stoat answers `InvalidSession` on the events socket also when its database fails while it looks the
/// session up, and its REST session guard turns a database error into 401 as well. Believing the first
/// answer would log every connected user out during a database incident. So a connection that meets
/// `InvalidSession` is closed, the session is checked over REST, and only ``checks`` definite "invalid"
/// answers in a row, spread over the ``backoff``'s delays, make a PERMANENT_FAILURE; a "valid" answer
/// or a check that fails any other way (a 5xx, a timeout, the network) is a TEMPORARY_FAILURE, and the
/// lifecycle goes on retrying.
///
/// The trade-off: the checks protect against an incident shorter than their window (about 8 s by
/// default: checks at 0, ≈2 s and ≈8 s); a longer incident still ends in ERROR, and a session that was
/// really revoked is shown as such that much later. ``single`` trusts one REST answer; ``none`` trusts the
/// socket at once.
public struct SessionCheckPolicy: Sendable, Hashable {
    /// How many checks must answer "invalid" before the session is given up. 0 trusts the socket's answer
    /// without checking.
    public let checks: Int

    /// The delay before each check after the first: `backoff.delay(failures: n)` after the n-th "invalid"
    /// answer, jittered with the session's random source.
    public let backoff: RetryPolicy

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - checks: How many "invalid" answers make the failure permanent; 0 for no check at all.
    ///   - backoff: The delays between checks.
    /// - Throws: ``ConfigurationError`` when `checks` is negative.
    public init(checks: Int, backoff: RetryPolicy) throws(ConfigurationError) {
        guard checks >= 0 else {
            throw ConfigurationError(
                code: .outOfRange, message: "The session checks must not be negative, got \(checks).")
        }
        self.checks = checks
        self.backoff = backoff
    }

    private init(known checks: Int, backoff: RetryPolicy) {
        self.checks = checks
        self.backoff = backoff
    }

    /// Three checks, ≈2 s then ≈6 s apart (±20 %): an `InvalidSession` must hold for about 8 s.
    public static let standard = SessionCheckPolicy(
        known: 3, backoff: RetryPolicy(checkedUnit: .seconds(2), ceiling: .seconds(60), jitter: 0.2))

    /// One check: a single REST answer that the session is invalid is believed.
    public static let single = SessionCheckPolicy(known: 1, backoff: .spec)

    /// No check: the socket's `InvalidSession` is believed at once (the behaviour before confirmation).
    public static let none = SessionCheckPolicy(known: 0, backoff: .spec)
}
