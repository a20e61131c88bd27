import Foundation
import StoatReferenceServer
import Testing

/// `lifeline connect` against both of Stoat's events servers, in both formats.
@Suite("lifeline connect against bonfire and the gateway", .hangBound)
struct ConnectGatewayTests {
    @Test(
        "--format msgpack connects, delivers messages and sends in MessagePack; the default stays JSON",
        arguments: ReferenceServer.EventsServer.all)
    func messagePack(events: ReferenceServer.EventsServer) async throws {
        let server = try await ReferenceServer.start(.init(events: events))
        let account = server.defaultAccount
        let other = try await server.addUser(username: "other")
        try await server.join(userID: other.userID, serverID: server.lobbyServerID)
        for format in [["--format", "msgpack"], []] {
            let run = try ConnectRun(
                ["--api", server.apiURL.absoluteString, "--token=\(account.token)"] + ConnectCommandTests.fast
                    + format)
            #expect(await run.transition(to: "CONNECTED") != nil)
            let content = "hello \(format.isEmpty ? "json" : "msgpack")"
            _ = try await server.postMessage(as: other.userID, in: server.lobbyChannelID, content: content)
            let message = await run.next { $0["type"] as? String == "message" }
            #expect(message?["content"] as? String == content)
            #expect(message?["author"] as? String == other.userID)
            // A MessagePack frame is recorded as the JSON it stands for, keys sorted: the token before the type.
            let authenticate = await server.connections().last?.receivedFrames.first
            #expect(
                authenticate?.hasPrefix(format.isEmpty ? #"{"type":"Authenticate""# : #"{"token":"#) == true,
                "\(events) \(format): \(authenticate ?? "nothing")")
            #expect(await run.quit() == 0)
        }
        await server.stop()
    }

    /// Pings every 0.4 s to count them, with a pong timeout no loaded machine reaches: a late pong here would be
    /// a third socket the test did not ask for.
    static let countedHeartbeat = ["--heartbeat-interval", "0.4", "--pong-timeout", "30"]

    @Test(
        "against the gateway a subscription is refused once: one replay_failed line, two sockets, then it stays",
        arguments: [["--format", "json"], ["--format", "msgpack"]])
    func subscriptionRefused(format: [String]) async throws {
        let server = try await ReferenceServer.start(.init(events: .gateway))
        let account = server.defaultAccount
        let run = try ConnectRun(
            ["--api", server.apiURL.absoluteString, "--token=\(account.token)", "--subscribe", server.lobbyServerID]
                + ConnectCommandTests.fast + Self.countedHeartbeat + format)
        #expect(await run.transition(to: "CONNECTED") != nil)
        // The refusal ends the connection, and the snapshot of that end may be the one that marks the subscription
        // unsupported: a snapshot prints its transitions first, so the DISCONNECTED line may come before the
        // replay_failed line. Both are read, in either order.
        var failed: [String: Any]?
        var disconnected: [String: Any]?
        while failed == nil || disconnected == nil {
            let line = try #require(
                await run.next { line in
                    line["type"] as? String == "replay_failed"
                        || (line["type"] as? String == "transition" && line["to"] as? String == "DISCONNECTED")
                })
            if line["type"] as? String == "replay_failed" { failed = line } else { disconnected = line }
        }
        #expect(failed?["reason"] as? String == "unsupported")
        #expect(failed?["events"] as? [String] == ["subscribe(\(server.lobbyServerID))"])
        #expect(
            (disconnected?["cause"] as? [String: Any])?["code"] as? String == "frameRefused",
            "\(String(describing: disconnected))")
        #expect(await run.transition(to: "CONNECTED") != nil)
        // Ten heartbeats answered on the second socket (0.4 s apart): it stays.
        try await server.waitUntil(timeout: .failureBound) { records, _ in
            (records.last?.receivedFrames.filter { $0.contains(#""type":"Ping""#) }.count ?? 0) >= 10
        }
        run.send("typing \(server.lobbyChannelID)")
        _ = await run.next {
            $0["type"] as? String == "command" && $0["command"] as? String == "typing \(server.lobbyChannelID)"
        }
        #expect(await run.quit() == 0)
        let lines = run.printed.compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
        #expect(lines.filter { $0["type"] as? String == "replay_failed" }.count == 1, "told once")
        #expect(lines.filter { $0["type"] as? String == "transition" && $0["to"] as? String == "CONNECTED" }.count == 2)
        #expect(await server.socketCounters().upgradesAccepted == 2)
        await server.stop()
    }
}
