import AsyncHTTPClient
import Foundation
import Lifeline
import LifelineCore
import LifelineStoat
import StoatReferenceServer

/// `catch-up`: 50 chats, 20 of them with new messages after an outage (one with 250), against the reference server
/// as late as stoatchat: `Ready`'s `last_message_id` does not show what was posted in the half-minute before it,
/// so the client catches up in two passes, the second 33 s after CONNECTED. The outage lasts a minute by the
/// server's clock and the news of 3 chats comes in its last seconds, where the lag hides it from `Ready`; the
/// worst case, every chat's news in those seconds, is measured beside it (`worst_case_*`). The REST requests of
/// both passes and the time until every chat's last message is right, against refetching every chat's latest
/// page (the same client with catch-up off, 4 requests in flight). Every request counts — `GET /sync/unreads`,
/// the re-verifications and the second pass's chat lists included — from the network's return to the last
/// answer. Goal: at most half the baseline's requests, and every chat right within 40 s of the network's return
/// (the promise of the second pass).
enum CatchUpBenchmark {
    static let chats = 50
    static let chatsWithNews = 20
    static let busy = 250
    /// The chats whose news comes in the outage's last seconds, hidden from `Ready` by the lag.
    static let hiddenNews = 3

    /// What one run measured.
    struct Measurement {
        var requests: Int
        var firstScreen: Duration
        var all: Duration
    }

    /// The longest every chat may take to be right after the network's return (the 40 s).
    static let promise: Duration = .seconds(40)

    @Sendable
    static func run(quick: Bool) async throws -> BenchmarkResult {
        let rounds = quick ? 1 : 3
        var lifeline: [Measurement] = []
        var worst: [Measurement] = []
        var baseline: [Measurement] = []
        for _ in 0..<rounds {
            lifeline.append(try await scenario(catchUp: true, hidden: hiddenNews))
            worst.append(try await scenario(catchUp: true, hidden: chatsWithNews))
            baseline.append(try await scenario(catchUp: false, hidden: hiddenNews))
        }
        let ours = lifeline.min { $0.requests < $1.requests } ?? lifeline[0]
        let theirs = baseline.min { $0.requests < $1.requests } ?? baseline[0]
        let worstRequests = worst.map(\.requests).min() ?? 0
        let firstScreen = median(lifeline.map(\.firstScreen))
        let all = median(lifeline.map(\.all))
        let slowest = (lifeline + worst).map(\.all).max() ?? all
        let worstAll = median(worst.map(\.all))
        let baselineAll = median(baseline.map(\.all))
        func ms(_ duration: Duration) -> String { String(format: "%.0f ms", duration.milliseconds) }
        return BenchmarkResult(
            name: "catch-up", unit: "requests", lifeline: Double(ours.requests), baseline: Double(theirs.requests),
            goal: .ratioAtMost(0.5),
            detail: "\(chats) chats, \(chatsWithNews) with news (one with \(busy)), \(hiddenNews) of them hidden from "
                + "Ready by last_message_id's lag; every last message right in \(ms(all)) (baseline "
                + "\(ms(baselineAll))), the first screen in \(ms(firstScreen)); every chat's news hidden: "
                + "\(worstRequests) requests, right in \(ms(worstAll)); slowest \(ms(slowest)); median of \(rounds)",
            extra: [
                "first_screen_ms": .number(firstScreen.milliseconds), "all_ms": .number(all.milliseconds),
                "slowest_all_ms": .number(slowest.milliseconds), "baseline_all_ms": .number(baselineAll.milliseconds),
                "worst_case_requests": .number(Double(worstRequests)),
                "worst_case_ratio": .number(Double(worstRequests) / Double(max(1, theirs.requests))),
                "worst_case_all_ms": .number(worstAll.milliseconds),
            ],
            alsoMet: slowest <= promise)
    }

    /// One outage and return: a fresh server and client, the chats filled and caught up, the news posted while
    /// the device is offline with stoatchat's lag on — a minute passes on the server's clock, then the news of
    /// `hidden` chats comes, which `Ready` does not show — then the network back.
    static func scenario(catchUp: Bool, hidden: Int) async throws -> Measurement {
        let server = try await ReferenceServer.start()
        // The client has been connected a while before the outage: what came before it is committed.
        await server.setLastMessageIDLag(false)
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
        var newest: [String: String] = [:]
        for channel in channels {
            for index in 0..<5 {
                newest[channel] = try await server.postMessage(as: friend.userID, in: channel, content: "old \(index)")
                    .id
            }
        }
        var states = client.session.states.makeAsyncIterator()
        func reach(_ state: SessionState) async {
            while let snapshot = await states.next(), !snapshot.transitions.contains(where: { $0.to == state }),
                snapshot.state != state
            {}
        }
        let reports = client.catchUps
        var passes = reports.makeAsyncIterator()
        await client.resume(SessionCredentials(token: account.token, userID: account.userID))
        await reach(.connected)
        if catchUp {
            _ = await passes.next()
        } else {
            try await refetchAll(channels, client)
        }
        // The outage: the device offline, the news posted meanwhile, and stoatchat's debounce back on.
        await server.setLastMessageIDLag(true)
        network.set(.offline)
        _ = await server.dropAllSockets()
        await reach(.offline)
        let busyChannel = channels[chatsWithNews - 1]
        let news = [busyChannel] + channels.prefix(chatsWithNews - 1)
        func post(in channel: String) async throws {
            for index in 0..<(channel == busyChannel ? busy : 3) {
                newest[channel] = try await server.postMessage(as: friend.userID, in: channel, content: "new \(index)")
                    .id
            }
        }
        for channel in news.dropLast(hidden) { try await post(in: channel) }
        // A minute on the server's clock: what was posted so far is committed by `Ready`; what comes next is not.
        await server.setClockSkew(.seconds(60))
        for channel in news.suffix(hidden) { try await post(in: channel) }
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
            // Both passes: the requests of the second count too.
            while let report = await passes.next(), report.pass < 2 {}
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
