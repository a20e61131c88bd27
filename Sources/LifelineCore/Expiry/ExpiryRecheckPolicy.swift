/// How long to wait before checking again on an operation the server still lists after its expiry.
///
/// The client's estimate of the server's clock may be early, or the server slow to remove what expired;
/// either way a refresh can still return an operation the client thought expired. Checking again at once
/// would loop; the policy spaces the checks out: ``initial``, then twice as long each time, never longer
/// than ``ceiling`` (1 s, 2 s, 4 s … 60 s by default). No jitter: each client checks on its own list.
public struct ExpiryRecheckPolicy: Sendable, Hashable {
    /// The wait before the first check again. Default 1 s.
    public let initial: Duration

    /// The longest wait. Default 60 s.
    public let ceiling: Duration

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - initial: The first wait. Must be positive.
    ///   - ceiling: The longest wait. Must be at least `initial`.
    public init(initial: Duration = .seconds(1), ceiling: Duration = .seconds(60)) {
        precondition(initial > .zero, "ExpiryRecheckPolicy.initial must be positive, got \(initial)")
        precondition(ceiling >= initial, "ExpiryRecheckPolicy.ceiling must be at least initial, got \(ceiling)")
        self.initial = initial
        self.ceiling = ceiling
    }

    /// The default policy: 1 s, doubling, at most 60 s.
    public static let standard = ExpiryRecheckPolicy()

    /// The wait before the next check after `checks` checks that still found the operation listed.
    ///
    /// - Parameter checks: How many times the operation was found listed after its expiry before; 0 for
    ///   the first time. Negative values count as 0.
    /// - Returns: `min(initial × 2^checks, ceiling)`.
    public func delay(afterChecks checks: Int) -> Duration {
        var delay = initial
        for _ in 0..<max(0, checks) {
            guard delay < ceiling else { break }
            delay = delay * 2
        }
        return min(delay, ceiling)
    }
}
