import LifelineCore
import Synchronization

/// What the client knows of Stoat's rate-limit buckets, shared by every call of one ``StoatAPI`` (and its
/// copies), so that concurrent calls wait for an empty bucket instead of hammering the server.
///
/// stoatchat names a bucket only in its answers (`X-RateLimit-Bucket`, a hash of the caller, the bucket
/// and the resource), so the limiter learns which bucket a route (method and path, ids included) falls
/// in from the route's last answer; routes the server puts in one bucket share its state. Routes and
/// buckets are keyed by their origin too (scheme, host and port): one host's answers never hold back another's.
/// Times are offsets on the API's injected clock. See <doc:LifelineStoat#Rate-limits>.
///
/// What a server says is bounded before it is believed:
/// - every wait it states (`retry_after`, `X-RateLimit-Reset-After`) is capped at ``longestWait`` (10 s,
///   stoatchat's window): a bucket believed empty is tried again once that has passed, so no answer can shut a
///   route for longer;
/// - the tables hold at most ``capacity`` routes and as many buckets: buckets that have reset are dropped first,
///   then those that reset soonest, so distinct routes or ids never grow them without bound.
final class StoatRateLimiter: Sendable {
    /// The longest wait a server's answer can impose: 10 seconds. stoatchat's buckets refill 10 seconds after
    /// their first request (`crates/core/ratelimits`), so no honest answer asks for more; a longer wait is
    /// waited for this long, and the next request tells whether the bucket refilled.
    static let longestWait: Duration = .seconds(10)

    /// The most routes, and the most buckets, the limiter remembers.
    static let capacity = 1024

    /// A route of one origin: `https://api.stoat.chat:443` and `GET /channels/X/messages`.
    struct Route: Hashable, Sendable {
        /// The scheme, host (lower case) and port the request went to.
        var origin: String
        /// The method and path.
        var name: String
    }

    /// One bucket: the calls left and when it refills.
    struct Bucket {
        /// Calls the bucket allows before it resets, counting calls sent but not yet answered.
        var remaining: Int
        /// When the bucket resets, on the API's clock.
        var resetsAt: Duration
    }

    /// A bucket's key: its origin and the server's name for it (or `route:` and the route, for a 429 that named
    /// none).
    private struct BucketKey: Hashable {
        var origin: String
        var name: String
    }

    private struct State {
        /// The bucket each route's last answer named.
        var bucketOfRoute: [Route: BucketKey] = [:]
        var buckets: [BucketKey: Bucket] = [:]
    }

    private let state = Mutex(State())

    /// How many routes and buckets the limiter remembers now.
    var counts: (routes: Int, buckets: Int) {
        state.withLock { ($0.bucketOfRoute.count, $0.buckets.count) }
    }

    /// How long a call on `route` must wait before it is sent, or `nil` when it may go now. A call that may
    /// go takes one of its bucket's remaining calls, so concurrent calls do not all see the last one free.
    func reserve(route: Route, now: Duration) -> Duration? {
        state.withLock { state in
            guard let key = state.bucketOfRoute[route], var bucket = state.buckets[key] else { return nil }
            guard now < bucket.resetsAt else {
                // The bucket has refilled; its next answer says how full it is.
                state.buckets[key] = nil
                return nil
            }
            guard bucket.remaining > 0 else { return bucket.resetsAt - now }
            bucket.remaining -= 1
            state.buckets[key] = bucket
            return nil
        }
    }

    /// Records what an answer's `X-RateLimit-Bucket`, `-Remaining` and `-Reset-After` say (already read with
    /// ``calls(_:)`` and ``wait(milliseconds:)``). An answer without them changes nothing.
    func record(route: Route, bucket name: String?, remaining: Int?, resetAfter: Duration?, now: Duration) {
        guard let name, let remaining, let resetAfter else { return }
        state.withLock { state in
            let key = BucketKey(origin: route.origin, name: name)
            state.bucketOfRoute[route] = key
            state.buckets[key] = Bucket(remaining: max(0, remaining), resetsAt: now + Self.bounded(resetAfter))
            Self.prune(&state, now: now)
        }
    }

    /// Records a `429`: the route's bucket (named by the answer, or the route's own) is empty until
    /// `retryAfter` (at most ``longestWait``) from now.
    func exhausted(route: Route, bucket name: String?, retryAfter: Duration, now: Duration) {
        state.withLock { state in
            let key =
                name.map { BucketKey(origin: route.origin, name: $0) } ?? state.bucketOfRoute[route]
                ?? BucketKey(origin: route.origin, name: "route:\(route.name)")
            state.bucketOfRoute[route] = key
            state.buckets[key] = Bucket(remaining: 0, resetsAt: now + Self.bounded(retryAfter))
            Self.prune(&state, now: now)
        }
    }

    // MARK: - Reading what the server says

    /// A wait a server states in milliseconds (a header's text or a body's number), capped at ``longestWait``;
    /// `nil` for something that is not a number. Negative is no wait.
    static func wait(milliseconds text: String) -> Duration? {
        Double(text).flatMap(wait(milliseconds:))
    }

    /// A wait of `milliseconds`, capped at ``longestWait``; `nil` for not a number.
    static func wait(milliseconds: Double) -> Duration? {
        guard !milliseconds.isNaN else { return nil }
        return bounded(ServerHorizon.wait(milliseconds: milliseconds))
    }

    /// A count of calls a server states (`X-RateLimit-Remaining`), clamped to `0 … 1 000 000`; `nil` for
    /// something that is not a number.
    static func calls(_ text: String) -> Int? {
        guard let value = Double(text), !value.isNaN else { return nil }
        return Int(min(max(value, 0), 1_000_000))
    }

    private static func bounded(_ wait: Duration) -> Duration {
        min(max(wait, .zero), longestWait)
    }

    // MARK: - Keeping the tables bounded

    /// Keeps at most ``capacity`` buckets and routes: drops the buckets that have reset (nothing is known of
    /// them any more), then those that reset soonest, then the routes whose bucket is gone. Runs only when a
    /// table is over capacity, and then frees a quarter of it, so its cost is spread over many answers.
    private static func prune(_ state: inout State, now: Duration) {
        guard state.buckets.count > capacity || state.bucketOfRoute.count > capacity else { return }
        let target = capacity * 3 / 4
        state.buckets = state.buckets.filter { $0.value.resetsAt > now }
        if state.buckets.count > target {
            let soonest = state.buckets.sorted { $0.value.resetsAt < $1.value.resetsAt }
            for (key, _) in soonest.prefix(state.buckets.count - target) { state.buckets[key] = nil }
        }
        state.bucketOfRoute = state.bucketOfRoute.filter { state.buckets[$0.value] != nil }
        if state.bucketOfRoute.count > target {
            // More live routes than buckets can only come from many routes sharing buckets: any of them may go.
            for route in state.bucketOfRoute.keys.prefix(state.bucketOfRoute.count - target) {
                state.bucketOfRoute[route] = nil
            }
        }
    }
}
