/// How many REST requests each bucket allows per window, as stoatchat's `DeltaRatelimits`
/// (`crates/delta/src/util/ratelimits.rs`) and `revolt_ratelimits` define them.
///
/// A request's bucket comes from its path and method (``bucket(method:path:)``); it is counted per caller (the
/// session when `X-Session-Token` is valid, the peer's address otherwise) and per resource (the channel or
/// server in the path, where stoatchat keys by it). A full bucket answers 429 `{"retry_after": ms}` until its
/// window, which starts at its first request, ends.
public struct RateLimitPolicy: Sendable, Equatable {
    /// The window every bucket counts over (10 s).
    public var window: Duration
    /// Requests allowed per window, by bucket name.
    public var limits: [String: Int]
    /// Requests allowed per window for a bucket not in ``limits`` (stoatchat's `any`: 20).
    public var defaultLimit: Int
    /// Whether requests are counted and limited at all; when off, no rate-limit headers are written either.
    public var isEnabled: Bool

    /// Creates a policy.
    public init(window: Duration, limits: [String: Int], defaultLimit: Int, isEnabled: Bool = true) {
        self.window = window
        self.limits = limits
        self.defaultLimit = defaultLimit
        self.isEnabled = isEnabled
    }

    /// Stoat's buckets: `user_edit` 2, `users` 20, `bots` 10, `messaging` 10, `channels` 15, `servers` 5,
    /// `auth` 15, `auth_delete` 255, `default_avatar` 255, `swagger` 100, `safety` 15, `safety_report` 3, any
    /// other 20, per 10 s.
    public static let stoat = RateLimitPolicy(
        window: .seconds(10),
        limits: [
            "user_edit": 2, "users": 20, "bots": 10, "messaging": 10, "channels": 15, "servers": 5, "auth": 15,
            "auth_delete": 255, "default_avatar": 255, "swagger": 100, "safety": 15, "safety_report": 3,
        ],
        defaultLimit: 20)

    /// No rate limiting (for benchmarks that measure the client, not the server's patience).
    public static let disabled = RateLimitPolicy(window: .seconds(10), limits: [:], defaultLimit: 20, isEnabled: false)

    /// The requests `bucket` allows per window.
    public func limit(forBucket bucket: String) -> Int {
        limits[bucket] ?? defaultLimit
    }

    /// The bucket and resource of a request, as stoatchat resolves them from the path's segments (after an
    /// optional `0.8` version segment) and the method.
    public static func bucket(method: String, path: String) -> (bucket: String, resource: String?) {
        var segments =
            path.split(separator: "?", maxSplits: 1).first.map {
                $0.split(separator: "/").map(String.init)
            } ?? []
        if segments.first == "0.8" { segments.removeFirst() }
        guard let segment = segments.first else { return ("any", nil) }
        let resource = segments.count > 1 ? segments[1] : nil
        let extra = segments.count > 2 ? segments[2] : nil
        switch segment {
        case "users":
            if method == "PATCH" { return ("user_edit", resource) }
            return extra == "default_avatar" ? ("default_avatar", nil) : ("users", nil)
        case "bots":
            return ("bots", nil)
        case "channels" where resource != nil:
            if method == "POST", extra == "messages" { return ("messaging", resource) }
            return ("channels", resource)
        case "servers" where resource != nil:
            return ("servers", resource)
        case "auth":
            return method == "DELETE" ? ("auth_delete", nil) : ("auth", nil)
        case "swagger":
            return ("swagger", nil)
        case "safety":
            return resource == "report" ? ("safety_report", "report") : ("safety", nil)
        default:
            return ("any", nil)
        }
    }
}
