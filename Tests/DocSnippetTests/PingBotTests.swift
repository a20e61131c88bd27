import AsyncHTTPClient
import Foundation
import LifelineStoatStore
import StoatReferenceServer
import Testing

/// The README's ping bot (`runPingBot`, compiled from README.md by the DocSnippets plugin) against the reference
/// server, watched by a friend's client that posts nothing itself: the server posts the pings as the friend.
@Suite("The README's ping bot, run against the reference server", .hangBound)
struct PingBotTests {
    @Test(
        "The bot answers a live !ping, one posted while its socket was down, and one posted while it was not running, each exactly once"
    )
    func answersEveryPingOnce() async throws {
        let server = try await ReferenceServer.start()
        let bot = try await server.addAccount(
            email: "pingbot@lifeline.test", password: "ping-pong-42", username: "pingbot")
        let friend = try await server.addUser(username: "friend")
        for user in [bot.userID, friend.userID] { try await server.join(userID: user, serverID: server.lobbyServerID) }
        let channel = server.lobbyChannelID
        let accounts = FileManager.default.temporaryDirectory.appending(path: "ping-bot-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: accounts) }

        // The watcher's own HTTP client, shut down before the server stops (an idle pooled connection would hold
        // the server's graceful shutdown); the bot, as the README writes it, uses the shared one.
        let http = HTTPClient(
            eventLoopGroup: .singletonMultiThreadedEventLoopGroup, configuration: StoatAPI.httpClientConfiguration())
        // Patient deadlines: a loaded machine must not make the watcher, which only watches, reconnect.
        var patient = StoatClient.Configuration(
            connection: .init(pongTimeout: .failureBound, connectTimeout: .failureBound, readyTimeout: .failureBound))
        patient.requestTimeout = .failureBound
        let watcher = StoatClient(
            apiURL: server.apiURL, configuration: patient, network: ManualNetworkMonitor(.online), httpClient: http)
        let watching = Task { await watcher.run() }
        var replies = watcher.messages.compactMap { event -> Message? in
            guard case .received(let message, _) = event, message.author == bot.userID else { return nil }
            return message
        }.makeAsyncIterator()
        await watcher.resume(SessionCredentials(token: friend.token, userID: friend.userID))

        /// Starts the bot and waits for its socket's Ready. As a supervisor would (systemd's `Restart=`), a bot that
        /// stopped before it (its sign-in unanswered within the client's 30 s, as on a loaded machine whose
        /// in-process server answers late) is started again, three times at most.
        func startBot() async throws -> Task<Void, any Error> {
            for _ in 1...3 {
                // The bot's end as a stream: waiting on it, unlike on the task's value, stops when cancelled.
                let (stopped, stop) = AsyncStream.makeStream(of: Never.self)
                let running = Task {
                    defer { stop.finish() }
                    try await runPingBot(
                        api: server.apiURL, accounts: accounts, email: bot.email, password: bot.password)
                }
                let ready = try await withThrowingTaskGroup(of: Bool.self) { group in
                    group.addTask {
                        try await server.waitUntil(timeout: .failureBound) { connections, _ in
                            connections.contains { $0.userID == bot.userID && $0.isOpen && $0.receivedReady }
                        }
                        return true
                    }
                    group.addTask {
                        for await _ in stopped {}
                        return false
                    }
                    defer { group.cancelAll() }
                    return try await group.next() ?? false
                }
                if ready { return running }
            }
            Issue.record("the bot stopped before its socket's Ready, three times")
            throw CancellationError()
        }
        /// Posts `!ping` as the friend and returns the bot's next reply, which must answer it. Away, the ping is
        /// posted while every upgrade is refused, and the sockets may open again once it is stored.
        func ping(_ label: String, whileAway: Bool = false) async throws {
            if whileAway {
                do {
                    try await server.waitUntil(timeout: .failureBound) { connections, _ in
                        !connections.contains { $0.userID == bot.userID && $0.isOpen }
                    }
                } catch {
                    Issue.record("\(label): the bot's socket stayed open: \(error)")
                    throw error
                }
            }
            let ping = try await server.postMessage(as: friend.userID, in: channel, content: "!ping")
            if whileAway {
                #expect(await botIsConnected() == false, "the ping was meant to be posted while the bot was away")
                await server.refuseNextUpgrades(0)
            }
            let reply = try #require(try await replies.next(), "\(label): no reply")
            #expect(reply.replies == [ping.id], "\(label): the reply answers another message")
            #expect(reply.content == "pong, friend", "\(label)")
        }
        func botIsConnected() async -> Bool {
            await server.connections().contains { $0.userID == bot.userID && $0.isOpen }
        }

        var running = try await startBot()
        try await ping("live")

        // The bot's socket drops, and every upgrade (the bot's or the watcher's) is refused until the ping is posted:
        // only the catch-up after the bot's reconnect can find it. A count of refusals would race the bot's retries
        // on a loaded machine (it could be back before the test looks).
        await server.refuseNextUpgrades(.max)
        #expect(await server.dropAllSockets() >= 1)
        try await ping("during an outage", whileAway: true)
        try await ping("live after the outage")

        // The bot stops (its store keeps the session and the chats); a ping comes while it is not running.
        running.cancel()
        _ = try? await running.value
        let missed = try await server.postMessage(as: friend.userID, in: channel, content: "!ping")
        running = try await startBot()
        let reply = try #require(try await replies.next())
        #expect(reply.replies == [missed.id], "the restarted bot answered something other than the missed ping")
        // Nothing answered twice: the next reply answers the next ping.
        try await ping("live after the restart")

        running.cancel()
        _ = try? await running.value
        watching.cancel()
        await watching.value
        try? await http.shutdown()
        await server.stop()
    }
}
