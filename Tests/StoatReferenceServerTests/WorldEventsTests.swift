import Foundation
import Testing

@testable import StoatReferenceServer

/// A lobby with its owner, a member and a stranger, each with a listening socket.
struct World {
    let server: ReferenceServer
    let owner: SeededAccount
    let member: SeededAccount
    let stranger: SeededAccount
    let ownerSocket: TestSocket
    let memberSocket: TestSocket
    let strangerSocket: TestSocket

    static func make(_ server: ReferenceServer) async throws -> World {
        let member = try await server.addUser(username: "member")
        let stranger = try await server.addUser(username: "stranger")
        try await server.join(userID: member.userID, serverID: server.lobbyServerID)
        let world = World(
            server: server, owner: server.defaultAccount, member: member, stranger: stranger,
            ownerSocket: try await server.connectReady(token: server.defaultAccount.token),
            memberSocket: try await server.connectReady(token: member.token),
            strangerSocket: try await server.connectReady(token: stranger.token))
        // The member came online after the owner: the owner heard it, and no one else heard anything.
        let online = try await world.ownerSocket.nextEvent("UserUpdate")
        #expect(online?["id"] as? String == member.userID)
        return world
    }

    /// Proves that `sockets` received nothing (but frames of `skipped` types) before now: each one's next frame
    /// is a marker.
    func expectNothingMore(_ sockets: [TestSocket], skipping skipped: Set<String> = []) async throws {
        let marker = #"{"type":"Marker"}"#
        await server.sendRawFrame(marker)
        for socket in sockets { #expect(try await socket.next(skipping: skipped) == marker) }
    }

    func close() async {
        for socket in [ownerSocket, memberSocket, strangerSocket] { await socket.close() }
    }
}

@Suite("Events: what reaches which sockets, as bonfire's topics decide")
struct WorldEventsTests {
    @Test("A message reaches the channel's viewers, the sender included, with the relationship of each receiver")
    func messageFanOut() async throws {
        try await withServer { server throws in
            let world = try await World.make(server)
            try await server.makeFriends(world.owner.userID, world.member.userID)
            let sent = try await server.http(
                .POST, "/channels/\(server.lobbyChannelID)/messages", token: world.member.token,
                json: #"{"content":"hello"}"#)
            let id = try #require(sent.json?["_id"] as? String)
            for (socket, relationship) in [(world.ownerSocket, "Friend"), (world.memberSocket, "User")] {
                let event = try #require(try await socket.nextEvent("Message"))
                #expect(event["_id"] as? String == id)
                #expect(event["content"] as? String == "hello")
                #expect((event["user"] as? [String: Any])?["relationship"] as? String == relationship)
                #expect(
                    ((event["member"] as? [String: Any])?["_id"] as? [String: String])?["user"] == world.member.userID)
            }
            try await world.expectNothingMore([world.strangerSocket])
            await world.close()
        }
    }

    @Test("Typing reaches the channel's viewers, the typist's own sockets too, and no one else")
    func typing() async throws {
        try await withServer { server throws in
            let world = try await World.make(server)
            let channel = server.lobbyChannelID
            await world.memberSocket.send(#"{"type":"BeginTyping","channel":"\#(channel)"}"#)
            for socket in [world.ownerSocket, world.memberSocket] {
                let start = try #require(try await socket.nextJSON(skipping: []))
                #expect(start["type"] as? String == "ChannelStartTyping")
                #expect(start["id"] as? String == channel)
                #expect(start["user"] as? String == world.member.userID)
            }
            await world.memberSocket.send(#"{"type":"EndTyping","channel":"\#(channel)"}"#)
            #expect(try await world.ownerSocket.nextJSON(skipping: [])?["type"] as? String == "ChannelStopTyping")
            #expect(try await world.memberSocket.nextJSON(skipping: [])?["type"] as? String == "ChannelStopTyping")
            // A stranger's typing in a channel they cannot see goes nowhere.
            await world.strangerSocket.send(#"{"type":"BeginTyping","channel":"\#(channel)"}"#)
            try await server.waitUntil { records, _ in
                records.last?.receivedFrames.last?.contains("BeginTyping") == true
            }
            try await world.expectNothingMore([world.ownerSocket, world.memberSocket, world.strangerSocket])
            await world.close()
        }
    }

    @Test(
        "Edits and deletions reach the channel as MessageUpdate and MessageDelete; deleting the last moves last_message_id"
    )
    func updateAndDelete() async throws {
        try await withServer { server throws in
            // This test pins how Message::delete moves a committed last_message_id; the debounce that commits it
            // (LagTests) is turned off so that each send's field is committed with it.
            await server.setLastMessageIDLag(false)
            let world = try await World.make(server)
            let channel = server.lobbyChannelID
            let first = try await server.postMessage(as: world.member.userID, in: channel, content: "one")
            let second = try await server.postMessage(as: world.member.userID, in: channel, content: "two")
            try await server.editMessage(id: first.id, content: "uno")
            let update = try #require(try await world.ownerSocket.nextEvent("MessageUpdate"))
            #expect(update["id"] as? String == first.id)
            #expect(update["channel"] as? String == channel)
            let data = try #require(update["data"] as? [String: Any])
            #expect(data["content"] as? String == "uno")
            #expect(data["edited"] is String)
            #expect(update["clear"] as? [String] == [])
            try await server.deleteMessage(id: second.id)
            let channelUpdate = try #require(try await world.ownerSocket.nextJSON(skipping: []))
            #expect(channelUpdate["type"] as? String == "ChannelUpdate")
            #expect((channelUpdate["data"] as? [String: Any])?["last_message_id"] as? String == first.id)
            let deletion = try #require(try await world.ownerSocket.nextJSON(skipping: []))
            #expect(deletion["type"] as? String == "MessageDelete")
            #expect(deletion["id"] as? String == second.id)
            #expect(await server.channel(id: channel)?.lastMessageID == first.id)
            try await server.deleteMessage(id: first.id)
            // No message is left: last_message_id is cleared, and no ChannelUpdate says so.
            #expect(try await world.ownerSocket.nextJSON(skipping: [])?["type"] as? String == "MessageDelete")
            #expect(await server.channel(id: channel)?.lastMessageID == nil)
            try await world.expectNothingMore([world.strangerSocket])
            await world.close()
        }
    }

    @Test("Joining sends ServerMemberJoin to the server and ServerCreate to the joiner, who then hears the server")
    func join() async throws {
        try await withServer { server throws in
            let world = try await World.make(server)
            try await server.join(userID: world.stranger.userID, serverID: server.lobbyServerID)
            let joined = try #require(try await world.ownerSocket.nextEvent("ServerMemberJoin"))
            #expect(joined["id"] as? String == server.lobbyServerID)
            #expect(joined["user"] as? String == world.stranger.userID)
            #expect(
                ((joined["member"] as? [String: Any])?["_id"] as? [String: String])?["user"] == world.stranger.userID)
            let created = try #require(try await world.strangerSocket.nextJSON(skipping: []))
            #expect(created["type"] as? String == "ServerCreate")
            #expect((created["server"] as? [String: Any])?["_id"] as? String == server.lobbyServerID)
            #expect((created["channels"] as? [[String: Any]])?.isEmpty == false)
            #expect(created["voice_states"] as? [Any] != nil)
            try await server.postMessage(as: world.owner.userID, in: server.lobbyChannelID, content: "welcome")
            #expect(try await world.strangerSocket.nextEvent("Message")?["content"] as? String == "welcome")
            await world.close()
        }
    }

    @Test("Leaving sends ServerMemberLeave with the reason, the leaver included, who then hears no more of it")
    func leave() async throws {
        try await withServer { server throws in
            let world = try await World.make(server)
            try await server.removeMember(userID: world.member.userID, serverID: server.lobbyServerID, reason: "Kick")
            for socket in [world.ownerSocket, world.memberSocket] {
                let left = try #require(try await socket.nextEvent("ServerMemberLeave"))
                #expect(left["id"] as? String == server.lobbyServerID)
                #expect(left["user"] as? String == world.member.userID)
                #expect(left["reason"] as? String == "Kick")
            }
            try await server.postMessage(as: world.owner.userID, in: server.lobbyChannelID, content: "after")
            #expect(try await world.ownerSocket.nextEvent("Message") != nil)
            try await world.expectNothingMore([world.memberSocket, world.strangerSocket])
            await world.close()
        }
    }

    @Test("A timeout set and cleared is ServerMemberUpdate with data.timeout, then clear [Timeout]")
    func timeoutEvents() async throws {
        let clock = ManualClock()
        try await withServer(clock: clock) { server throws in
            let world = try await World.make(server)
            let until = clock.now.addingTimeInterval(600)
            try await server.timeOutMember(userID: world.member.userID, serverID: server.lobbyServerID, until: until)
            let set = try #require(try await world.memberSocket.nextEvent("ServerMemberUpdate"))
            #expect(set["id"] as? [String: String] == ["server": server.lobbyServerID, "user": world.member.userID])
            #expect((set["data"] as? [String: Any])?["timeout"] as? String == StoatTimestamp.string(until))
            #expect(set["clear"] as? [String] == [])
            try await server.timeOutMember(userID: world.member.userID, serverID: server.lobbyServerID, until: nil)
            #expect(try await world.ownerSocket.nextEvent("ServerMemberUpdate")?["clear"] as? [String] == [])
            let cleared = try #require(try await world.ownerSocket.nextEvent("ServerMemberUpdate"))
            #expect((cleared["data"] as? [String: Any])?.isEmpty == true)
            #expect(cleared["clear"] as? [String] == ["Timeout"])
            #expect(await server.member(userID: world.member.userID, serverID: server.lobbyServerID)?.timeout == nil)
            await world.close()
        }
    }

    @Test(
        "Presence: a user's first socket past Ready is UserUpdate{online:true} to fellow members, the last closing false"
    )
    func presence() async throws {
        try await withServer { server throws in
            let member = try await server.addUser(username: "member")
            try await server.join(userID: member.userID, serverID: server.lobbyServerID)
            let owner = try await server.connectReady(token: server.defaultAccount.token)
            let socket = try await server.connectReady(token: member.token)
            let online = try #require(try await owner.nextEvent("UserUpdate"))
            #expect(online["id"] as? String == member.userID)
            #expect((online["data"] as? [String: Any])?["online"] as? Bool == true)
            #expect(online.keys.contains("event_id"))
            let me = try await server.http(.GET, "/users/@me", token: member.token)
            #expect(me.json?["online"] as? Bool == true)
            await socket.close()
            let offline = try #require(try await owner.nextEvent("UserUpdate"))
            #expect((offline["data"] as? [String: Any])?["online"] as? Bool == false)
            await owner.close()
        }
    }

    @Test("Slowmodes in force are sent as UserSlowmodes right after Ready")
    func slowmodesAfterReady() async throws {
        let clock = ManualClock()
        try await withServer(clock: clock) { server throws in
            let member = try await server.addUser(username: "member")
            try await server.join(userID: member.userID, serverID: server.lobbyServerID)
            try await server.setSlowmode(channelID: server.lobbyChannelID, seconds: 120)
            try await server.postMessage(as: member.userID, in: server.lobbyChannelID, content: "first")
            clock.advance(by: 20)
            let socket = await TestSocket.connect(server.eventsURL("&token=\(member.token)"))
            #expect(try await socket.nextType() == "Authenticated")
            #expect(try await socket.nextType() == "Ready")
            let slowmodes = try #require(try await socket.nextJSON())
            #expect(slowmodes["type"] as? String == "UserSlowmodes")
            let entry = try #require((slowmodes["slowmodes"] as? [[String: Any]])?.first)
            #expect(entry["channel_id"] as? String == server.lobbyChannelID)
            #expect(entry["duration"] as? Int == 100)
            #expect(entry["retry_after"] as? Int == 100)
            // A refused send tells the sockets too.
            let refused = try await server.http(
                .POST, "/channels/\(server.lobbyChannelID)/messages", token: member.token, json: #"{"content":"x"}"#)
            #expect(refused.errorType == "InSlowmode")
            let live = try #require(try await socket.nextEvent("UserSlowmodes"))
            #expect((live["slowmodes"] as? [[String: Any]])?.first?["retry_after"] as? Int == 100)
            let none = await TestSocket.connect(server.eventsURL("&token=\(server.defaultAccount.token)"))
            #expect(try await none.nextType() == "Authenticated")
            #expect(try await none.nextType() == "Ready")
            await none.send(#"{"type":"Ping","data":9}"#)
            #expect(try await none.nextType() == "Pong")
            await socket.close()
            await none.close()
        }
    }

    @Test("Frames sent while Ready is prepared wait until it is sent, as bonfire reads none before")
    func framesDuringReady() async throws {
        try await withServer { server throws in
            await server.setReadyDelay(.milliseconds(300))
            let socket = await TestSocket.connect(server.eventsURL())
            await socket.send(#"{"type":"Authenticate","token":"\#(server.defaultAccount.token)"}"#)
            #expect(try await socket.nextType() == "Authenticated")
            await socket.send(#"{"type":"Ping","data":1}"#)
            #expect(try await socket.nextType() == "Ready")
            #expect(try await socket.nextType() == "Pong")
            await socket.close()
        }
    }
}

@Suite("Subscriptions: membership, at most five, and expiry")
struct SubscriptionTests {
    @Test("Subscribe needs membership; only subscribed sockets hear a member's profile change")
    func membershipAndGating() async throws {
        try await withServer { server throws in
            let world = try await World.make(server)
            await world.strangerSocket.send(#"{"type":"Subscribe","server_id":"\#(server.lobbyServerID)"}"#)
            await world.ownerSocket.send(#"{"type":"Subscribe","server_id":"\#(server.lobbyServerID)"}"#)
            try await server.waitUntil { records, _ in
                records.filter { $0.subscriptions == [server.lobbyServerID] }.count == 2
            }
            let records = await server.connections()
            #expect(records.first { $0.userID == world.owner.userID }?.activeSubscriptions == [server.lobbyServerID])
            #expect(records.first { $0.userID == world.stranger.userID }?.activeSubscriptions == [])
            try await server.setDisplayName(userID: world.member.userID, displayName: "Member")
            let update = try #require(try await world.ownerSocket.nextEvent("UserUpdate"))
            #expect(update["id"] as? String == world.member.userID)
            #expect((update["data"] as? [String: Any])?["display_name"] as? String == "Member")
            // The member hears it on their own topic; the unsubscribed stranger does not.
            #expect(try await world.memberSocket.nextEvent("UserUpdate")?["id"] as? String == world.member.userID)
            try await world.expectNothingMore([world.strangerSocket])
            await world.close()
        }
    }

    @Test("A sixth subscription evicts the least recently renewed, whose member events stoatchat never unsubscribes")
    func atMostFive() async throws {
        try await withServer { server throws in
            let owner = server.defaultAccount
            var serverIDs: [String] = []
            for index in 0..<6 {
                let id = "SERVER\(index)"
                await server.addServer(StoatServer(id: id, owner: owner.userID, name: "S\(index)"))
                try await server.join(userID: owner.userID, serverID: id)
                serverIDs.append(id)
            }
            let socket = try await server.connectReady(token: owner.token)
            for id in serverIDs { await socket.send(#"{"type":"Subscribe","server_id":"\#(id)"}"#) }
            try await server.waitUntil { records, _ in records.last?.subscriptions.count == 6 }
            let record = try #require(await server.connections().last)
            #expect(record.activeSubscriptions == Array(serverIDs.dropFirst()))
            #expect(Set(record.memberEventServers) == Set(serverIDs))
            await socket.close()
        }
    }

    @Test("Unrenewed, a subscription lapses after its lifetime: one more event arrives, then it is dropped")
    func lapse() async throws {
        let clock = ManualClock()
        try await withServer(clock: clock, configure: { $0.subscriptionLifetime = .seconds(60) }) { server throws in
            let world = try await World.make(server)
            await world.ownerSocket.send(#"{"type":"Subscribe","server_id":"\#(server.lobbyServerID)"}"#)
            try await server.waitUntil { records, _ in records.contains { $0.activeSubscriptions.count == 1 } }
            clock.advance(by: 61)
            #expect(await server.connections().first { $0.userID == world.owner.userID }?.activeSubscriptions == [])
            try await server.setDisplayName(userID: world.member.userID, displayName: "one")
            #expect(try await world.ownerSocket.nextEvent("UserUpdate") != nil)
            let record = try #require(await server.connections().first { $0.userID == world.owner.userID })
            #expect(record.lapsedSubscriptions == [server.lobbyServerID])
            #expect(record.memberEventServers.isEmpty)
            try await server.setDisplayName(userID: world.member.userID, displayName: "two")
            try await world.expectNothingMore([world.ownerSocket])
            await world.close()
        }
    }

    @Test("Renewed within its lifetime, a subscription keeps its member events")
    func renewal() async throws {
        let clock = ManualClock()
        try await withServer(clock: clock, configure: { $0.subscriptionLifetime = .seconds(60) }) { server throws in
            let world = try await World.make(server)
            let subscribe = #"{"type":"Subscribe","server_id":"\#(server.lobbyServerID)"}"#
            await world.ownerSocket.send(subscribe)
            try await server.waitUntil { records, _ in records.contains { $0.activeSubscriptions.count == 1 } }
            clock.advance(by: 50)
            await world.ownerSocket.send(subscribe)
            try await server.waitUntil { records, _ in
                records.contains { $0.receivedFrames.filter { $0.contains("Subscribe") }.count == 2 }
            }
            clock.advance(by: 50)
            for name in ["one", "two"] {
                try await server.setDisplayName(userID: world.member.userID, displayName: name)
                let update = try #require(try await world.ownerSocket.nextEvent("UserUpdate"))
                #expect((update["data"] as? [String: Any])?["display_name"] as? String == name)
            }
            #expect(await server.connections().first { $0.userID == world.owner.userID }?.lapsedSubscriptions == [])
            await world.close()
        }
    }
}
