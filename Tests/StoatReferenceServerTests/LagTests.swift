import Foundation
import Testing

@testable import StoatReferenceServer

@Suite("stoatchat's debounced last_message_id, as a value")
struct LastMessageIDQueueTests {
    static let start = Date(timeIntervalSince1970: 1_750_000_000)

    func at(_ seconds: TimeInterval) -> Date { Self.start.addingTimeInterval(seconds) }

    @Test("A quiet channel's update is committed about 6 s after its message, not before")
    func quiet() throws {
        var queue = LastMessageIDQueue(origin: at(0))
        #expect(queue.push(channel: "C", id: "M1", isDirectMessage: false, at: at(10.05)).isEmpty)
        #expect(queue.due(at: at(15.5)).isEmpty)
        let commits = queue.due(at: at(16.5))
        #expect(commits.map(\.id) == ["M1"])
        // Taken by the worker waking at 10.2 s, committed at its tick 6 s later. (A failure, not a crash, when
        // nothing was committed: an index out of range would end the whole test run.)
        let commit = try #require(commits.first)
        #expect(abs(commit.time.timeIntervalSince(at(16.2))) < 0.001)
        #expect(queue.isEmpty)
    }

    @Test("A busy channel is committed 31 s after its first update at the latest, with the newest id its worker holds")
    func busy() throws {
        var queue = LastMessageIDQueue(origin: at(0))
        var committed: [LastMessageIDQueue.Commit] = []
        // A message every 2 s for a minute: no worker's task ever goes 6 s without an update.
        for step in 0..<30 {
            let time = at(Double(step) * 2)
            committed += queue.push(channel: "C", id: String(format: "M%02d", step), isDirectMessage: false, at: time)
        }
        let first = try #require(committed.first)
        #expect(first.time <= at(32))
        #expect(first.time >= at(31))
        committed += queue.due(at: at(120))
        #expect(committed.last?.id == "M29")
    }

    @Test("A full queue drops the updates past its 10,000 slots")
    func full() {
        var queue = LastMessageIDQueue(origin: at(0))
        for index in 0..<(LastMessageIDQueue.capacity + 3) {
            _ = queue.push(channel: "C\(index)", id: "M\(index)", isDirectMessage: false, at: at(0.5))
        }
        #expect(queue.dropped == 3)
        #expect(queue.due(at: at(60)).count == LastMessageIDQueue.capacity)
    }
}

@Suite("The reference server as late and lossy as stoatchat")
struct LagTests {
    @Test("last_message_id and a direct message's active follow a send only when stoatchat's task commits them")
    func lastMessageIDLags() async throws {
        let clock = ManualClock()
        try await withServer(clock: clock) { server throws in
            let friend = try await server.addUser(username: "friend")
            try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
            let before = await server.channel(id: server.lobbyChannelID)?.lastMessageID
            let sent = try await server.postMessage(as: friend.userID, in: server.lobbyChannelID, content: "late")
            let fetched = try await server.http(.GET, "/channels/\(server.lobbyChannelID)", token: friend.token)
            #expect(fetched.json?["last_message_id"] as? String == before)
            clock.advance(by: 4)
            #expect(await server.channel(id: server.lobbyChannelID)?.lastMessageID == before)
            clock.advance(by: 3)
            #expect(await server.channel(id: server.lobbyChannelID)?.lastMessageID == sent.id)
            let again = try await server.http(.GET, "/channels/\(server.lobbyChannelID)", token: friend.token)
            #expect(again.json?["last_message_id"] as? String == sent.id)
        }
    }

    @Test("Turned off, a send writes last_message_id at once; what was pending is committed when it is turned off")
    func lagOff() async throws {
        let clock = ManualClock()
        try await withServer(clock: clock) { server throws in
            let pending = try await server.postMessage(
                as: server.defaultAccount.userID, in: server.lobbyChannelID, content: "pending")
            #expect(await server.channel(id: server.lobbyChannelID)?.lastMessageID != pending.id)
            let admin = try await server.admin(.POST, "/last-message-id-lag", json: #"{"enabled":false}"#)
            #expect(admin.status == 204)
            #expect(await server.channel(id: server.lobbyChannelID)?.lastMessageID == pending.id)
            let now = try await server.postMessage(
                as: server.defaultAccount.userID, in: server.lobbyChannelID, content: "now")
            #expect(await server.channel(id: server.lobbyChannelID)?.lastMessageID == now.id)
        }
    }

    @Test("A message, a profile and a direct message are served as stoatchat's routes answer them")
    func readingRoutes() async throws {
        try await withServer { server throws in
            let owner = server.defaultAccount
            let friend = try await server.addUser(username: "friend")
            let stranger = try await server.addUser(username: "stranger")
            try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
            let sent = try await server.postMessage(as: owner.userID, in: server.lobbyChannelID, content: "one")
            let message = try await server.http(
                .GET, "/channels/\(server.lobbyChannelID)/messages/\(sent.id)", token: friend.token)
            #expect(message.status == 200)
            #expect(message.json?["content"] as? String == "one")
            let hidden = try await server.http(
                .GET, "/channels/\(server.lobbyChannelID)/messages/\(sent.id)", token: stranger.token)
            #expect(hidden.json?["permission"] as? String == "ViewChannel")
            let elsewhere = try await server.http(
                .GET, "/channels/\(server.lobbyChannelID)/messages/\(server.lobbyChannelID)", token: friend.token)
            #expect(elsewhere.errorType == "NotFound")

            let profile = try await server.http(.GET, "/users/\(owner.userID)/profile", token: friend.token)
            #expect(profile.status == 200)
            #expect(profile.json?.isEmpty == true)
            let refused = try await server.http(.GET, "/users/\(owner.userID)/profile", token: stranger.token)
            #expect(refused.json?["permission"] as? String == "ViewProfile")

            try await server.makeFriends(owner.userID, friend.userID)
            let dm = try await server.http(.GET, "/users/\(friend.userID)/dm", token: owner.token)
            #expect(dm.json?["channel_type"] as? String == "DirectMessage")
            let same = try await server.http(.GET, "/users/\(owner.userID)/dm", token: friend.token)
            #expect(same.json?["_id"] as? String == dm.json?["_id"] as? String)
            let saved = try await server.http(.GET, "/users/\(owner.userID)/dm", token: owner.token)
            #expect(saved.json?["channel_type"] as? String == "SavedMessages")
            let noDM = try await server.http(.GET, "/users/\(owner.userID)/dm", token: stranger.token)
            #expect(noDM.json?["permission"] as? String == "SendMessage")

            let unknown = try await server.http(.GET, "/no/such/route", token: owner.token)
            #expect(unknown.status == 404)
            #expect((unknown.json?["error"] as? [String: Any])?["code"] as? Int == 404)
        }
    }
}

@Suite("The gateway's holes: webhooks, restarted sessions, reordered events")
struct GatewayLagTests {
    @Test("consumer.ex: a webhook's message in a server channel reaches no gateway socket; bonfire delivers it")
    func webhookDropped() async throws {
        try await withServer(configure: GatewayTests.gateway) { server throws in
            let socket = try await GatewayTests.authenticated(server, token: server.defaultAccount.token)
            let hook = try await server.postWebhookMessage(in: server.lobbyChannelID, name: "CI", content: "built")
            #expect(hook.webhook?.name == "CI")
            let marker = try await server.postMessage(
                as: server.defaultAccount.userID, in: server.lobbyChannelID, content: "marker")
            // The next message event is the member's: the webhook's never came.
            let next = try #require(try await socket.nextEvent("Message"))
            #expect(next["_id"] as? String == marker.id)
            let stored = try await server.http(
                .GET, "/channels/\(server.lobbyChannelID)/messages/\(hook.id)", token: server.defaultAccount.token)
            #expect((stored.json?["webhook"] as? [String: Any])?["name"] as? String == "CI")
            #expect(stored.json?["author"] as? String == hook.author)
        }
        try await withServer { server throws in
            let socket = try await server.connectReady(token: server.defaultAccount.token)
            let hook = try await server.postWebhookMessage(in: server.lobbyChannelID, content: "built")
            let next = try #require(try await socket.nextEvent("Message"))
            #expect(next["_id"] as? String == hook.id)
        }
    }

    @Test("session.ex: a restarted session process sends a second Ready on the open socket; events meanwhile are lost")
    func sessionRestart() async throws {
        try await withServer(configure: GatewayTests.gateway) { server throws in
            let owner = server.defaultAccount
            let socket = try await GatewayTests.authenticated(server, token: owner.token)
            #expect(await server.crashGatewaySessions(userID: owner.userID) == 1)
            let lost = try await server.postMessage(as: owner.userID, in: server.lobbyChannelID, content: "lost")
            #expect(await server.restoreGatewaySessions(userID: owner.userID) == 1)
            #expect(try await socket.nextType() == "Ready")
            let after = try await server.postMessage(as: owner.userID, in: server.lobbyChannelID, content: "after")
            let next = try #require(try await socket.nextEvent("Message"))
            #expect(next["_id"] as? String == after.id)
            #expect(lost.id < after.id)
            let admin = try await server.admin(
                .POST, "/restart-session", json: #"{"user_id":"\#(owner.userID)","down_milliseconds":1}"#)
            #expect(admin.json?["restarted"] as? Int == 1)
            #expect(try await socket.nextType() == "Ready")
        }
    }

    @Test("consumer.ex's parallel processors: a held Message goes out after the MessageDelete published next")
    func reordered() async throws {
        try await withServer(configure: GatewayTests.gateway) { server throws in
            let owner = server.defaultAccount
            let socket = try await GatewayTests.authenticated(server, token: owner.token)
            await server.reorderMessages(1)
            let message = try await server.postMessage(as: owner.userID, in: server.lobbyChannelID, content: "gone")
            try await server.deleteMessage(id: message.id)
            let first = try #require(try await socket.nextJSON())
            #expect(first["type"] as? String == "MessageDelete")
            let second = try #require(try await socket.nextJSON())
            #expect(second["type"] as? String == "Message")
            #expect(second["_id"] as? String == message.id)
        }
    }
}
