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
///
/// `time-to-connected-msgpack` is the same with `format=msgpack` on both sides: Lifeline asks for MessagePack
/// and decodes it, the bare socket asks for it and receives the same `Ready` in a binary frame.
enum TimeToConnectedBenchmark {
    @Sendable
    static func run(quick: Bool) async throws -> BenchmarkResult {
        try await run(quick: quick, format: .json)
    }

    @Sendable
    static func runMessagePack(quick: Bool) async throws -> BenchmarkResult {
        try await run(quick: quick, format: .messagePack)
    }

    static func run(quick: Bool, format: StoatWireFormat) async throws -> BenchmarkResult {
        let messagePack = format == .messagePack
        let server = try await ReferenceServer.start()
        await server.setReadyMinimumSize(1_000_000)
        let user = server.defaultAccount.userID
        let readyBytes = try await server.readyFrame(for: user).count
        let client = StoatClient(
            apiURL: server.apiURL,
            configuration: StoatClient.Configuration(connection: .init(format: format), friendlyName: "bench"),
            network: ManualNetworkMonitor(.online))
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
            let bareElapsed = try await BareSocket.run(
                url: url, token: await server.createSession(userID: user), messagePack: messagePack)
            if round > 0 {  // the first round warms up (GET / for the events URL, connection pools)
                lifeline.append(elapsed)
                bare.append(bareElapsed)
            }
        }
        let readyFrame = try await receivedReady(
            url: url, token: await server.createSession(userID: user), messagePack: messagePack)
        runner.cancel()
        await runner.value
        await server.stop()
        let decoding = try (0..<rounds).map { _ in
            let start = clock.now
            let outcome =
                messagePack ? BonfireDecoder().decode(messagePack: readyFrame) : BonfireDecoder().decode(readyFrame)
            let elapsed = start.duration(to: clock.now)
            guard case .event(.ready) = outcome else { throw BenchmarkError("the padded Ready did not decode") }
            return elapsed
        }
        return BenchmarkResult(
            name: messagePack ? "time-to-connected-msgpack" : "time-to-connected", unit: "ms",
            lifeline: median(lifeline).milliseconds,
            baseline: median(bare).milliseconds, goal: .ratioAtMost(1.1),
            detail:
                "median of \(rounds), a \(readyFrame.count / 1000) kB \(messagePack ? "MessagePack" : "JSON") Ready (\(readyBytes / 1000) kB of real data, "
                + "the rest padding users), loopback; "
                + "decoding that Ready alone: \(String(format: "%.2f", median(decoding).milliseconds)) ms")
    }

    /// The `Ready` frame exactly as the server sends it to a session, padding included.
    static func receivedReady(url: String, token: String, messagePack: Bool = false) async throws -> Data {
        let frame = Mutex<Data?>(nil)
        _ = try await BareSocket.run(
            url: url, token: token, messagePack: messagePack,
            ready: { message in
                switch message {
                case .text(let text): frame.withLock { $0 = Data(text.utf8) }
                case .binary(let buffer): frame.withLock { $0 = Data(buffer.readableBytesView) }
                }
            })
        guard let ready = frame.withLock({ $0 }) else { throw BenchmarkError("no Ready frame to decode") }
        return ready
    }
}
