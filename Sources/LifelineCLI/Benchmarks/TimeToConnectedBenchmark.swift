import Foundation
import Lifeline
import LifelineCore
import LifelineStoat
import StoatReferenceServer

/// `time-to-connected`: a cached login to CONNECTED with a 1 MB Ready (median of many), against a bare
/// WebSocket opening, authenticating and receiving the same Ready bytes without decoding them (goal:
/// ratio ≤ 1.5).
enum TimeToConnectedBenchmark {
    @Sendable
    static func run(quick: Bool) async throws -> BenchmarkResult {
        let server = try await ReferenceServer.start()
        await server.setReadyMinimumSize(1_000_000)
        let user = server.defaultAccount.userID
        let readyBytes = try await server.readyFrame(for: user).count
        let client = StoatClient(apiURL: server.apiURL, configuration: StoatClient.Configuration(friendlyName: "bench"))
        let runner = Task { await client.run() }
        var states = client.session.states.makeAsyncIterator()
        func next(_ state: SessionState) async {
            while let snapshot = await states.next(), snapshot.transitions.last?.to != state {}
        }
        let url = server.eventsURL.absoluteString
        let clock = ContinuousClock()
        let rounds = quick ? 8 : 40
        var lifeline: [Duration] = []
        var bare: [Duration] = []
        for round in 0...rounds {
            let token = await server.createSession(userID: user)
            let start = clock.now
            await client.resume(SessionCredentials(token: token, userID: user))
            await next(.connected)
            let elapsed = start.duration(to: clock.now)
            await client.session.logOut()
            await next(.ready)
            let bareElapsed = try await BareSocket.run(url: url, token: await server.createSession(userID: user))
            if round > 0 {  // the first round warms up (GET / for the events URL, connection pools)
                lifeline.append(elapsed)
                bare.append(bareElapsed)
            }
        }
        runner.cancel()
        await runner.value
        await server.stop()
        return BenchmarkResult(
            name: "time-to-connected", unit: "ms", lifeline: median(lifeline).milliseconds,
            baseline: median(bare).milliseconds, goal: .ratioAtMost(1.5),
            detail: "median of \(rounds), Ready padded to 1 MB (\(readyBytes / 1000) kB of real data), loopback")
    }
}
