import Foundation
import NIOWebSocket
import Testing

@testable import StoatReferenceServer

/// The reference server as Stoat's new events server, `stoatchat/gateway` (Elixir). Each test names the file
/// of the gateway it pins: `lib/stoat_gateway/web/socket_handler.ex` (the socket), `state/session.ex`
/// (`Ready`), `state/auth.ex` (tokens), `events/consumer.ex` (what reaches a socket), `web/router.ex` (the
/// idle timeout).
@Suite("Events socket as the gateway")
struct GatewayTests {
    static func gateway(_ configuration: inout ReferenceServer.Configuration) {
        configuration.events = .gateway
    }

    /// A socket authenticated by frame that has read `Authenticated` and `Ready`.
    static func authenticated(_ server: ReferenceServer, token: String, query: String = "") async throws -> TestSocket {
        let socket = await TestSocket.connect(server.eventsURL(query))
        await socket.send(#"{"type":"Authenticate","token":"\#(token)"}"#)
        #expect(try await socket.next() == #"{"type":"Authenticated"}"#)
        #expect(try await socket.nextType() == "Ready")
        return socket
    }

    /// The close code the socket ended with, or nil when it ended without a close frame.
    static func closeCode(_ socket: TestSocket) async -> UInt16? {
        guard case .success(let frame?) = await socket.outcome() else { return nil }
        return UInt16(webSocketErrorCode: frame.closeCode)
    }

    @Test("socket_handler.ex: Subscribe after authentication is InvalidPayload without a detail, then close 1007")
    func subscribeRefused() async throws {
        try await withServer(configure: Self.gateway) { server throws in
            let socket = try await Self.authenticated(server, token: server.defaultAccount.token)
            await socket.send(#"{"type":"Subscribe","server_id":"\#(server.lobbyServerID)"}"#)
            #expect(try await socket.next() == #"{"data":{"type":"InvalidPayload"},"type":"Error"}"#)
            #expect(try await socket.next() == nil)
            #expect(await Self.closeCode(socket) == 1007)
            #expect(await server.connections().first?.subscriptions.isEmpty == true)
        }
    }

    @Test(
        "socket_handler.ex: an undecodable frame or one without a type is InvalidPayload with its detail, then 1007",
        arguments: [#"{"type":"Ping""#, #"[1,2]"#, #"{"data":1}"#, "not json"])
    func undecodable(frame: String) async throws {
        try await withServer(configure: Self.gateway) { server throws in
            let socket = await TestSocket.connect(server.eventsURL())
            await socket.send(frame)
            #expect(
                try await socket.next()
                    == #"{"data":{"detail":"Incoming payload does not match required format","type":"InvalidPayload"},"type":"Error"}"#
            )
            #expect(try await socket.next() == nil)
            #expect(await Self.closeCode(socket) == 1007)
        }
    }

    @Test(
        "socket_handler.ex: a BeginTyping without a channel, a second Authenticate or an unknown frame is 1007",
        arguments: [
            #"{"type":"BeginTyping"}"#, #"{"type":"EndTyping","chanel":"x"}"#, #"{"type":"Authenticate","token":"t"}"#,
            #"{"type":"Bees"}"#,
        ])
    func refusedAfterAuthentication(frame: String) async throws {
        try await withServer(configure: Self.gateway) { server throws in
            let socket = try await Self.authenticated(server, token: server.defaultAccount.token)
            await socket.send(frame)
            #expect(
                try await socket.next(skipping: ["UserUpdate"]) == #"{"data":{"type":"InvalidPayload"},"type":"Error"}"#
            )
            #expect(await Self.closeCode(socket) == 1007)
        }
    }

    @Test(
        "socket_handler.ex: before authentication a Ping is answered, anything else but Authenticate closes with 3000")
    func beforeAuthentication() async throws {
        try await withServer(configure: Self.gateway) { server throws in
            let socket = await TestSocket.connect(server.eventsURL())
            await socket.send(#"{"type":"Ping","data":5}"#)
            #expect(try await socket.next() == #"{"data":5,"type":"Pong"}"#)
            await socket.send(#"{"type":"ping"}"#)
            #expect(try await socket.next() == #"{"type":"Pong"}"#, "no data, no data; the type's case is not read")
            await socket.send(#"{"type":"Ping","data":"any term"}"#)
            #expect(try await socket.next() == #"{"data":"any term","type":"Pong"}"#)
            await socket.send(#"{"type":"Authenticate"}"#)
            #expect(
                try await socket.next()
                    == #"{"data":{"detail":"Not Authenticated","type":"InvalidSession"},"type":"Error"}"#)
            #expect(await Self.closeCode(socket) == 3000)
            let subscriber = await TestSocket.connect(server.eventsURL())
            await subscriber.send(#"{"type":"Subscribe","server_id":"x"}"#)
            #expect(try await subscriber.nextJSON()?["type"] as? String == "Error")
            #expect(await Self.closeCode(subscriber) == 3000)
        }
    }

    @Test("auth.ex: a bad token is answered InvalidSession with its detail and the socket stays open for another")
    func badTokenKeepsTheSocket() async throws {
        try await withServer(configure: Self.gateway) { server throws in
            let socket = await TestSocket.connect(server.eventsURL())
            await socket.send(#"{"type":"Authenticate","token":"nope"}"#)
            #expect(
                try await socket.next()
                    == #"{"data":{"detail":"Invalid token provided","type":"InvalidSession"},"type":"Error"}"#)
            await socket.send(#"{"type":"Authenticate","token":12}"#)
            #expect(try await socket.nextJSON()?["type"] as? String == "Error", "find_by_token takes only a binary")
            await socket.send(#"{"type":"AUTHENTICATE","token":"\#(server.defaultAccount.token)"}"#)
            #expect(try await socket.next() == #"{"type":"Authenticated"}"#)
            #expect(try await socket.nextType() == "Ready")
            await socket.close()
        }
    }

    @Test("socket_handler.ex: a token in the URL authenticates at once; a bad one is refused without closing")
    func tokenInURL() async throws {
        try await withServer(configure: Self.gateway) { server throws in
            let socket = await TestSocket.connect(server.eventsURL("&token=\(server.defaultAccount.token)"))
            #expect(try await socket.next() == #"{"type":"Authenticated"}"#)
            #expect(try await socket.nextType() == "Ready")
            await socket.close()
            let bad = await TestSocket.connect(server.eventsURL("&token=nope"))
            #expect(try await bad.nextJSON()?["type"] as? String == "Error")
            await bad.send(#"{"type":"Ping","data":1}"#)
            #expect(try await bad.next() == #"{"data":1,"type":"Pong"}"#, "still open")
            await bad.close()
        }
    }

    @Test("socket_handler.ex: a type that is not a string crashes the handler: no answer, no close frame")
    func typeNotAString() async throws {
        try await withServer(configure: Self.gateway) { server throws in
            let socket = await TestSocket.connect(server.eventsURL())
            await socket.send(#"{"type":5}"#)
            #expect(try await socket.next() == nil)
            #expect(await Self.closeCode(socket) == nil)
        }
    }

    @Test(
        "session.ex, model.ex: Ready lists the viewer first then their relations, every field present, a user's empty fields left out"
    )
    func ready() async throws {
        try await withServer(configure: Self.gateway) { server throws in
            let account = server.defaultAccount
            let friend = try await server.addUser(username: "friend")
            try await server.makeFriends(account.userID, friend.userID)
            let stranger = try await server.addUser(username: "stranger")
            _ = try await server.openDirectMessage(account.userID, stranger.userID)
            let socket = await TestSocket.connect(server.eventsURL())
            await socket.send(#"{"type":"Authenticate","token":"\#(account.token)"}"#)
            #expect(try await socket.nextType() == "Authenticated")
            let text = try #require(try await socket.next())
            // Jason writes an Elixir map's keys in their order: sorted.
            #expect(text.hasPrefix(#"{"channel_unreads":[],"channels":["#))
            let ready = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect(
                Set(ready.keys)
                    == [
                        "type", "users", "servers", "channels", "members", "emojis", "voice_states", "user_settings",
                        "channel_unreads", "policy_changes",
                    ])
            let users = try #require(ready["users"] as? [[String: Any]])
            #expect(users.map { $0["_id"] as? String } == [account.userID, friend.userID], "no DM recipient")
            #expect(users.first?["relationship"] as? String == "User")
            #expect(users.first?["online"] as? Bool == true)
            // Stoat.Model's encoder (data/model.ex) leaves out nil fields and empty maps: the avatar-less
            // user's avatar %{} and status %{}.
            #expect(users.first?["avatar"] == nil && users.first?["status"] == nil && users.first?["pronouns"] == nil)
            #expect((ready["user_settings"] as? [String: Any])?.isEmpty == true)
            #expect((ready["channel_unreads"] as? [Any])?.isEmpty == true)
            let servers = try #require(ready["servers"] as? [[String: Any]])
            #expect(servers.first?["approximate_member_count"] as? Int != nil)
            let channels = try #require(ready["channels"] as? [[String: Any]])
            #expect(channels.first?["_id"] as? String == server.lobbyChannelID, "server channels, then DMs")
            await socket.send(#"{"type":"Ping","data":1}"#)
            #expect(try await socket.next(skipping: ["UserUpdate"]) == #"{"data":1,"type":"Pong"}"#, "no UserSlowmodes")
            await socket.close()
        }
    }

    @Test("socket_handler.ex: ready= names the fields; user_settings[KEY] is sent; an unknown word ends the socket")
    func readyFields() async throws {
        try await withServer(configure: Self.gateway) { server throws in
            let token = server.defaultAccount.token
            let set = try await server.http(
                .POST, "/sync/settings/set?timestamp=1000", token: token, json: #"{"ordering":"[]"}"#)
            #expect(set.status == 204)
            let socket = await TestSocket.connect(
                server.eventsURL("&token=\(token)&ready=servers&ready=user_settings[ordering]&ready=x%5By%20z%5D"))
            #expect(try await socket.nextType() == "Authenticated")
            let ready = try #require(try await socket.nextJSON())
            #expect((ready["servers"] as? [Any])?.count == 1)
            #expect((ready["users"] as? [Any])?.isEmpty == true, "not asked for: []")
            #expect((ready["user_settings"] as? [String: Any])?["ordering"] as? [AnyHashable] == [1000, "[]"])
            await socket.close()
            for item in ["ready=user_settings", "ready=usres"] {
                let before = await server.connections().count
                let crashed = await TestSocket.connect(server.eventsURL("&token=\(token)&\(item)"))
                // A CaseClauseError in init: the socket ends as soon as it opens, as the server's record shows.
                try await server.waitUntil(timeout: .failureBound) { records, _ in
                    records.count > before && records.last?.isOpen == false
                }
                await crashed.close()
            }
        }
        #expect(GatewayReadyFields(queryValues: []) == .standard)
        #expect(GatewayReadyFields(queryValues: ["channel_unreads"])?.fields == ["channel_unreads"])
        #expect(
            GatewayReadyFields(queryValues: ["bad value", "a[b]"])?.fields == [], "no match, or no clause: ignored")
        #expect(GatewayReadyFields(queryValues: ["user_settings[a]", "user_settings[b]"])?.userSettings == ["a", "b"])
        #expect(GatewayReadyFields(queryValues: ["emoji"]) == nil)
    }

    @Test("server.ex: typing reaches the channel's viewers, the typist included, with the keys sorted")
    func typing() async throws {
        try await withServer(configure: Self.gateway) { server throws in
            let typist = try await Self.authenticated(server, token: server.defaultAccount.token)
            let other = try await server.addUser(username: "other")
            try await server.join(userID: other.userID, serverID: server.lobbyServerID)
            let viewer = try await Self.authenticated(server, token: other.token)
            await typist.send(#"{"type":"BeginTyping","channel":"\#(server.lobbyChannelID)"}"#)
            let expected =
                #"{"id":"\#(server.lobbyChannelID)","type":"ChannelStartTyping","user":"\#(server.defaultAccount.userID)"}"#
            #expect(try await viewer.next(skipping: ["UserUpdate", "ServerMemberJoin"]) == expected)
            #expect(try await typist.next(skipping: ["UserUpdate", "ServerMemberJoin", "ServerCreate"]) == expected)
            await typist.close()
            await viewer.close()
        }
    }

    @Test("consumer.ex: a revoked session's socket is neither told nor closed (no Logout, no DeleteSession)")
    func revocationNotDelivered() async throws {
        try await withServer(configure: Self.gateway) { server throws in
            let account = server.defaultAccount
            let socket = try await Self.authenticated(server, token: account.token)
            #expect(await server.revokeSession(token: account.token))
            await socket.send(#"{"type":"Ping","data":9}"#)
            #expect(try await socket.next(skipping: ["UserUpdate"]) == #"{"data":9,"type":"Pong"}"#)
            let again = await TestSocket.connect(server.eventsURL())
            await again.send(#"{"type":"Authenticate","token":"\#(account.token)"}"#)
            #expect(
                try await again.next()
                    == #"{"data":{"detail":"Invalid token provided","type":"InvalidSession"},"type":"Error"}"#,
                "the next authentication meets the revoked session")
            await socket.close()
            await again.close()
        }
    }

    @Test("server.ex: a server's member events reach every member's socket without a Subscribe")
    func memberEventsWithoutSubscribe() async throws {
        try await withServer(configure: Self.gateway) { server throws in
            let socket = try await Self.authenticated(server, token: server.defaultAccount.token)
            let member = try await server.addUser(username: "member")
            try await server.join(userID: member.userID, serverID: server.lobbyServerID)
            try await server.setDisplayName(userID: member.userID, displayName: "Member")
            let update = try #require(try await socket.nextEvent("UserUpdate"))
            #expect(update["id"] as? String == member.userID)
            await socket.close()
        }
    }

    @Test("router.ex: a socket that sends nothing for the idle timeout is closed with 1002")
    func idleTimeout() async throws {
        try await withServer(configure: {
            Self.gateway(&$0)
            $0.gatewayIdleTimeout = .milliseconds(300)
        }) { server throws in
            let socket = await TestSocket.connect(server.eventsURL())
            #expect(try await socket.next() == nil)
            #expect(await Self.closeCode(socket) == 1002)
        }
    }
}
