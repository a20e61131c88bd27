import Foundation
import Lifeline
import LifelineCore
import LifelineStoat
import Logging
import StoatReferenceServer
import Synchronization
import WSClient

/// `time-to-connected`: a cached login to CONNECTED with a 1 MB Ready (median of many), against a bare
/// WebSocket opening, authenticating and receiving the same Ready bytes without decoding them (goal:
/// ratio ≤ 1.1).
///
/// The detail times what Lifeline does that the bare client does not, apart from the session's own work:
/// decoding the `Ready` the server sends (the same padded bytes, decoded alone). The rest of the difference
/// is the client's cache taking that `Ready` in before the session is told of it, the session's actor and
/// machine, and the states stream.
enum TimeToConnectedBenchmark {
    @Sendable
    static func run(quick: Bool) async throws -> BenchmarkResult {
        let server = try await ReferenceServer.start()
        await server.setReadyMinimumSize(1_000_000)
        let user = server.defaultAccount.userID
        let readyBytes = try await server.readyFrame(for: user).count
        let client = StoatClient(apiURL: server.apiURL, configuration: StoatClient.Configuration(friendlyName: "bench"))
        // The same client on the channel-handler socket, measured beside today's until it replaces it.
        var channelConfiguration = StoatClient.Configuration(friendlyName: "bench")
        channelConfiguration.usesChannelHandlerSocket = true
        let channelClient = StoatClient(apiURL: server.apiURL, configuration: channelConfiguration)
        let runner = Task {
            async let wsClient: Void = client.run()
            async let channel: Void = channelClient.run()
            _ = await (wsClient, channel)
        }
        var states = client.session.states.makeAsyncIterator()
        var channelStates = channelClient.session.states.makeAsyncIterator()
        func next(
            _ state: SessionState, on states: inout AsyncStream<SessionSnapshot>.Iterator
        )
            async
        {
            while let snapshot = await states.next(), snapshot.transitions.last?.to != state {}
        }
        let url = server.eventsURL.absoluteString
        let connector = WebSocketConnector(configuration: .init(maximumMessageSize: 64 << 20))
        let clock = ContinuousClock()
        let rounds = quick ? 8 : 40
        var lifeline: [Duration] = []
        var bare: [Duration] = []
        var channelLifeline: [Duration] = []
        var channelBare: [Duration] = []
        for round in 0...rounds {
            let token = await server.createSession(userID: user)
            let start = clock.now
            await client.resume(SessionCredentials(token: token, userID: user))
            await next(.connected, on: &states)
            let elapsed = start.duration(to: clock.now)
            await client.session.logOut()
            await next(.ready, on: &states)
            let bareElapsed = try await BareSocket.run(url: url, token: await server.createSession(userID: user))
            let channelToken = await server.createSession(userID: user)
            let channelStart = clock.now
            await channelClient.resume(SessionCredentials(token: channelToken, userID: user))
            await next(.connected, on: &channelStates)
            let channelElapsed = channelStart.duration(to: clock.now)
            await channelClient.session.logOut()
            await next(.ready, on: &channelStates)
            let (channelBareElapsed, socket) = try await BareChannelSocket.run(
                connector: connector, url: url, token: await server.createSession(userID: user))
            socket.abort()
            if round > 0 {  // the first round warms up (GET / for the events URL, connection pools)
                lifeline.append(elapsed)
                bare.append(bareElapsed)
                channelLifeline.append(channelElapsed)
                channelBare.append(channelBareElapsed)
            }
        }
        let readyFrame = try await receivedReady(url: url, token: await server.createSession(userID: user))
        runner.cancel()
        await runner.value
        await server.stop()
        let decoding = try (0..<rounds).map { _ in
            let start = clock.now
            let outcome = BonfireDecoder().decode(readyFrame)
            let elapsed = start.duration(to: clock.now)
            guard case .event(.ready) = outcome else { throw BenchmarkError("the padded Ready did not decode") }
            return elapsed
        }
        var result = BenchmarkResult(
            name: "time-to-connected", unit: "ms", lifeline: median(lifeline).milliseconds,
            baseline: median(bare).milliseconds, goal: .ratioAtMost(1.1),
            detail: "median of \(rounds), a \(readyFrame.count / 1000) kB Ready (\(readyBytes / 1000) kB of real data, "
                + "the rest padding users), loopback; "
                + "decoding that Ready alone: \(String(format: "%.2f", median(decoding).milliseconds)) ms; "
                + "channel-handler socket: \(String(format: "%.2f", median(channelLifeline).milliseconds)) ms "
                + "(ratio \(String(format: "%.2f", median(channelLifeline) / median(bare)))), bare "
                + "\(String(format: "%.2f", median(channelBare).milliseconds)) ms")
        result.extra = [
            "channel_session": .number(median(channelLifeline).milliseconds),
            "channel_session_ratio": .number(median(channelLifeline) / median(bare)),
            "channel_socket": .number(median(channelBare).milliseconds),
        ]
        return result
    }

    /// The `Ready` frame exactly as the server sends it to a session, padding included.
    static func receivedReady(url: String, token: String) async throws -> Data {
        let frame = Mutex<Data?>(nil)
        _ = try await BareSocket.run(
            url: url, token: token,
            ready: { message in
                if case .text(let text) = message { frame.withLock { $0 = Data(text.utf8) } }
            })
        guard let ready = frame.withLock({ $0 }) else { throw BenchmarkError("no Ready frame to decode") }
        return ready
    }
}
