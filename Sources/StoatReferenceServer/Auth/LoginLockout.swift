#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// One account's lockout bookkeeping under a ``LoginLockoutPolicy``, as stoatchat keeps it: a count of wrong
/// passwords and the expiry of the current lock. Pure: time comes in as an argument.
///
/// A login to a locked account is refused before its password is checked, so it does not count.
public struct LoginLockout: Sendable, Equatable, Codable {
    /// Wrong passwords since the last correct one.
    public private(set) var attempts = 0
    /// Until when the account is locked, if a lock was set.
    public private(set) var lockedUntil: Date?

    /// A fresh, unlocked account.
    public init() {}

    /// Whether a login attempt at `now` is refused with `LockedOut`.
    public func isLocked(at now: Date) -> Bool {
        guard let lockedUntil else { return false }
        return lockedUntil > now
    }

    /// Records a wrong password at `now`; returns the lock it set, if any.
    @discardableResult
    public mutating func recordFailure(at now: Date, policy: LoginLockoutPolicy) -> Date? {
        attempts += 1
        guard attempts >= policy.threshold else { return nil }
        let seconds = policy.durations[min(attempts - policy.threshold, policy.durations.count - 1)]
        let until = now.addingTimeInterval(TimeInterval(seconds))
        lockedUntil = until
        return until
    }

    /// Records a correct password: the lockout is cleared.
    public mutating func recordSuccess() {
        self = LoginLockout()
    }

    enum CodingKeys: String, CodingKey {
        case attempts, lockedUntil
    }

    /// Decodes the bookkeeping; fields of older data files that are missing take their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        attempts = try container.decodeIfPresent(Int.self, forKey: .attempts) ?? 0
        lockedUntil = try container.decodeIfPresent(Date.self, forKey: .lockedUntil)
    }
}
