import AsyncHTTPClient
import Foundation
import Lifeline
import LifelineCore
import LifelineStoat
import StoatReferenceServer

/// `catch-up`: 50 chats, 20 of them with new messages after an outage (one with 250): the REST requests and the
/// time until every chat's last message is right, against refetching every chat's latest page (the same client
/// with catch-up off, 4 requests in flight). Every request counts — `GET /sync/unreads` and the re-verifications
/// included — from the network's return to the last answer. Goal: at most half the baseline's requests, and the
/// first screen (the 10 most recent chats) right before the baseline has finished.
enum CatchUpBenchmark {
    static let chats = 50
    static let chatsWithNews = 20
    static let busy = 250

    /// What one run measured.
    struct Measurement {
        var requests: Int
        var firstScreen: Duration
        var all: Duration
    }

    @Sendable
    static func run(quick: Bool) async throws -> BenchmarkResult {
        let rounds = quick ? 1 : 7
        var lifeline: [Measurement] = []
        var baseline: [Measurement] = []
        for _ in 0..<rounds {
            lifeline.append(try await scenario(catchUp: true))
            baseline.append(try await scenario(catchUp: false))
        }
        let ours = lifeline.min { $0.requests < $1.requests } ?? lifeline[0]
        let theirs = baseline.min { $0.requests < $1.requests } ?? baseline[0]
        let firstScreen = median(lifeline.map(\.firstScreen))
        let all = median(lifeline.map(\.all))
        let baselineAll = median(baseline.map(\.all))
        func ms(_ duration: Duration) -> String { String(format: "%.0f ms", duration.milliseconds) }
        return BenchmarkResult(
            name: "catch-up", unit: "requests", lifeline: Double(ours.requests), baseline: Double(theirs.requests),
            goal: .ratioAtMost(0.5),
            detail: "\(chats) chats, \(chatsWithNews) with news (one with \(busy)); every last message right in "
                + "\(ms(all)) (baseline \(ms(baselineAll))), the first screen in \(ms(firstScreen)); "
                + "median of \(rounds)",
            extra: [
                "first_screen_ms": .number(firstScreen.milliseconds), "all_ms": .number(all.milliseconds),
                "baseline_all_ms": .number(baselineAll.milliseconds),
            ],
            alsoMet: firstScreen < baselineAll)
    }

    /// One outage and return: a fresh server and client, the chats filled, the news posted while the device is
    /// offline, then the network back.
    static func scenario(catchUp: Bool) async throws -> Measurement {
        let server = try await ReferenceServer.start()
        let http = HTTPClient(
            eventLoopGroup: .singletonMultiThreadedEventLoopGroup, configuration: StoatAPI.httpClientConfiguration())
        let network = ManualNetworkMonitor(.online)
        let client = StoatClient(
            apiURL: server.apiURL,
            configuration: StoatClient.Configuration(
                friendlyName: "bench", catchUp: catchUp ? .standard : .disabled),
            network: network, httpClient: http)
        let runner = Task { await client.run() }
        defer { runner.cancel() }
        let account = server.defaultAccount
        let friend = try await server.addUser(username: "friend")
        try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
        var channels = [server.lobbyChannelID]
        for index in 1..<chats {
            channels.append(try await server.addTextChannel(serverID: server.lobbyServerID, name: "chat-\(index)").id)
        }
        for channel in channels {
            for index in 0..<5 { try await server.postMessage(as: friend.userID, in: channel, content: "old \(index)") }
        }
        var states = client.session.states.makeAsyncIterator()
        func reach(_ state: SessionState) async {
            while let snapshot = await states.next(), !snapshot.transitions.contains(where: { $0.to == state }),
                snapshot.state != state
            {}
        }
        let reports = client.catchUps
        await client.resume(SessionCredentials(token: account.token, userID: account.userID))
        await reach(.connected)
        if catchUp {
            for await _ in reports { break }
        } else {
            try await refetchAll(channels, client)
        }
        // The outage: the device offline, the news posted meanwhile.
        network.set(.offline)
        _ = await server.dropAllSockets()
        await reach(.offline)
        for channel in channels.prefix(chatsWithNews - 1) {
            for index in 0..<3 { try await server.postMessage(as: friend.userID, in: channel, content: "new \(index)") }
        }
        for index in 0..<busy {
            try await server.postMessage(as: friend.userID, in: channels[chatsWithNews - 1], content: "busy \(index)")
        }
        var newest: [String: String] = [:]
        for channel in channels { newest[channel] = await server.channel(id: channel)?.lastMessageID }
        let expected = newest
        // The first screen as the chat list orders it: by the last message's millisecond, then by chat id.
        func activity(_ channel: String) -> Int64 { expected[channel].flatMap(ULID.milliseconds(of:)) ?? 0 }
        let firstScreen = Set(
            channels.sorted { activity($0) != activity($1) ? activity($0) > activity($1) : $0 > $1 }.prefix(10))
        let everyChat = Set(channels)

        await server.resetRequestCounts()
        let clock = ContinuousClock()
        let start = clock.now
        network.set(.online)
        // Watched from a thread of its own, every 0.2 ms: a task of the cooperative pool, busy with the catch-up
        // on two cores, would notice late.
        let (watched, watching) = AsyncStream.makeStream(of: (ContinuousClock.Instant, ContinuousClock.Instant).self)
        let watcher = Thread {
            var firstScreenAt: ContinuousClock.Instant?
            let deadline = clock.now.advanced(by: .seconds(120))
            while clock.now < deadline {
                let chats = client.chats
                if firstScreenAt == nil, right(chats, firstScreen, expected) { firstScreenAt = clock.now }
                if right(chats, everyChat, expected) { break }
                usleep(200)
            }
            watching.yield((firstScreenAt ?? clock.now, clock.now))
            watching.finish()
        }
        watcher.start()
        await reach(.connected)
        if catchUp {
            for await _ in reports { break }
        } else {
            try await refetchAll(client.chats.map(\.id).filter(Set(channels).contains), client)
        }
        var times = watched.makeAsyncIterator()
        let (firstScreenAt, allAt) = await times.next() ?? (clock.now, clock.now)
        let requests = await server.requestCounts().values.reduce(0, +)
        runner.cancel()
        await runner.value
        try await http.shutdown()
        await server.stop()
        return Measurement(
            requests: requests, firstScreen: start.duration(to: firstScreenAt), all: start.duration(to: allAt))
    }

    /// Whether each of `ids` shows the expected last message.
    static func right(_ chats: [Chat], _ ids: Set<String>, _ expected: [String: String]) -> Bool {
        let last = Dictionary(chats.map { ($0.id, $0.lastMessage?.id) }, uniquingKeysWith: { $1 })
        return ids.allSatisfy { last[$0] == expected[$0] }
    }

    /// The baseline: every chat's latest page, 4 at a time, in the chat list's order.
    static func refetchAll(_ channels: [String], _ client: StoatClient) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = channels.makeIterator()
            for _ in 0..<4 {
                guard let channel = next.next() else { break }
                group.addTask { _ = try await client.refreshHistory(of: channel) }
            }
            while try await group.next() != nil {
                if let channel = next.next() { group.addTask { _ = try await client.refreshHistory(of: channel) } }
            }
        }
    }
}
