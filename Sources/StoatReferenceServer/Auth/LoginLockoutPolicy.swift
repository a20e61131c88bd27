/// When repeated wrong passwords lock an account out, and for how long.
///
/// Wrong passwords are counted until a correct one; from the ``threshold``-th on, each one locks the account:
/// the first lock lasts the first of ``durations``, the next the second, and so on, the last repeating.
/// Stoat's (`crates/delta/src/routes/session/login.rs`): the 3rd wrong password locks for 60 s, the 4th for
/// 300 s, every later one for 3600 s.
public struct LoginLockoutPolicy: Sendable, Equatable {
    /// The wrong password that first locks the account (3: the third).
    public var threshold: Int
    /// Lock durations in seconds, for the threshold-th wrong password and each later one; the last repeats.
    public var durations: [Int]

    /// Creates a policy.
    public init(threshold: Int, durations: [Int]) {
        precondition(threshold > 0 && !durations.isEmpty, "a lockout needs a threshold and a duration")
        self.threshold = threshold
        self.durations = durations
    }

    /// Stoat's: the 3rd wrong password locks for 60 s, the 4th for 300 s, every later one for 3600 s.
    public static let stoat = LoginLockoutPolicy(threshold: 3, durations: [60, 300, 3600])
}
