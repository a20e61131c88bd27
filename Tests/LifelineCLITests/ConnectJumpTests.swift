import Foundation
import StoatReferenceServer
import Testing

/// `lifeline connect`'s `around CHANNEL ID` and `first-unread CHANNEL`: a `history` line of the page jumped to,
/// its `gaps` bounding it.
@Suite("lifeline connect: jumping to a message and to the first unread", .hangBound)
struct ConnectJumpTests {
    static func ids(_ line: [String: Any]?) -> [String] {
        (line?["messages"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
    }

    static func gaps(_ line: [String: Any]?) -> [[String]] {
        (line?["gaps"] as? [[String: Any]])?.compactMap { gap in
            (gap["after"] as? String).flatMap { after in (gap["before"] as? String).map { [after, $0] } }
        } ?? []
    }

    @Test(
        "around answers the page around a message with the gap above it; first-unread the page at the first unread, or the newest"
    )
    func aroundAndFirstUnread() async throws {
        let server = try await ReferenceServer.start()
        let account = server.defaultAccount
        let friend = try await server.addUser(username: "friend")
        try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
        let random = try await server.addTextChannel(serverID: server.lobbyServerID, name: "random").id
        var posted: [String] = []
        for index in 0..<150 {
            posted.append(try await server.postMessage(as: friend.userID, in: random, content: "m\(index)").id)
        }
        let run = try ConnectRun(
            ["--api", server.apiURL.absoluteString, "--token=\(account.token)", "--network", "manual"]
                + ConnectCommandTests.fast)
        #expect(await run.transition(to: "CONNECTED") != nil)
        // The client holds the newest 100.
        run.send("history \(random)")
        let newest = await run.next { $0["type"] as? String == "history" }
        #expect(Self.ids(newest) == Array(posted[50...]))

        // An old message: the 26 from it on and the 10 before it; the gap up to the newest 100 bounds it.
        run.send("around \(random) \(posted[10])")
        let around = await run.next { $0["type"] as? String == "history" }
        #expect(Self.ids(around) == Array(posted[0...35]))
        #expect(Self.gaps(around) == [[posted[35], posted[50]]])
        #expect(around?["target"] as? String == posted[10])
        #expect(around?["stale"] as? Bool == false)

        // Read up to m119 here: the first unread is m120, inside what the client holds, so no gap bounds it.
        run.send("ack \(random) \(posted[119])")
        _ = await run.next {
            $0["type"] as? String == "command" && $0["command"] as? String == "ack \(random) \(posted[119])"
        }
        run.send("first-unread \(random)")
        let unread = await run.next { $0["type"] as? String == "history" }
        #expect(unread?["target"] as? String == posted[120])
        #expect(Self.ids(unread) == Array(posted[93...144]))
        #expect(Self.gaps(unread).isEmpty)

        // Everything read: no first unread, and the page is the newest messages.
        run.send("ack \(random) \(posted[149])")
        _ = await run.next {
            $0["type"] as? String == "command" && $0["command"] as? String == "ack \(random) \(posted[149])"
        }
        run.send("first-unread \(random)")
        let none = await run.next { $0["type"] as? String == "history" }
        #expect(none.map { $0.keys.contains("target") && $0["target"] is NSNull } == true)
        #expect(Self.ids(none).last == posted[149])

        run.send("around \(random)")
        let refused = await run.next {
            $0["type"] as? String == "command" && $0["command"] as? String == "around \(random)"
        }
        #expect(refused?["accepted"] as? Bool == false)
        #expect(await run.quit() == 0)
        await server.stop()
    }
}
