import Foundation
import StoatReferenceServer
import Testing

/// `lifeline connect`'s `ack CHANNEL [ID]`, answered at once, and a session token alone connecting without asking
/// the server who the user is.
@Suite("lifeline connect: acks and the viewer", .hangBound)
struct ConnectAckTests {
    static func chat(_ line: [String: Any]?, _ id: String) -> [String: Any]? {
        (line?["recent"] as? [[String: Any]])?.first { $0["id"] as? String == id }
    }

    @Test(
        "ack CHANNEL ID answers at once with the chat read; the request follows; a write the server fails makes it unread again"
    )
    func ackAnswersAtOnce() async throws {
        let server = try await ReferenceServer.start()
        let account = server.defaultAccount
        let friend = try await server.addUser(username: "friend")
        try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
        let random = try await server.addTextChannel(serverID: server.lobbyServerID, name: "random").id
        let first = try await server.postMessage(as: friend.userID, in: random, content: "first")
        let second = try await server.postMessage(as: friend.userID, in: random, content: "second")
        let run = try ConnectRun(
            ["--api", server.apiURL.absoluteString, "--token=\(account.token)"] + ConnectCommandTests.fast)
        _ = try #require(await run.next { $0["type"] as? String == "catch_up" })
        // The chat's newest message, as the client knows it: Ready's `last_message_id` lags as stoatchat's does
        // (about 6 s), so on a fast machine it does not name the second message yet; its history does.
        run.send("history \(random)")
        let history = await run.next { line in
            line["type"] as? String == "history"
                && (line["messages"] as? [[String: Any]])?.contains { $0["id"] as? String == second.id } == true
        }
        #expect(history != nil, "the history shows the second message")
        // An explicit id: read up to the first message, so the chat stays unread (the second is newer).
        run.send("ack \(random) \(first.id)")
        let command = try #require(
            await run.next {
                $0["type"] as? String == "command" && ($0["command"] as? String)?.hasPrefix("ack") == true
            })
        #expect(command["command"] as? String == "ack \(random) \(first.id)")
        #expect(command["accepted"] as? Bool == true)
        await waitUntil {
            await server.unreads(userID: account.userID).first { $0.channel == random }?.lastID == first.id
        }
        // Without an id: the newest message the cache knows. The server's write fails after its ChannelAck.
        await server.failNextAckWrites(1)
        run.send("ack \(random)")
        let read = await run.next { line in
            line["type"] as? String == "chats" && Self.chat(line, random)?["unread"] as? Bool == false
        }
        #expect(read != nil, "read at once")
        let undone = await run.next { line in
            line["type"] as? String == "chats" && Self.chat(line, random)?["unread"] as? Bool == true
        }
        #expect(undone != nil, "unread again once the server failed it")
        #expect(await server.unreads(userID: account.userID).first { $0.channel == random }?.lastID == first.id)
        #expect(await run.quit() == 0)
        await server.stop()
    }

    @Test(
        "A session token alone connects on both events servers without GET /users/@me: the viewer is Ready's own user"
    )
    func tokenAlone() async throws {
        for events in [ReferenceServer.EventsServer.bonfire, .gateway] {
            let server = try await ReferenceServer.start(.init(events: events))
            let run = try ConnectRun(
                ["--api", server.apiURL.absoluteString] + ConnectCommandTests.fast,
                environment: ["LIFELINE_TOKEN": server.defaultAccount.token])
            #expect(await run.transition(to: "CONNECTED") != nil)
            _ = try #require(await run.next { $0["type"] as? String == "catch_up" })
            #expect(await server.requestCounts()["GET /users/@me"] == nil, "\(events)")
            #expect(await run.quit() == 0)
            await server.stop()
        }
    }
}
