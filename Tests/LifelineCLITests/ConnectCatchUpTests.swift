import Foundation
import StoatReferenceServer
import Testing

@Suite("lifeline connect: catch-up, read states, gaps", .hangBound)
struct ConnectCatchUpTests {
    @Test(
        "chats carry unread and mentions; ack reads a chat; an outage's messages come caught up, with the edits and deletions found, a catch_up line, and older pages"
    )
    func catchUpLines() async throws {
        let server = try await ReferenceServer.start()
        let account = server.defaultAccount
        let friend = try await server.addUser(username: "friend")
        try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
        let random = try await server.addTextChannel(serverID: server.lobbyServerID, name: "random").id
        let kept = try await server.postMessage(as: friend.userID, in: random, content: "kept")
        let edited = try await server.postMessage(as: friend.userID, in: random, content: "to edit")
        let deleted = try await server.postMessage(as: friend.userID, in: random, content: "to delete")
        let run = try ConnectRun(
            ["--api", server.apiURL.absoluteString, "--token=\(account.token)", "--network", "manual"]
                + ConnectCommandTests.fast)
        run.send("open \(random)")
        let first = try #require(await run.next { $0["type"] as? String == "catch_up" })
        #expect(first["complete"] as? Bool == true)
        #expect(first["gaps"] as? Int == 0)
        func chat(_ line: [String: Any]?, _ id: String) -> [String: Any]? {
            (line?["recent"] as? [[String: Any]])?.first { $0["id"] as? String == id }
        }
        let screen = try #require(chat(await run.next { $0["type"] as? String == "chats" }, random))
        #expect(screen["unread"] as? Bool == true)
        #expect(screen["mentions"] as? Int == 0)
        #expect(screen["last_message"] as? String == "to delete")

        run.send("ack \(random)")
        let read = await run.next { line in
            line["type"] as? String == "chats" && chat(line, random)?["unread"] as? Bool == false
        }
        #expect(read != nil)
        // The request follows 1.5 s later (the client's debounce, on the process's clock).
        await waitUntil {
            await server.unreads(userID: account.userID).first { $0.channel == random }?.lastID == deleted.id
        }

        // The device goes offline; meanwhile the friend posts, edits and deletes.
        run.send("offline")
        _ = await run.next { $0["type"] as? String == "command" && $0["command"] as? String == "offline" }
        _ = await server.dropAllSockets()
        _ = await run.transition(to: "OFFLINE")
        let missed = try await server.postMessage(
            as: friend.userID, in: random, content: "while away <@\(account.userID)>")
        try await server.editMessage(id: edited.id, content: "edited while away")
        try await server.deleteMessage(id: deleted.id)
        run.send("online")
        #expect(await run.transition(to: "CONNECTED") != nil)
        var lines: [String: [String: Any]] = [:]
        while lines["catch_up"] == nil {
            let line = try #require(await run.next { _ in true })
            let type = line["type"] as? String ?? ""
            if ["message", "message_update", "message_delete", "catch_up"].contains(type) { lines[type] = line }
        }
        #expect(lines["message"]?["id"] as? String == missed.id)
        #expect(lines["message"]?["caught_up"] as? Bool == true)
        #expect(lines["message_update"]?["id"] as? String == edited.id)
        #expect(lines["message_update"]?["content"] as? String == "edited while away")
        #expect(lines["message_delete"]?["id"] as? String == deleted.id)
        #expect(lines["message_delete"]?["channel"] as? String == random)
        #expect(lines["catch_up"]?["complete"] as? Bool == true)
        #expect(lines["catch_up"]?["messages"] as? Int == 1)
        let after = try #require(chat(await run.next { $0["type"] as? String == "chats" }, random))
        #expect(after["unread"] as? Bool == true)
        #expect(after["mentions"] as? Int == 1)
        #expect(after["last_message"] as? String == "while away <@\(account.userID)>")

        run.send("history \(random)")
        let history = try #require(await run.next { $0["type"] as? String == "history" })
        #expect(
            (history["messages"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [
                kept.id, edited.id, missed.id,
            ])
        #expect((history["gaps"] as? [Any])?.isEmpty == true)
        run.send("older \(random)")
        let older = try #require(await run.next { $0["type"] as? String == "history" })
        #expect((older["messages"] as? [Any])?.isEmpty == true)
        #expect(older["gaps"] as? [Any] != nil)
        #expect(await run.quit() == 0)
        await server.stop()
    }
}
