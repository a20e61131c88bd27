#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// When repeated wrong passwords lock an account out, and for how long.
///
/// Every ``threshold`` consecutive wrong passwords lock the account: the first lock lasts the first of
/// ``durations``, the next the second, and so on, the last repeating (Stoat: 60 s, 300 s, 3600 s). A correct
/// password resets the count. Pure: time comes in as an argument.
public struct LoginLockoutPolicy: Sendable, Equatable {
    /// Consecutive wrong passwords that lock the account.
    public var threshold: Int
    /// Lock durations in seconds, one per successive lock; the last repeats.
    public var durations: [Int]

    /// Creates a policy.
    public init(threshold: Int, durations: [Int]) {
        precondition(threshold > 0 && !durations.isEmpty, "a lockout needs a threshold and a duration")
        self.threshold = threshold
        self.durations = durations
    }

    /// Stoat's: every 3 wrong passwords lock for 60 s, then 300 s, then 3600 s.
    public static let stoat = LoginLockoutPolicy(threshold: 3, durations: [60, 300, 3600])
}

/// One account's lockout bookkeeping under a ``LoginLockoutPolicy``.
public struct LoginLockout: Sendable, Equatable, Codable {
    /// Wrong passwords since the last success or the last lock.
    public private(set) var failures = 0
    /// Locks applied since the last successful login.
    public private(set) var locks = 0
    /// Until when the account is locked, if it is.
    public private(set) var lockedUntil: Date?

    /// A fresh, unlocked account.
    public init() {}

    /// Whether a login attempt at `now` is refused with `LockedOut`.
    public func isLocked(at now: Date) -> Bool {
        guard let lockedUntil else { return false }
        return now < lockedUntil
    }

    /// Records a wrong password at `now`; returns the lock it triggered, if any.
    @discardableResult
    public mutating func recordFailure(at now: Date, policy: LoginLockoutPolicy) -> Date? {
        failures += 1
        guard failures >= policy.threshold else { return nil }
        let seconds = policy.durations[min(locks, policy.durations.count - 1)]
        locks += 1
        failures = 0
        let until = now.addingTimeInterval(TimeInterval(seconds))
        lockedUntil = until
        return until
    }

    /// Records a correct password: the count and the lock history start again.
    public mutating func recordSuccess() {
        self = LoginLockout()
    }
}
