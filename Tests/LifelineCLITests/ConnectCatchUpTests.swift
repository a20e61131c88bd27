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
        // The friend posted a while ago: the server's clock moves past stoatchat's debounce of last_message_id
        // (31 s at most), which the server reproduces, so Ready states it. The lag's own effect on the catch-up
        // is LaggingCatchUpTests' (both clocks injected); this test is about the lines.
        await server.setClockSkew(.seconds(40))
        // Two passes, each a catch_up line then the chats line: the second 33 s after CONNECTED, here 10 ms by
        // the private --catch-up-settle (the client runs in its own process, on the wall clock; a test does not
        // wait half a minute). Only the second is complete.
        let run = try ConnectRun(
            ["--api", server.apiURL.absoluteString, "--token=\(account.token)", "--network", "manual"]
                + ConnectCommandTests.fast + ["--catch-up-settle", "0.01"])
        run.send("open \(random)")
        let first = try #require(await run.next { $0["type"] as? String == "catch_up" })
        #expect(first["complete"] as? Bool == false)
        #expect(first["gaps"] as? Int == 0)
        let afterFirst = await run.next { ["chats", "catch_up"].contains($0["type"] as? String ?? "") }
        #expect(afterFirst?["type"] as? String == "chats")
        let settled = try #require(await run.next { $0["type"] as? String == "catch_up" })
        #expect(settled["complete"] as? Bool == true)
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
        // The outage lasts longer than the debounce by the server's clock.
        await server.setClockSkew(.seconds(80))
        run.send("online")
        #expect(await run.transition(to: "CONNECTED") != nil)
        var lines: [String: [String: Any]] = [:]
        var caughtUp = 0
        while lines["catch_up"]?["complete"] as? Bool != true {
            let line = try #require(await run.next { _ in true })
            let type = line["type"] as? String ?? ""
            if ["message", "message_update", "message_delete", "catch_up"].contains(type) { lines[type] = line }
            if type == "catch_up" { caughtUp += line["messages"] as? Int ?? 0 }
        }
        #expect(caughtUp == 1)
        #expect(lines["message"]?["id"] as? String == missed.id)
        #expect(lines["message"]?["caught_up"] as? Bool == true)
        #expect(lines["message_update"]?["id"] as? String == edited.id)
        #expect(lines["message_update"]?["content"] as? String == "edited while away")
        #expect(lines["message_delete"]?["id"] as? String == deleted.id)
        #expect(lines["message_delete"]?["channel"] as? String == random)
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
