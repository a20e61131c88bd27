import Foundation
import NIOWebSocket
import Testing

@testable import StoatReferenceServer

@Suite("Events socket: authentication, Ready and the connection's life")
struct EventsTests {
    @Test("Authenticate is answered Authenticated, then stoatchat's default Ready with the signed-in user last")
    func authenticateThenReady() async throws {
        try await withServer { server throws in
            let account = server.defaultAccount
            let friend = try await server.addUser(username: "friend")
            try await server.makeFriends(account.userID, friend.userID)
            let member = try await server.addUser(username: "member")
            try await server.join(userID: member.userID, serverID: server.lobbyServerID)
            let socket = await TestSocket.connect(server.eventsURL())
            await socket.send(#"{"type":"Authenticate","token":"\#(account.token)"}"#)
            #expect(try await socket.nextType() == "Authenticated")
            let text = try #require(try await socket.next())
            let ready = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect(ready["type"] as? String == "Ready")
            #expect(
                Set(ready.keys)
                    == ["type", "users", "servers", "channels", "members", "emojis", "voice_states", "policy_changes"])
            #expect(text.hasPrefix(#"{"type":"Ready","users":"#))
            let users = try #require(ready["users"] as? [[String: Any]])
            // A friend is listed; a fellow server member is not; the user comes last.
            #expect(users.map { $0["_id"] as? String } == [friend.userID, account.userID])
            #expect(users.last?["relationship"] as? String == "User")
            #expect(users.last?["online"] as? Bool == true)
            #expect(users.first?["relationship"] as? String == "Friend")
            let servers = try #require(ready["servers"] as? [[String: Any]])
            #expect(servers.map { $0["_id"] as? String } == [server.lobbyServerID])
            let channels = try #require(ready["channels"] as? [[String: Any]])
            #expect(channels.first?["channel_type"] as? String == "SavedMessages")
            #expect(channels.contains { $0["_id"] as? String == server.lobbyChannelID })
            let members = try #require(ready["members"] as? [[String: Any]])
            #expect(
                members.map { $0["_id"] as? [String: String] } == [
                    ["server": server.lobbyServerID, "user": account.userID]
                ])
            #expect((ready["emojis"] as? [[String: Any]])?.count == 1)
            await socket.close()
        }
    }

    @Test("A token in the query authenticates without a frame, and the ready filter cuts Ready's fields")
    func queryTokenAndFilter() async throws {
        try await withServer { server throws in
            let token = server.defaultAccount.token
            let socket = await TestSocket.connect(server.eventsURL("&token=\(token)&ready=users&ready=servers"))
            #expect(try await socket.nextType() == "Authenticated")
            let ready = try #require(try await socket.nextJSON())
            #expect(Set(ready.keys) == ["type", "users", "servers"])
            let unreads = await TestSocket.connect(
                server.eventsURL("&token=\(token)&ready=channel_unreads&ready=user_settings[ordering]"))
            #expect(try await unreads.nextType() == "Authenticated")
            #expect(Set(try #require(try await unreads.nextJSON()).keys) == ["type", "channel_unreads"])
            await socket.close()
            await unreads.close()
        }
    }

    @Test("An unknown format is read as JSON, as bonfire does (config.rs); msgpack is spoken in binary frames")
    func formats() async throws {
        try await withServer { server throws in
            let url = server.eventsURL.absoluteString + "?version=1&format=xml&token=\(server.defaultAccount.token)"
            let socket = await TestSocket.connect(url)
            #expect(try await socket.nextType() == "Authenticated")
            await socket.close()
            let packed = await TestSocket.connect(
                server.eventsURL.absoluteString + "?version=1&format=msgpack&token=\(server.defaultAccount.token)")
            guard case .binary? = try await packed.nextMessage() else {
                Issue.record("Authenticated should come in a binary frame")
                await packed.close()
                return
            }
            await packed.close()
        }
    }

    @Test("Before Authenticate every frame is ignored, Ping included")
    func framesBeforeAuthenticate() async throws {
        try await withServer { server throws in
            let socket = await TestSocket.connect(server.eventsURL())
            await socket.send(#"{"type":"Ping","data":1}"#)
            await socket.send(#"{"type":"Subscribe","server_id":"\#(server.lobbyServerID)"}"#)
            await socket.send(#"{"type":"Authenticate","token":"\#(server.defaultAccount.token)"}"#)
            #expect(try await socket.nextType() == "Authenticated")
            #expect(try await socket.nextType() == "Ready")
            await socket.send(#"{"type":"Ping","data":2}"#)
            #expect(try await socket.next() == #"{"type":"Pong","data":2}"#)
            #expect(await server.connections().first?.subscriptions.isEmpty == true)
            await socket.close()
        }
    }

    @Test("Ping is answered Pong with the same data; bad data or a responded field gets no Pong")
    func pingPong() async throws {
        try await withServer { server throws in
            let socket = try await server.connectReady(token: server.defaultAccount.token)
            await socket.send(#"{"type":"Ping","data":1719400000000}"#)
            #expect(try await socket.next() == #"{"type":"Pong","data":1719400000000}"#)
            await socket.send(#"{"type":"Ping","data":[1,2,3]}"#)
            let bytes = try #require(try await socket.nextJSON())
            #expect(bytes["data"] as? [Int] == [1, 2, 3])
            for bad in [
                #"{"type":"Ping","data":-5}"#, #"{"type":"Ping","data":"x"}"#, #"{"type":"Ping"}"#,
                #"{"type":"Ping","data":5,"responded":1}"#,
            ] {
                await socket.send(bad)
            }
            // Frames of one socket are handled in order: a Pong for bad data would arrive before this one.
            await socket.send(#"{"type":"Ping","data":7}"#)
            #expect(try await socket.next() == #"{"type":"Pong","data":7}"#)
            await socket.close()
        }
    }

    @Test("An unknown token is answered InvalidSession, then the connection is dropped without a close frame")
    func invalidSession() async throws {
        try await withServer { server throws in
            let socket = await TestSocket.connect(server.eventsURL())
            await socket.send(#"{"type":"Authenticate","token":"nope"}"#)
            let error = try #require(try await socket.nextJSON())
            #expect(error["type"] as? String == "Error")
            let data = try #require(error["data"] as? [String: Any])
            #expect(data["type"] as? String == "InvalidSession")
            #expect(data["location"] is String)
            #expect(try await socket.next() == nil)
            if case .success(let frame) = await socket.outcome() { #expect(frame == nil) }
        }
    }

    @Test("Under the close-frame fault, the server's ends send a close frame (1000) instead")
    func closeFrameFault() async throws {
        try await withServer { server throws in
            await server.setCloseFramesOnServerEnds(true)
            let socket = await TestSocket.connect(server.eventsURL())
            await socket.send(#"{"type":"Authenticate","token":"nope"}"#)
            #expect(try await socket.nextType() == "Error")
            #expect(try await socket.next() == nil)
            #expect(try await socket.outcome().get()?.closeCode == .normalClosure)
        }
    }

    @Test("A session whose user has not onboarded is answered InvalidSession")
    func notOnboarded() async throws {
        try await withServer { server throws in
            let socket = await TestSocket.connect(server.eventsURL())
            await socket.send(#"{"type":"Authenticate","token":"\#(server.pendingAccount.token)"}"#)
            let error = try #require(try await socket.nextJSON())
            #expect((error["data"] as? [String: Any])?["type"] as? String == "InvalidSession")
            #expect(try await socket.next() == nil)
        }
    }

    @Test("Revoking a session sends Logout to its sockets, then drops them; the user's others get DeleteSession")
    func logoutOnRevocation() async throws {
        try await withServer { server throws in
            let account = server.defaultAccount
            let other = await server.createSession(userID: account.userID)
            let first = try await server.connectReady(token: account.token)
            let second = try await server.connectReady(token: account.token)
            let bystander = try await server.connectReady(token: other)
            #expect(await server.liveSockets(token: account.token) == 2)
            #expect(await server.revokeSession(token: account.token))
            for socket in [first, second] {
                #expect(try await socket.nextType() == "Logout")
                #expect(try await socket.next() == nil)
                if case .success(let frame) = await socket.outcome() { #expect(frame == nil) }
            }
            let forwarded = try #require(try await bystander.nextJSON())
            #expect(forwarded["type"] as? String == "DeleteSession")
            #expect(forwarded["user_id"] as? String == account.userID)
            try await server.waitUntil { _, counters in counters.liveSockets == 1 }
            await bystander.send(#"{"type":"Ping","data":1}"#)
            #expect(try await bystander.nextType() == "Pong")
            await bystander.close()
        }
    }

    @Test("A REST logout sends Logout to the session's socket, then drops it")
    func restLogout() async throws {
        try await withServer { server throws in
            let socket = try await server.connectReady(token: server.defaultAccount.token)
            _ = try await server.http(.POST, "/auth/session/logout", token: server.defaultAccount.token)
            #expect(try await socket.nextType() == "Logout")
            #expect(try await socket.next() == nil)
        }
    }

    @Test("A bot authenticates on the socket with its bot token and receives its server's member events")
    func botSocket() async throws {
        try await withServer { server throws in
            let bot = try await server.connectReady(token: server.defaultBot.token)
            let record = try #require(await server.connections().last)
            #expect(record.isBot)
            #expect(record.userID == server.defaultBot.userID)
            #expect(record.memberEventServers == [server.lobbyServerID])
            try await server.setDisplayName(userID: server.defaultAccount.userID, displayName: "Demo")
            let update = try #require(try await bot.nextEvent("UserUpdate"))
            #expect((update["data"] as? [String: Any])?["display_name"] as? String == "Demo")
            await bot.close()
        }
    }

    @Test("Received frames are recorded per connection in order, with subscriptions and counts")
    func observation() async throws {
        try await withServer { server throws in
            let token = server.defaultAccount.token
            let socket = try await server.connectReady(token: token)
            await socket.send(#"{"type":"Subscribe","server_id":"\#(server.lobbyServerID)"}"#)
            await socket.send(#"{"type":"Subscribe","server_id":"\#(server.lobbyServerID)"}"#)
            await socket.send(#"{"type":"Ping","data":1}"#)
            _ = try await socket.next()
            let frames = await server.receivedFrames(token: token)
            #expect(frames.count == 5)
            #expect(frames.first?.contains("Authenticate") == true)
            #expect(frames.last == #"{"type":"Ping","data":1}"#)
            let record = try #require(await server.connections().last)
            #expect(record.subscriptions == [server.lobbyServerID])
            #expect(record.activeSubscriptions == [server.lobbyServerID])
            #expect(record.isAuthenticated && record.receivedReady && record.isOpen && !record.isBot)
            #expect(record.userID == server.defaultAccount.userID)
            let counters = await server.socketCounters()
            #expect(counters.upgradesAccepted == 1 && counters.upgradesRefused == 0 && counters.liveSockets == 1)
            await socket.close()
            try await server.waitUntil { records, counters in counters.liveSockets == 0 && !records[0].isOpen }
        }
    }

    @Test("Finishing an operation, or its expiry by the server's clock, sends OperationFinished to the owner")
    func operationFinished() async throws {
        let clock = ManualClock()
        try await withServer(clock: clock) { server throws in
            let account = server.defaultAccount
            let socket = try await server.connectReady(token: account.token)
            let approved = await server.addOperation(kind: "approval", userID: account.userID, expiresIn: .seconds(60))
            let expiring = await server.addOperation(kind: "approval", userID: account.userID, expiresIn: .seconds(30))
            #expect(await server.finishOperation(id: approved.id, result: .approved))
            let first = try #require(try await socket.nextJSON())
            #expect(first["type"] as? String == "OperationFinished")
            #expect(first["id"] as? String == approved.id)
            #expect(first["result"] as? String == "approved")
            #expect(await server.processExpiredOperations().isEmpty)
            clock.advance(by: 30)
            #expect(await server.processExpiredOperations() == [expiring.id])
            let second = try #require(try await socket.nextJSON())
            #expect(second["id"] as? String == expiring.id)
            #expect(second["result"] as? String == "timeout")
            #expect(try await server.http(.GET, "/operations", token: account.token).jsonArray?.isEmpty == true)
            await socket.close()
        }
    }

    @Test("Malformed and unknown frames change nothing; the connection and its neighbour keep working")
    func malformedFrames() async throws {
        try await withServer { server throws in
            let socket = try await server.connectReady(token: server.defaultAccount.token)
            let neighbour = try await server.connectReady(token: server.defaultAccount.token)
            for junk in ["not json", "[]", #"{"type":42}"#, #"{"type":"Dance","x":1}"#, #"{"type":"Subscribe"}"#, ""] {
                await socket.send(junk)
            }
            await socket.send(#"{"type":"Ping","data":2}"#)
            #expect(try await socket.next() == #"{"type":"Pong","data":2}"#)
            await neighbour.send(#"{"type":"Ping","data":3}"#)
            #expect(try await neighbour.next() == #"{"type":"Pong","data":3}"#)
            #expect(await server.receivedFrames(token: server.defaultAccount.token).contains("not json"))
            await socket.close()
            await neighbour.close()
        }
    }

    @Test("A frame above the size limit closes that connection with 1009; its neighbour is undisturbed")
    func oversizedFrame() async throws {
        try await withServer(configure: { $0.maxInboundFrameSize = 4096 }) { server throws in
            let socket = try await server.connectReady(token: server.defaultAccount.token)
            let neighbour = try await server.connectReady(token: server.defaultAccount.token)
            await socket.send(#"{"type":"Ping","data":1,"pad":""# + String(repeating: "x", count: 10_000) + #""}"#)
            #expect(try await socket.next() == nil)
            let closed = try await socket.outcome().get()
            #expect(closed?.closeCode == .messageTooLarge)
            await neighbour.send(#"{"type":"Ping","data":3}"#)
            #expect(try await neighbour.next() == #"{"type":"Pong","data":3}"#)
            await neighbour.close()
        }
    }
}
