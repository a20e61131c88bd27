import HTTPTypes
import Hummingbird
import NIOCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What every request to the Stoat API meets before and after its route, as stoatchat's Rocket fairings and
/// catchers do it (`crates/core/ratelimits/src/rocket.rs`, `crates/delta/src/main.rs`): the rate limiter, with
/// its four headers on every answer and a 429 `{"retry_after": ms}` for a full bucket; the default catcher for
/// an unknown route; and CORS for any origin. The admin API and the health endpoint are not stoatchat's and
/// pass untouched.
struct StoatPipeline: RouterMiddleware {
    typealias Context = ServerRequestContext

    let state: ServerState
    let policy: RateLimitPolicy

    static let exposedHeaders = "X-Ratelimit-Limit, X-Ratelimit-Bucket, X-Ratelimit-Remaining, X-Ratelimit-Reset-After"

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        if let token = request.headers[HTTPRoutes.sessionHeader] { await state.observeSessionToken(token) }
        if path == "/admin" || path.hasPrefix("/admin/") || path == "/api/health" {
            do {
                return try await next(request, context)
            } catch let error as HTTPError where error.status == .notFound || error.status == .methodNotAllowed {
                return AdminFailure.notFound.response
            }
        }
        // What stoatchat's debounced tasks committed by now is what this request reads.
        await state.settleLastMessageIDs()
        await state.countRequest(method: request.method.rawValue, path: path)
        let hostile = await state.hostileAnswer()
        if hostile == .refuse {
            var response = HTTPRoutes.json(HostileFault.refusalBody, status: 429)
            for (name, value) in HostileFault.refusalHeaders { response.headers[HTTPField.Name(name)!] = value }
            return response
        }
        var outcome: RateLimiter.Outcome?
        if policy.isEnabled {
            let peer = context.remoteAddress?.ipAddress ?? "unknown"
            let limited = await state.rateLimit(
                method: request.method.rawValue, path: path, sessionToken: request.headers[HTTPRoutes.sessionHeader],
                peer: peer)
            outcome = limited
            if !limited.allowed {
                var response = HTTPRoutes.json(.object(["retry_after": .int(limited.resetAfter)]), status: 429)
                decorate(&response, request: request, outcome: limited)
                return response
            }
        }
        var response: Response
        if request.method == .options {
            response = Response(status: .ok)
        } else {
            do {
                response = try await next(request, context)
            } catch let error as HTTPError where error.status == .notFound || error.status == .methodNotAllowed {
                response = HTTPRoutes.catcherResponse(status: 404, accept: request.headers[.accept])
            }
        }
        decorate(&response, request: request, outcome: outcome)
        if hostile == .decorate {
            for (name, value) in HostileFault.headers { response.headers[HTTPField.Name(name)!] = value }
        }
        return response
    }

    /// Adds the rate-limit headers and, for a request with an `Origin`, rocket_cors's answer to any origin.
    private func decorate(_ response: inout Response, request: Request, outcome: RateLimiter.Outcome?) {
        if let outcome {
            response.headers[HTTPField.Name("X-RateLimit-Limit")!] = String(outcome.limit)
            response.headers[HTTPField.Name("X-RateLimit-Bucket")!] = String(outcome.key)
            response.headers[HTTPField.Name("X-RateLimit-Remaining")!] = String(outcome.remaining)
            response.headers[HTTPField.Name("X-RateLimit-Reset-After")!] = String(outcome.resetAfter)
        }
        guard let origin = request.headers[.origin] else { return }
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.vary] = "Origin"
        if request.method == .options {
            response.headers[.accessControlAllowMethods] =
                "CONNECT, DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT, TRACE"
            if let requested = request.headers[.accessControlRequestHeaders] {
                response.headers[.accessControlAllowHeaders] = requested
            }
        } else {
            response.headers[.accessControlExposeHeaders] = Self.exposedHeaders
        }
    }
}

extension ServerState {
    /// Counts a request against its bucket (stoatchat's `Ratelimiter` guard): keyed by the session id when the
    /// session token is valid, by the peer's address otherwise, on the server's clock.
    func rateLimit(method: String, path: String, sessionToken: String?, peer: String) -> RateLimiter.Outcome {
        let policy = configuration.rateLimits
        let (bucket, resource) = RateLimitPolicy.bucket(method: method, path: path)
        let identifier = rateLimitIdentity(sessionToken: sessionToken) ?? peer
        let key = RateLimiter.key(identifier: identifier, bucket: bucket, resource: resource)
        let nowMilliseconds = Int64((now().timeIntervalSince1970 * 1000).rounded(.down))
        let outcome = rateLimiter.take(
            key: key, limit: policy.limit(forBucket: bucket), now: nowMilliseconds, window: policy.window.milliseconds)
        if !outcome.allowed {
            rateLimited += 1
            changed()
        }
        return outcome
    }
}

extension ServerState {
    /// Counts a Stoat REST request under its route, ids written `{id}` (what ``ReferenceServer/requestCounts()``
    /// reports).
    func countRequest(method: String, path: String) {
        let route = path.split(separator: "/").map { $0.count == 26 ? "{id}" : String($0) }.joined(separator: "/")
        requestCounts["\(method) /\(route)", default: 0] += 1
    }
}
