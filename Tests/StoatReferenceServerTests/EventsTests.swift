import Foundation
import NIOWebSocket
import Testing
import WSClient

@testable import StoatReferenceServer

@Suite("Events socket")
struct EventsTests {
    @Test("Authenticate is answered Authenticated, then a Ready built from the server's data")
    func authenticateThenReady() async throws {
        try await withServer { server throws in
            let account = server.defaultAccount
            let socket = await TestSocket.connect(server.eventsURL())
            await socket.send(#"{"type":"Authenticate","token":"\#(account.token)"}"#)
            #expect(try await socket.nextType() == "Authenticated")
            let ready = try #require(try await socket.nextJSON())
            #expect(ready["type"] as? String == "Ready")
            let users = try #require(ready["users"] as? [[String: Any]])
            #expect(users.first?["_id"] as? String == account.userID)
            #expect(users.first?["relationship"] as? String == "User")
            let servers = try #require(ready["servers"] as? [[String: Any]])
            #expect(servers.map { $0["_id"] as? String } == [server.lobbyServerID])
            let channels = try #require(ready["channels"] as? [[String: Any]])
            #expect(channels.contains { $0["_id"] as? String == server.lobbyChannelID })
            #expect(channels.contains { $0["channel_type"] as? String == "SavedMessages" })
            let members = try #require(ready["members"] as? [[String: Any]])
            #expect(
                members.first?["_id"] as? [String: String] == ["server": server.lobbyServerID, "user": account.userID])
            #expect((ready["emojis"] as? [[String: Any]])?.count == 1)
            await socket.close()
        }
    }

    @Test("A token in the query authenticates without a frame, and the ready filter cuts Ready's fields")
    func queryTokenAndFilter() async throws {
        try await withServer { server throws in
            let socket = await TestSocket.connect(
                server.eventsURL("&token=\(server.defaultAccount.token)&ready=users&ready=servers"))
            #expect(try await socket.nextType() == "Authenticated")
            let ready = try #require(try await socket.nextJSON())
            #expect(Set(ready.keys) == ["type", "users", "servers"])
            await socket.close()
        }
    }

    @Test("Ping is answered Pong with the same data; bad data gets no Pong")
    func pingPong() async throws {
        try await withServer { server throws in
            let socket = try await server.connectReady(token: server.defaultAccount.token)
            await socket.send(#"{"type":"Ping","data":1719400000000}"#)
            #expect(try await socket.next() == #"{"type":"Pong","data":1719400000000}"#)
            await socket.send(#"{"type":"Ping","data":[1,2,3]}"#)
            let bytes = try #require(try await socket.nextJSON())
            #expect(bytes["data"] as? [Int] == [1, 2, 3])
            for bad in [#"{"type":"Ping","data":-5}"#, #"{"type":"Ping","data":"x"}"#, #"{"type":"Ping"}"#] {
                await socket.send(bad)
            }
            // Frames of one socket are handled in order: a Pong for bad data would arrive before this one.
            await socket.send(#"{"type":"Ping","data":7}"#)
            #expect(try await socket.next() == #"{"type":"Pong","data":7}"#)
            await socket.close()
        }
    }

    @Test("An unknown token is answered InvalidSession, then the server closes")
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
            let closed = try await socket.outcome().get()
            #expect(closed?.closeCode == .normalClosure)
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

    @Test("Revoking a session sends Logout to its sockets, then closes them; others stay")
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
            }
            try await server.waitUntil { _, counters in counters.liveSockets == 1 }
            await bystander.send(#"{"type":"Ping","data":1}"#)
            #expect(try await bystander.nextType() == "Pong")
            await bystander.close()
        }
    }

    @Test("A REST logout sends Logout to the session's socket")
    func restLogout() async throws {
        try await withServer { server throws in
            let socket = try await server.connectReady(token: server.defaultAccount.token)
            _ = try await server.http(.POST, "/auth/session/logout", token: server.defaultAccount.token)
            #expect(try await socket.nextType() == "Logout")
            #expect(try await socket.next() == nil)
        }
    }

    @Test("Typing is fanned out to other connected members of the channel's server, not to the typist")
    func typingFanOut() async throws {
        try await withServer { server throws in
            let friend = try await server.addAccount(email: "f@lifeline.test", password: "pw", username: "friend")
            let stranger = try await server.addAccount(email: "s@lifeline.test", password: "pw", username: "stranger")
            await server.join(userID: friend.userID, serverID: server.lobbyServerID)
            let typist = try await server.connectReady(token: server.defaultAccount.token)
            let friendSocket = try await server.connectReady(token: friend.token)
            let strangerSocket = try await server.connectReady(token: stranger.token)
            let channel = server.lobbyChannelID
            await typist.send(#"{"type":"BeginTyping","channel":"\#(channel)"}"#)
            let start = try #require(try await friendSocket.nextJSON())
            #expect(start["type"] as? String == "ChannelStartTyping")
            #expect(start["id"] as? String == channel)
            #expect(start["user"] as? String == server.defaultAccount.userID)
            await typist.send(#"{"type":"EndTyping","channel":"\#(channel)"}"#)
            #expect(try await friendSocket.nextType() == "ChannelStopTyping")
            // Neither the typist nor a non-member got anything: their next frame is this marker.
            await server.sendRawFrame("marker")
            #expect(try await typist.next() == "marker")
            #expect(try await strangerSocket.next() == "marker")
            for socket in [typist, friendSocket, strangerSocket] { await socket.close() }
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
            #expect(frames.count == 4)
            #expect(frames.first?.contains("Authenticate") == true)
            #expect(frames.last == #"{"type":"Ping","data":1}"#)
            let record = try #require(await server.connections().last)
            #expect(record.subscriptions == [server.lobbyServerID])
            #expect(record.isAuthenticated && record.receivedReady && record.isOpen)
            #expect(record.userID == server.defaultAccount.userID)
            #expect(
                await server.socketCounters() == SocketCounters(upgradesAccepted: 1, upgradesRefused: 0, liveSockets: 1)
            )
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
