import Foundation
import Lifeline
import LifelineCore
import LifelineStoat
import StoatReferenceServer

/// `reconnect-replay`: the server drops the socket → CONNECTED again with 1000 subscriptions written,
/// against a bare loop reconnecting and writing the same frames (goal: ratio ≤ 1.1). Both end when the
/// server has read the 1000th `Subscribe` on the new socket. Lifeline's retry unit is 1 ms here, so the
/// backoff — a feature, not a cost — does not count; sequential replay (the default) is measured, and
/// pipelined is reported beside it.
enum ReconnectReplayBenchmark {
    @Sendable
    static func run(quick: Bool) async throws -> BenchmarkResult {
        let rounds = quick ? 2 : 5
        var figures: [(count: Int, sequential: Duration, pipelined: Duration, bare: Duration)] = []
        for count in [1, 100, 1000] {
            var sequential: [Duration] = []
            var pipelined: [Duration] = []
            var bare: [Duration] = []
            for _ in 0..<rounds {
                sequential.append(try await lifeline(count: count, mode: .sequential))
                pipelined.append(try await lifeline(count: count, mode: .pipelined))
                bare.append(try await bareLoop(count: count))
            }
            figures.append((count, median(sequential), median(pipelined), median(bare)))
        }
        // The goal is judged at N = 1000; the smaller counts are reported beside it.
        let main = figures[figures.count - 1]
        let others = figures.map {
            String(
                format: "N=%d: %.1f ms sequential, %.1f pipelined, %.1f bare", $0.count, $0.sequential.milliseconds,
                $0.pipelined.milliseconds, $0.bare.milliseconds)
        }
        return BenchmarkResult(
            name: "reconnect-replay", unit: "ms", lifeline: main.sequential.milliseconds,
            baseline: main.bare.milliseconds,
            goal: .ratioAtMost(1.1), detail: "median of \(rounds); " + others.joined(separator: "; "))
    }

    private static func lifeline(count: Int, mode: ReplayPlan.Mode) async throws -> Duration {
        let server = try await ReferenceServer.start()
        let account = server.defaultAccount
        let configuration = StoatClient.Configuration(
            session: Session.Configuration(
                retryPolicy: try RetryPolicy(unit: .milliseconds(1), ceiling: .milliseconds(1)), replayMode: mode),
            friendlyName: "bench")
        let client = StoatClient(
            apiURL: server.apiURL, configuration: configuration, network: ManualNetworkMonitor(.online))
        let runner = Task { await client.run() }
        var states = client.session.states.makeAsyncIterator()
        await client.resume(SessionCredentials(token: account.token, userID: account.userID))
        while let snapshot = await states.next(), snapshot.state != .connected {}
        for index in 0..<count { await client.session.subscribe(server: "bench-server-\(index)") }
        while let snapshot = await states.next(), snapshot.significantEvents.count < count {}
        let clock = ContinuousClock()
        let start = clock.now
        _ = await server.dropAllSockets()
        try await server.waitUntil(timeout: .seconds(60)) { records, _ in
            records.count == 2 && records[1].subscriptions.count == count
        }
        let elapsed = start.duration(to: clock.now)
        runner.cancel()
        await runner.value
        await server.stop()
        return elapsed
    }

    private static func bareLoop(count: Int) async throws -> Duration {
        let server = try await ReferenceServer.start()
        let token = server.defaultAccount.token
        let url = server.eventsURL.absoluteString
        let clock = ContinuousClock()
        let start = clock.now
        _ = try await BareSocket.run(url: url, token: token) { writer in
            for index in 0..<count {
                try await writer.write(.text(#"{"type":"Subscribe","server_id":"bench-server-\#(index)"}"#))
            }
            try await server.waitUntil(timeout: .seconds(60)) { records, _ in
                records.last?.subscriptions.count == count
            }
        }
        let elapsed = start.duration(to: clock.now)
        await server.stop()
        return elapsed
    }
}
