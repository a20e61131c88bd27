import Synchronization

/// What the client knows of Stoat's rate-limit buckets, shared by every call of one ``StoatAPI`` (and its
/// copies), so that concurrent calls wait for an empty bucket instead of hammering the server.
///
/// stoatchat names a bucket only in its answers (`X-RateLimit-Bucket`, a hash of the caller, the bucket
/// and the resource), so the limiter learns which bucket a route (method and path, ids included) falls
/// in from the route's last answer; routes the server puts in one bucket share its state. Times are
/// offsets on the API's injected clock. See <doc:LifelineStoat#Rate-limits>.
final class StoatRateLimiter: Sendable {
    /// One bucket: the calls left and when it refills.
    struct Bucket {
        /// Calls the bucket allows before it resets, counting calls sent but not yet answered.
        var remaining: Int
        /// When the bucket resets, on the API's clock.
        var resetsAt: Duration
    }

    private struct State {
        /// The bucket each route's last answer named.
        var bucketOfRoute: [String: String] = [:]
        /// The buckets, by the server's name (or `route:` and the route, for a 429 that named none).
        var buckets: [String: Bucket] = [:]
    }

    private let state = Mutex(State())

    /// How long a call on `route` must wait before it is sent, or `nil` when it may go now. A call that may
    /// go takes one of its bucket's remaining calls, so concurrent calls do not all see the last one free.
    func reserve(route: String, now: Duration) -> Duration? {
        state.withLock { state in
            guard let name = state.bucketOfRoute[route], var bucket = state.buckets[name] else { return nil }
            guard now < bucket.resetsAt else {
                // The bucket has refilled; its next answer says how full it is.
                state.buckets[name] = nil
                return nil
            }
            guard bucket.remaining > 0 else { return bucket.resetsAt - now }
            bucket.remaining -= 1
            state.buckets[name] = bucket
            return nil
        }
    }

    /// Records what an answer's `X-RateLimit-Bucket`, `-Remaining` and `-Reset-After` (milliseconds) say.
    /// An answer without them changes nothing.
    func record(route: String, bucket name: String?, remaining: Int?, resetAfter: Duration?, now: Duration) {
        guard let name, let remaining, let resetAfter else { return }
        state.withLock { state in
            state.bucketOfRoute[route] = name
            state.buckets[name] = Bucket(remaining: max(0, remaining), resetsAt: now + max(.zero, resetAfter))
        }
    }

    /// Records a `429`: the route's bucket (named by the answer, or the route's own) is empty until
    /// `retryAfter` from now.
    func exhausted(route: String, bucket name: String?, retryAfter: Duration, now: Duration) {
        state.withLock { state in
            let name = name ?? state.bucketOfRoute[route] ?? "route:\(route)"
            state.bucketOfRoute[route] = name
            state.buckets[name] = Bucket(remaining: 0, resetsAt: now + max(.zero, retryAfter))
        }
    }
}
