import Foundation
import Testing

@testable import StoatReferenceServer

/// What the server observes is bounded, so it runs for days with flat memory: each connection keeps its newest
/// frames and subscriptions, the server its latest closed connections and live rate-limit windows; what falls
/// out is counted.
@Suite("Bounded observation records", .hangBound)
struct BoundedRecordsTests {
    static let limits = ObservationLimits(framesPerConnection: 8, subscriptionsPerConnection: 4, closedConnections: 4)

    @Test("a connection keeps its newest frames and subscriptions, and counts the frames it let go")
    func framesAndSubscriptions() async throws {
        try await withServer(configure: { $0.observationLimits = Self.limits }) { server throws in
            let token = server.defaultAccount.token
            let socket = try await server.connectReady(token: token)
            for index in 0..<40 { await socket.send(#"{"type":"Subscribe","server_id":"S\#(index)"}"#) }
            await socket.send(#"{"type":"Ping","data":99}"#)
            #expect(try await socket.next(skipping: ["UserUpdate", "UserSlowmodes"]) == #"{"type":"Pong","data":99}"#)
            let record = try #require(await server.connections().last)
            // Authenticate, the first Ping, 40 Subscribes and the last Ping.
            #expect(record.framesReceived == 43)
            #expect(record.receivedFrames.count <= 8 + 8 / 4)
            #expect(record.receivedFrames.last == #"{"type":"Ping","data":99}"#, "the newest are kept")
            #expect(record.droppedFrames == 43 - record.receivedFrames.count)
            #expect(record.subscriptions.count <= 4 + 4 / 4)
            #expect(record.subscriptions.last == "S39")
            let state = try await server.admin(.GET, "/state")
            let connection = try #require((state.json?["connections"] as? [[String: Any]])?.last)
            #expect(connection["frames_received"] as? Int == 43)
            await socket.close()
        }
    }

    @Test("the server keeps its latest closed connections, and the load report still counts them all")
    func closedConnections() async throws {
        try await withServer(configure: { $0.observationLimits = Self.limits }) { server throws in
            let token = server.defaultAccount.token
            for _ in 0..<12 {
                let socket = try await server.connectReady(token: token)
                await socket.close()
            }
            try await server.waitUntil { _, counters in counters.liveSockets == 0 }
            let kept = await server.connections()
            #expect(kept.count <= 4 + 4 / 4)
            #expect(kept.last?.id == 12, "the latest are kept")
            let report = await server.loadReport(closedAfter: 0)
            #expect(report.closedCount == 12)
            #expect(report.closed.map(\.id) == kept.map(\.id))
            #expect(await server.loadReport(closedAfter: 11).closed.map(\.id) == [12])
            #expect(await server.loadReport(closedAfter: 12).closed.isEmpty)
            #expect(await server.state.load.tokens.count <= 4 + 4 / 4, "what the load facet noted goes with them")
        }
    }

    @Test("the default limits hold a storm's story: ten thousand closed connections")
    func defaultsHoldAStorm() {
        let limits = ObservationLimits.standard
        #expect(limits.closedConnections >= 10_000)
        #expect(limits.framesPerConnection >= 1_000)
        #expect(ObservationLimits(framesPerConnection: 0, closedConnections: -5).closedConnections == 1)
    }

    @Test("the rate limiter forgets windows that have ended once it holds many, at an amortised cost")
    func rateLimiterPrunes() {
        var limiter = RateLimiter()
        for key in 0..<UInt64(RateLimiter.prunedAbove) {
            _ = limiter.take(key: key, limit: 20, now: 0, window: 10_000)
        }
        #expect(limiter.count == RateLimiter.prunedAbove)
        // A minute later every window has ended: the next new caller finds a table holding only itself.
        let outcome = limiter.take(key: .max, limit: 20, now: 60_000, window: 10_000)
        #expect(outcome.allowed)
        #expect(limiter.count == 1)
        // Windows still live are kept.
        for key in 0..<UInt64(RateLimiter.prunedAbove) {
            _ = limiter.take(key: key, limit: 20, now: 61_000, window: 10_000)
        }
        _ = limiter.take(key: .max - 1, limit: 20, now: 62_000, window: 10_000)
        #expect(limiter.count == RateLimiter.prunedAbove + 2)
    }
}
