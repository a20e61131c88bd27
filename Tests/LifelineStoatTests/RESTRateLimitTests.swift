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

/// stoatchat's rate limiter: `429 {"retry_after": ms}` and the `X-RateLimit-*` headers, waited out on the
/// API's injected clock.
@Suite("REST rate limits", .hangBound)
struct RESTRateLimitTests {
    /// The headers stoatchat's rate limiter puts on every answer.
    static func bucket(_ name: String, remaining: Int, resetAfter: Int) -> [(String, String)] {
        [
            ("X-RateLimit-Limit", "20"), ("X-RateLimit-Bucket", name), ("X-RateLimit-Remaining", "\(remaining)"),
            ("X-RateLimit-Reset-After", "\(resetAfter)"),
        ]
    }

    static let me = #"{"_id":"U","username":"me","discriminator":"0001"}"#

    @Test("a 429 is waited out for its retry_after on the API's clock, then the call is sent again")
    func retryAfter() async throws {
        let answered = Mutex(0)
        try await withScriptedServer({ _ in
            let count = answered.withLock { count in
                count += 1
                return count
            }
            return count == 1
                ? .json(429, #"{"retry_after":250}"#, headers: Self.bucket("B", remaining: 0, resetAfter: 250))
                : .json(200, Self.me, headers: Self.bucket("B", remaining: 19, resetAfter: 10_000))
        }) { server in
            let clock = TestClock()
            let api = StoatAPI(baseURL: server.url, requestTimeout: .failureBound, clock: clock)
            let call = Task { () async throws(StoatAPIError) in
                try await api.currentUser(SessionCredentials(token: "T"))
            }
            #expect(await clock.nextSleep() == TestClock.Instant(offset: .milliseconds(250)))
            #expect(server.requests.count == 1)
            clock.advance(by: .milliseconds(250))
            let user = try await call.value
            #expect(user.id == "U")
            #expect(server.requests.count == 2)
        }
    }

    @Test("a call on a bucket known to be empty waits for its reset before it is sent")
    func emptyBucketWaits() async throws {
        try await withScriptedServer({ _ in
            .json(200, Self.me, headers: Self.bucket("users", remaining: 0, resetAfter: 1_000))
        }) { server in
            let clock = TestClock()
            let api = StoatAPI(baseURL: server.url, requestTimeout: .failureBound, clock: clock)
            let credentials = SessionCredentials(token: "T")
            _ = try await api.currentUser(credentials)
            let second = Task { () async throws(StoatAPIError) in try await api.currentUser(credentials) }
            #expect(await clock.nextSleep() == TestClock.Instant(offset: .milliseconds(1_000)))
            #expect(server.requests.count == 1)
            clock.advance(by: .seconds(1))
            _ = try await second.value
            #expect(server.requests.count == 2)
        }
    }

    @Test("concurrent calls share the bucket: with one call left, one is sent and the other waits")
    func concurrentCallsShareTheBucket() async throws {
        let answered = Mutex(0)
        try await withScriptedServer({ _ in
            // The first answer leaves one call in the bucket; every later one leaves none.
            let count = answered.withLock { count in
                count += 1
                return count
            }
            return .json(200, Self.me, headers: Self.bucket("users", remaining: count == 1 ? 1 : 0, resetAfter: 5_000))
        }) { server in
            let clock = TestClock()
            let api = StoatAPI(baseURL: server.url, requestTimeout: .failureBound, clock: clock)
            let credentials = SessionCredentials(token: "T")
            _ = try await api.currentUser(credentials)
            let first = Task { () async throws(StoatAPIError) in try await api.currentUser(credentials) }
            let second = Task { () async throws(StoatAPIError) in try await api.currentUser(credentials) }
            #expect(await clock.nextSleep() == TestClock.Instant(offset: .seconds(5)))
            await withTaskGroup(of: Void.self) { group in
                group.addTask { _ = await first.result }
                group.addTask { _ = await second.result }
                // The one that took the last call finishes; the other sleeps, unsent, until the reset.
                await group.next()
                #expect(server.requests.count == 2)
                clock.advance(by: .seconds(5))
                await group.waitForAll()
            }
            #expect(server.requests.count == 3)
            _ = try await first.value
            _ = try await second.value
        }
    }

    @Test("on a test clock an exchange is not cut at the deadline's time left, which the wall clock does not have")
    func testClockExchange() async throws {
        try await withScriptedServer({ _ in .json(200, Self.me) }) { server in
            // A nanosecond left on the test clock: as a wall-clock deadline the exchange would have ended before it
            // began; the test clock's deadline rules the waits only, and the exchange has its own backstop.
            let api = StoatAPI(baseURL: server.url, requestTimeout: .nanoseconds(1), clock: TestClock())
            let user = try await api.currentUser(SessionCredentials(token: "T"))
            #expect(user.id == "U")
            #expect(server.requests.count == 1)
        }
    }

    @Test("a 429 whose wait does not fit the call's deadline is a rateLimited error carrying the wait, at once")
    func waitBeyondDeadline() async throws {
        try await withScriptedServer({ _ in .json(429, #"{"retry_after":8000}"#) }) { server in
            let clock = TestClock()
            let api = StoatAPI(baseURL: server.url, requestTimeout: .seconds(5), clock: clock)
            let error = try await apiError { () async throws(StoatAPIError) in
                try await api.currentUser(SessionCredentials(token: "T"))
            }
            #expect(error.code == .rateLimited)
            #expect(error.retryAfter == .seconds(8))
            #expect(error.status == 429)
            #expect(clock.pendingSleeps == 0)
            #expect(server.requests.count == 1)
        }
    }

    @Test("a call on an empty bucket whose reset is past the deadline fails without being sent")
    func emptyBucketBeyondDeadline() async throws {
        try await withScriptedServer({ _ in
            .json(200, Self.me, headers: Self.bucket("users", remaining: 0, resetAfter: 8_000))
        }) { server in
            let api = StoatAPI(baseURL: server.url, requestTimeout: .seconds(5), clock: TestClock())
            _ = try await api.currentUser(SessionCredentials(token: "T"))
            let error = try await apiError { () async throws(StoatAPIError) in
                try await api.currentUser(SessionCredentials(token: "T"))
            }
            #expect(error.code == .rateLimited)
            #expect(error.retryAfter == .seconds(8))
            #expect(error.status == nil, "nothing was sent")
            #expect(server.requests.count == 1)
        }
    }

    @Test("a 429 that says InSlowmode is the caller's to handle: not retried, its wait in seconds")
    func slowmodeIsNotRetried() async throws {
        try await withScriptedServer({ _ in
            .json(
                429,
                #"{"type":"InSlowmode","retry_after":7,"location":"crates/delta/src/routes/channels/message_send.rs:116:29"}"#
            )
        }) { server in
            let clock = TestClock()
            let api = StoatAPI(baseURL: server.url, requestTimeout: .failureBound, clock: clock)
            let error = try await apiError { () async throws(StoatAPIError) in
                try await api.sendMessage(OutgoingMessage(content: "hi"), in: "C", SessionCredentials(token: "T"))
            }
            #expect(error.code == .inSlowmode)
            #expect(error.retryAfter == .seconds(7))
            #expect(server.requests.count == 1)
        }
    }

    @Test("repeated 429s stop after five waits with a rateLimited error")
    func endless429() async throws {
        try await withScriptedServer({ _ in .json(429, #"{"retry_after":0}"#) }) { server in
            let clock = TestClock()
            let api = StoatAPI(baseURL: server.url, requestTimeout: .failureBound, clock: clock)
            let call = Task { try await apiError { () async throws(StoatAPIError) in try await api.configuration() } }
            // `retry_after: 0` is waited out for a millisecond (stoatchat's bucket refills only past its reset).
            for wait in 1...StoatAPI.maximumRateLimitRetries {
                let deadline = await clock.nextSleep()
                #expect(deadline == TestClock.Instant(offset: .milliseconds(wait)))
                clock.advance(to: deadline)
            }
            let error = try await call.value
            #expect(error.code == .rateLimited)
            #expect(server.requests.count == StoatAPI.maximumRateLimitRetries + 1)
        }
    }
}
