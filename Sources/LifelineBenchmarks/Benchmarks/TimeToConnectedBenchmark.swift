import Foundation
import Lifeline
import LifelineCLIOutput
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
/// The detail times the two stages Lifeline adds before CONNECTED that the bare client does not, each alone on
/// the same `Ready`: decoding it (the same padded bytes the server sends) and taking it into an empty in-memory
/// cache. A cached login (`resume`) makes no request before the socket (LOGIN_CACHED goes straight to
/// CONNECTING; only LOGGING_IN checks onboarding). The rest of the difference is the session's actor and
/// machine, the catch-up's start and the states stream.
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
        var decoded: Ready?
        let decoding = try (0..<rounds).map { _ in
            let start = clock.now
            let outcome =
                messagePack ? BonfireDecoder().decode(messagePack: readyFrame) : BonfireDecoder().decode(readyFrame)
            let elapsed = start.duration(to: clock.now)
            guard case .event(.ready(let ready)) = outcome else {
                throw BenchmarkError("the padded Ready did not decode")
            }
            decoded = ready
            return elapsed
        }
        guard let decoded else { throw BenchmarkError("no Ready decoded") }
        let applying = (0..<rounds).map { _ in
            let start = clock.now
            ReadyStages.applyToEmptyCache(decoded)
            return start.duration(to: clock.now)
        }
        let bareMedian = median(bare).milliseconds
        let share = { (stage: [Duration]) in
            String(
                format: "%.2f ms (%.0f %% of the bare client's time)", median(stage).milliseconds,
                bareMedian > 0 ? median(stage).milliseconds / bareMedian * 100 : 0)
        }
        var result = BenchmarkResult(
            name: messagePack ? "time-to-connected-msgpack" : "time-to-connected", unit: "ms",
            lifeline: median(lifeline).milliseconds,
            baseline: bareMedian, goal: .ratioAtMost(1.1),
            detail:
                "median of \(rounds), a \(readyFrame.count / 1000) kB \(messagePack ? "MessagePack" : "JSON") Ready (\(readyBytes / 1000) kB of real data, "
                + "the rest padding users), loopback; stages alone: decoding that Ready \(share(decoding)), "
                + "taking it into an empty cache \(share(applying))")
        let decodeMilliseconds: Double = median(decoding).milliseconds
        let applyMilliseconds: Double = median(applying).milliseconds
        let extra: [String: JSONLine.Value] = [
            "decode_ms": .number(decodeMilliseconds), "apply_ms": .number(applyMilliseconds),
        ]
        result.extra = extra
        return result
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
