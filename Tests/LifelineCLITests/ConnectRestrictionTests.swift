import Foundation
import StoatReferenceServer
import Testing

/// `lifeline connect --json` printing the deadlines the server sets: member timeouts and slowmodes.
@Suite("lifeline connect: the server's deadlines", .hangBound)
struct ConnectRestrictionTests {
    @Test(
        "a timeout prints timeout with its server and until, then timeout_ended; a slowmode prints slowmode, then slowmode_ended"
    )
    func deadlineLines() async throws {
        let server = try await ReferenceServer.start()
        let lobby = server.lobbyServerID
        // A plain member: the lobby's owner is above timeouts and slowmodes.
        let member = try await server.addUser(username: "member")
        try await server.join(userID: member.userID, serverID: lobby)
        let slow = try await server.addTextChannel(serverID: lobby, name: "slow", slowmode: 600)
        let run = try ConnectRun(
            ["--api", server.apiURL.absoluteString] + ConnectCommandTests.fast,
            environment: ["LIFELINE_TOKEN": member.token])
        #expect(await run.transition(to: "CONNECTED") != nil)

        let until = await server.now().addingTimeInterval(3_600)
        try await server.timeOutMember(userID: member.userID, serverID: lobby, until: until)
        let timeout = try #require(await run.next { $0["type"] as? String == "timeout" })
        #expect(timeout["server"] as? String == lobby)
        let printed = try #require(timeout["until"] as? String)
        let parsed = try Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(printed)
        #expect(abs(parsed.timeIntervalSince(until)) < 0.002, "\(printed): milliseconds, truncated twice")
        #expect(Set(timeout.keys) == ["type", "server", "until"])
        try await server.timeOutMember(userID: member.userID, serverID: lobby, until: nil)
        let ended = try #require(await run.next { $0["type"] as? String == "timeout_ended" })
        #expect(ended["server"] as? String == lobby)
        #expect(Set(ended.keys) == ["type", "server"])

        run.send("send \(slow.id) first")
        let slowmode = try #require(await run.next { $0["type"] as? String == "slowmode" })
        #expect(slowmode["channel"] as? String == slow.id)
        #expect(slowmode["retry_after"] as? Int == 600)
        try await server.setSlowmode(channelID: slow.id, seconds: nil)
        let slowEnded = try #require(await run.next { $0["type"] as? String == "slowmode_ended" })
        #expect(slowEnded["channel"] as? String == slow.id)
        #expect(await run.quit() == 0)
        await server.stop()
    }
}
