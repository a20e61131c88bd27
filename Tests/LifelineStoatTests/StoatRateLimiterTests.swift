import LifelineCore
import LifelineTesting
import Synchronization
import Testing

@testable import LifelineStoat

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a server's rate-limit answers can do to the client: never more than ``StoatRateLimiter/longestWait``, only
/// to its own origin, never to the health service's calls (or theirs to the API's), and never grow the tables.
@Suite("The rate limiter against absurd answers", .hangBound)
struct StoatRateLimiterTests {
    static let me = #"{"_id":"U","username":"me","discriminator":"0001"}"#
    static let health = #"{"version":"1","poll_rate":60000}"#

    /// Absurd waits, as a `429` body's `retry_after` (milliseconds).
    static let absurdBodies = [
        "1e300", "9223372036854775807", "18446744073709551615", "-9223372036854775808", "1.7976931348623157e308",
    ]

    @Test(
        "a 429 with an absurd retry_after is waited out for the cap, then the call is sent again",
        arguments: absurdBodies)
    func absurdRetryAfter(_ value: String) async throws {
        let answered = Mutex(0)
        try await withScriptedServer({ _ in
            let count = answered.withLock { count in
                count += 1
                return count
            }
            return count == 1 ? .json(429, #"{"retry_after":\#(value)}"#) : .json(200, Self.me)
        }) { server in
            let clock = TestClock()
            let api = StoatAPI(baseURL: server.url, requestTimeout: .failureBound, clock: clock)
            let call = Task { () async throws(StoatAPIError) in
                try await api.currentUser(SessionCredentials(token: "T"))
            }
            let sleep = await clock.nextSleep()
            // A negative wait is no wait: waited out for stoatchat's millisecond.
            let expected: Duration = value.hasPrefix("-") ? .milliseconds(1) : StoatRateLimiter.longestWait
            #expect(sleep == TestClock.Instant(offset: expected))
            clock.advance(to: sleep)
            let user = try await call.value
            #expect(user.id == "U")
            #expect(server.requests.count == 2)
        }
    }

    @Test(
        "absurd X-RateLimit headers empty a bucket for the cap at most, and the next call goes once it has passed",
        arguments: ["9223372036854775807", "1e300", "inf", "18446744073709551616"])
    func absurdResetAfter(_ resetAfter: String) async throws {
        let answered = Mutex(0)
        try await withScriptedServer({ _ in
            let count = answered.withLock { count in
                count += 1
                return count
            }
            return .json(
                200, Self.me,
                headers: [
                    ("X-RateLimit-Bucket", "users"),
                    ("X-RateLimit-Remaining", count == 1 ? "-9223372036854775808" : "5"),
                    ("X-RateLimit-Reset-After", resetAfter), ("X-RateLimit-Limit", "18446744073709551615"),
                ])
        }) { server in
            let clock = TestClock()
            // A deadline shorter than the cap: the second call fails at once, without being sent.
            let api = StoatAPI(baseURL: server.url, requestTimeout: .seconds(5), clock: clock)
            let credentials = SessionCredentials(token: "T")
            _ = try await api.currentUser(credentials)
            let refused = try await apiError { () async throws(StoatAPIError) in try await api.currentUser(credentials)
            }
            #expect(refused.code == .rateLimited)
            #expect(refused.retryAfter == StoatRateLimiter.longestWait)
            #expect(server.requests.count == 1)
            // Once the capped wait has passed, the route is open again.
            clock.advance(by: StoatRateLimiter.longestWait)
            #expect(try await api.currentUser(credentials).id == "U")
            #expect(server.requests.count == 2)
        }
    }

    @Test("after five absurd 429s the call fails, and the next call is sent once the capped wait has passed")
    func routeIsNotShutForTheRun() async throws {
        let refusing = Mutex(true)
        try await withScriptedServer({ _ in
            refusing.withLock { $0 }
                ? .json(429, #"{"retry_after":1e300}"#, headers: [("X-RateLimit-Reset-After", "9223372036854775807")])
                : .json(200, Self.me)
        }) { server in
            let clock = TestClock()
            let api = StoatAPI(baseURL: server.url, requestTimeout: .seconds(300), clock: clock)
            let credentials = SessionCredentials(token: "T")
            let call = Task {
                try await apiError { () async throws(StoatAPIError) in try await api.currentUser(credentials) }
            }
            for _ in 1...StoatAPI.maximumRateLimitRetries {
                let sleep = await clock.nextSleep()
                #expect(sleep == clock.now.advanced(by: StoatRateLimiter.longestWait))
                clock.advance(to: sleep)
            }
            let error = try await call.value
            #expect(error.code == .rateLimited)
            refusing.withLock { $0 = false }
            let next = Task { () async throws(StoatAPIError) in try await api.currentUser(credentials) }
            let sleep = await clock.nextSleep()
            #expect(sleep == clock.now.advanced(by: StoatRateLimiter.longestWait), "the last 429's capped wait")
            clock.advance(to: sleep)
            let user = try await next.value
            #expect(user.id == "U")
        }
    }

    @Test("buckets are keyed by origin: an empty bucket on one host holds back no call to another")
    func bucketsByOrigin() async throws {
        let emptying: @Sendable (RecordedRequest) -> ScriptedResponse = { _ in
            .json(
                200, Self.health,
                headers: [
                    ("X-RateLimit-Bucket", "any"), ("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset-After", "5000"),
                ])
        }
        try await withScriptedServer(emptying) { first in
            try await withScriptedServer({ _ in .json(200, Self.health) }) { second in
                let clock = TestClock()
                let api = StoatAPI(baseURL: first.url, requestTimeout: .failureBound, clock: clock)
                // The same route name (`GET /api/health`) on two hosts.
                _ = try await api.health(url: first.url.appendingPathComponent("api/health"))
                _ = try await api.health(url: second.url.appendingPathComponent("api/health"))
                #expect(second.requests.count == 1, "sent at once")
                #expect(clock.pendingSleeps == 0)
            }
        }
    }

    @Test("the health service shares no state with the API: its 429 in a shared bucket holds back no API call")
    func healthHasItsOwnLimiter() async throws {
        try await withScriptedServer({ request in
            let headers = [
                ("X-RateLimit-Bucket", "any"), ("X-RateLimit-Remaining", "5"), ("X-RateLimit-Reset-After", "9000"),
            ]
            return request.path == "/api/health"
                ? .json(429, #"{"retry_after":9000}"#, headers: [("X-RateLimit-Bucket", "any")])
                : .json(200, Self.me, headers: headers)
        }) { server in
            let clock = TestClock()
            let api = StoatAPI(baseURL: server.url, requestTimeout: .seconds(5), clock: clock)
            let credentials = SessionCredentials(token: "T")
            // The API learns that `GET /users/@me` is in the server's bucket `any`.
            _ = try await api.currentUser(credentials)
            let health = StoatHealthService(api: api, url: server.url.appendingPathComponent("api/health"))
            await #expect(throws: StoatAPIError.self) { try await health.status() }
            // The health host emptied `any` for its own limiter only.
            #expect(try await api.currentUser(credentials).id == "U")
            #expect(clock.pendingSleeps == 0)
            #expect(server.requests.filter { $0.path == "/users/@me" }.count == 2)
        }
    }

    @Test("the tables stay bounded however many distinct routes and buckets the answers name")
    func boundedTables() {
        let limiter = StoatRateLimiter()
        for index in 0..<20_000 {
            let route = StoatRateLimiter.Route(origin: "https://api.stoat.chat:443", name: "GET /channels/\(index)")
            // Half of them stay live for a minute, the other half reset at once.
            let reset: Duration = index.isMultiple(of: 2) ? .seconds(10) : .zero
            limiter.record(route: route, bucket: "B\(index)", remaining: 1, resetAfter: reset, now: .seconds(1))
            if index.isMultiple(of: 3) {
                limiter.exhausted(route: route, bucket: nil, retryAfter: .seconds(5), now: .seconds(1))
            }
        }
        let counts = limiter.counts
        #expect(counts.routes <= StoatRateLimiter.capacity)
        #expect(counts.buckets <= StoatRateLimiter.capacity)
        #expect(counts.buckets > StoatRateLimiter.capacity / 2, "live buckets are kept up to the bound")
    }

    @Test("what a server states is read within bounds: waits capped, counts clamped, not-a-number ignored")
    func readingTheHeaders() {
        #expect(StoatRateLimiter.wait(milliseconds: "250") == .milliseconds(250))
        #expect(StoatRateLimiter.wait(milliseconds: "9223372036854775807") == StoatRateLimiter.longestWait)
        #expect(StoatRateLimiter.wait(milliseconds: "1e300") == StoatRateLimiter.longestWait)
        #expect(StoatRateLimiter.wait(milliseconds: "-5") == .zero)
        #expect(StoatRateLimiter.wait(milliseconds: "nan") == nil)
        #expect(StoatRateLimiter.wait(milliseconds: "soon") == nil)
        #expect(StoatRateLimiter.calls("-9223372036854775808") == 0)
        #expect(StoatRateLimiter.calls("18446744073709551615") == 1_000_000)
        #expect(StoatRateLimiter.calls("7") == 7)
        #expect(StoatRateLimiter.calls("nan") == nil)
    }
}
