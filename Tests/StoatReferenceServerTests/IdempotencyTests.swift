import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

@testable import StoatReferenceServer

/// stoatchat's `Idempotency-Key` (`crates/core/database/src/util/idempotency.rs`, its request guard in
/// `crates/delta/src/routes/channels/message_send.rs`), and the two faults a client's outbox must survive: a
/// deaf socket and a lost answer.
@Suite("Idempotency keys and the send faults")
struct IdempotencyTests {
    @Test(
        "A key is consumed by the guard before the route runs: a send refused for its slowmode, its permission or its body has used it"
    )
    func consumedOnRefusal() async throws {
        let clock = ManualClock()
        try await withServer(clock: clock) { server throws in
            let friend = try await server.addUser(username: "friend")
            try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
            try await server.setSlowmode(channelID: server.lobbyChannelID, seconds: 30)
            let stranger = try await server.addUser(username: "stranger")
            let path = "/channels/\(server.lobbyChannelID)/messages"
            func post(_ token: String, _ key: String, _ body: String = #"{"content":"hi"}"#) async throws -> HTTPAnswer
            {
                try await server.http(.POST, path, token: token, json: body, headers: [("Idempotency-Key", key)])
            }
            #expect(try await post(friend.token, "first").status == 200)
            // Refused in the route: InSlowmode, MissingPermission, EmptyMessage, and a body of the wrong shape.
            #expect(try await post(friend.token, "slow").errorType == "InSlowmode")
            #expect(try await post(stranger.token, "stranger").errorType == "MissingPermission")
            #expect(
                try await post(server.defaultAccount.token, "empty", #"{"content":""}"#).errorType == "EmptyMessage")
            #expect(try await post(server.defaultAccount.token, "shape", #"{"content":5}"#).status == 422)
            clock.advance(by: 60)
            for (token, key) in [
                (friend.token, "slow"), (stranger.token, "stranger"), (server.defaultAccount.token, "empty"),
                (server.defaultAccount.token, "shape"),
            ] {
                let again = try await post(token, key)
                #expect(again.status == 409, "\(key)")
                #expect(again.catcherCode == 409, "\(key)")
                #expect(again.errorType == nil, "Rocket's catcher writes no type (\(key))")
            }
            // The session guard runs first: a request without a session leaves the key unused.
            let anonymous = try await server.http(
                .POST, path, json: #"{"content":"hi"}"#, headers: [("Idempotency-Key", "anonymous")])
            #expect(anonymous.status == 401)
            #expect(try await post(server.defaultAccount.token, "anonymous").status == 200)
        }
    }

    @Test("A reused key is Rocket's 409: JSON with no type when Accept asks for it, an HTML page otherwise")
    func conflictBody() async throws {
        try await withServer { server throws in
            let token = server.defaultAccount.token
            let path = "/channels/\(server.lobbyChannelID)/messages"
            let headers = [("Idempotency-Key", "twice")]
            #expect(
                try await server.http(.POST, path, token: token, json: #"{"content":"a"}"#, headers: headers).status
                    == 200)
            let json = try await server.http(.POST, path, token: token, json: #"{"content":"a"}"#, headers: headers)
            #expect(json.status == 409)
            let error = try #require(json.json?["error"] as? [String: Any])
            #expect(error["code"] as? Int == 409)
            #expect(error["reason"] as? String == "Conflict")
            #expect(json.json?.keys.sorted() == ["error"])
            let html = try await server.http(
                .POST, path, token: token, json: #"{"content":"a"}"#, headers: headers + [("Accept", "text/html")])
            #expect(html.status == 409)
            #expect(html.text.contains("<h1>409: Conflict</h1>"))
        }
    }

    @Test(
        "The key cache is an LRU of 1000: the 1001st new key evicts the least recently used, and a refused retry keeps its key"
    )
    func leastRecentlyUsed() async throws {
        try await withServer { server throws in
            let token = server.defaultAccount.token
            let path = "/channels/\(server.lobbyChannelID)/messages"
            func post(_ key: String) async throws -> Int {
                try await server.http(
                    .POST, path, token: token, json: #"{"content":"x"}"#, headers: [("Idempotency-Key", key)]
                ).status
            }
            #expect(try await post("kept") == 200)
            #expect(try await post("evicted") == 200)
            // 998 more fill the cache; "kept", retried, becomes the most recently used.
            for index in 0..<998 { _ = await server.state.consumeNonce("filler-\(index)") }
            #expect(try await post("kept") == 409)
            // One more new key evicts the least recently used: "evicted", not "kept".
            _ = await server.state.consumeNonce("one-more")
            #expect(try await post("kept") == 409)
            #expect(try await post("evicted") == 200)
        }
    }

    @Test("The key becomes the message's nonce, on the answer and on its event")
    func nonceEchoed() async throws {
        try await withServer { server throws in
            let token = server.defaultAccount.token
            let socket = try await server.connectReady(token: token)
            let sent = try await server.http(
                .POST, "/channels/\(server.lobbyChannelID)/messages", token: token, json: #"{"content":"echo"}"#,
                headers: [("Idempotency-Key", "echo-key")])
            #expect(sent.json?["nonce"] as? String == "echo-key")
            let event = try #require(try await socket.nextEvent("Message"))
            #expect(event["nonce"] as? String == "echo-key")
            #expect(event["_id"] as? String == sent.json?["_id"] as? String)
            await socket.close()
        }
    }

    @Test("A deaf server answers Pong and Ready but delivers no event; turned off, events come again")
    func deafServer() async throws {
        try await withServer { server throws in
            let token = server.defaultAccount.token
            let listener = try await server.connectReady(token: token)
            await server.setDeaf(true)
            _ = try await server.postMessage(
                as: server.defaultAccount.userID, in: server.lobbyChannelID, content: "lost")
            // A new socket still gets Authenticated, Ready and Pong.
            let fresh = try await server.connectReady(token: token)
            for socket in [listener, fresh] {
                await socket.send(#"{"type":"Ping","data":7}"#)
                #expect(try await socket.next(skipping: ["UserUpdate"]) == #"{"type":"Pong","data":7}"#)
            }
            await server.setDeaf(false)
            _ = try await server.postMessage(
                as: server.defaultAccount.userID, in: server.lobbyChannelID, content: "heard")
            for socket in [listener, fresh] {
                // The first event after the deaf window is the message posted after it: "lost" never came.
                let event = try #require(try await socket.nextEvent("Message"))
                #expect(event["content"] as? String == "heard")
                await socket.close()
            }
        }
    }

    @Test("Deafened sockets (all, or some users') stay deaf for life while a socket opened later hears")
    func deafenedSockets() async throws {
        try await withServer { server throws in
            let token = server.defaultAccount.token
            let friend = try await server.addUser(username: "friend")
            try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
            let deaf = try await server.connectReady(token: token)
            let hearing = try await server.connectReady(token: friend.token)
            let body = #"{"user_ids":["\#(server.defaultAccount.userID)"]}"#
            #expect(try await server.admin(.POST, "/deafen-sockets", json: body).json?["deafened"] as? Int == 1)
            let later = try await server.connectReady(token: token)
            _ = try await server.postMessage(
                as: server.defaultAccount.userID, in: server.lobbyChannelID, content: "one")
            #expect(try await later.nextEvent("Message")?["content"] as? String == "one")
            #expect(try await hearing.nextEvent("Message")?["content"] as? String == "one")
            await deaf.send(#"{"type":"Ping","data":9}"#)
            #expect(try await deaf.next(skipping: ["UserUpdate"]) == #"{"type":"Pong","data":9}"#)
            #expect(await server.deafenSockets() == 2, "the two that heard")
            for socket in [deaf, hearing, later] { await socket.close() }
        }
    }

    @Test("A lost answer: the message is stored and published, the connection drops without an answer")
    func lostAnswer() async throws {
        try await withServer { server throws in
            let token = server.defaultAccount.token
            let socket = try await server.connectReady(token: token)
            await server.loseNextSendAnswers(1)
            let path = "/channels/\(server.lobbyChannelID)/messages"
            await #expect(throws: (any Error).self) {
                _ = try await server.http(
                    .POST, path, token: token, json: #"{"content":"stored"}"#, headers: [("Idempotency-Key", "lost-1")])
            }
            let event = try #require(try await socket.nextEvent("Message"))
            #expect(event["nonce"] as? String == "lost-1")
            let page = try await server.http(.GET, "\(path)?limit=1", token: token)
            #expect(page.jsonArray?.first?["nonce"] as? String == "lost-1")
            #expect(await server.socketCounters().lostSendAnswers == 1)
            // Only one answer was lost; the retry with the same key meets the key's 409.
            let retry = try await server.http(
                .POST, path, token: token, json: #"{"content":"stored"}"#, headers: [("Idempotency-Key", "lost-1")])
            #expect(retry.catcherCode == 409)
            await socket.close()
        }
    }

    @Test("The send faults through the admin API, cleared by reset")
    func adminRoutes() async throws {
        try await withServer { server throws in
            #expect(try await server.admin(.POST, "/deaf", json: #"{"enabled":true}"#).status == 204)
            #expect(try await server.admin(.POST, "/lose-send-answers", json: #"{"count":2}"#).status == 204)
            #expect(try await server.admin(.POST, "/deafen-sockets").json?["deafened"] as? Int == 0)
            #expect(await server.state.faults.deaf)
            #expect(await server.state.faults.loseSendAnswers == 2)
            #expect(try await server.admin(.POST, "/reset").status == 204)
            #expect(await !server.state.faults.deaf)
            #expect(await server.state.faults.loseSendAnswers == 0)
        }
    }
}
