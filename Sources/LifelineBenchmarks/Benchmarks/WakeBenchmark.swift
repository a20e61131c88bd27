import Lifeline
import LifelineCore
import LifelineStoat
import StoatReferenceServer

/// `wake`: after a simulated suspend, the time until a dead socket is left, against the heartbeat's worst case —
/// the interval plus the Pong timeout (40 s by default), which is how late a session without wake detection
/// notices a socket that died while the device slept (goal: ratio ≤ 0.1).
///
/// Each round connects a client to the reference server, makes the server stop answering `Ping`s (a socket that
/// died in a suspend: the peer gave up on it, or a NAT forgot it), reports the wake through a
/// `ManualWakeMonitor` and times, on the wall clock, until the session leaves CONNECTED; then the server answers
/// again and the session reconnects at once for the next round. The baseline is the configured worst case, not a
/// measured one: measuring it takes 40 s a round.
enum WakeBenchmark {
    @Sendable
    static func run(quick: Bool) async throws -> BenchmarkResult {
        let server = try await ReferenceServer.start()
        let wake = ManualWakeMonitor()
        var configuration = StoatClient.Configuration(friendlyName: "bench")
        configuration.session.wakeMonitor = wake
        let client = StoatClient(
            apiURL: server.apiURL, configuration: configuration, network: ManualNetworkMonitor(.online))
        let runner = Task { await client.run() }
        var states = client.session.states.makeAsyncIterator()
        func next(_ state: SessionState) async -> SessionTransition? {
            while let snapshot = await states.next() {
                if let transition = snapshot.transitions.last(where: { $0.to == state }) { return transition }
            }
            return nil
        }
        let user = server.defaultAccount.userID
        await client.resume(SessionCredentials(token: server.defaultAccount.token, userID: user))
        _ = await next(.connected)
        let clock = ContinuousClock()
        let rounds = quick ? 3 : 8
        var left: [Duration] = []
        for _ in 0..<rounds {
            await server.setIgnoresPings(true)
            let start = clock.now
            wake.wake(suspended: .seconds(600))
            let transition = await next(.disconnected)
            left.append(start.duration(to: clock.now))
            guard transition?.cause?.code == .temporary(.wakeCheckFailed) else {
                throw BenchmarkError(
                    "the session left the socket for another reason: \(String(describing: transition))")
            }
            await server.setIgnoresPings(false)
            await client.session.reconnectNow()
            _ = await next(.connected)
        }
        runner.cancel()
        await runner.value
        await server.stop()
        let worstCase = configuration.connection.heartbeatInterval + configuration.connection.pongTimeout
        return BenchmarkResult(
            name: "wake", unit: "s", lifeline: median(left).secondsValue, baseline: worstCase.secondsValue,
            goal: .ratioAtMost(0.1),
            detail:
                "median of \(rounds) simulated suspends, loopback, the server answering no Ping; the wake check's "
                + "deadline \(configuration.session.wakeCheckTimeout), against the heartbeat's worst case "
                + "(\(configuration.connection.heartbeatInterval) interval + \(configuration.connection.pongTimeout) Pong timeout)"
        )
    }
}
