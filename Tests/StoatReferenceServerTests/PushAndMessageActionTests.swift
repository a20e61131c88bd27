import Foundation
import Testing

@testable import StoatReferenceServer

@Suite("Web Push subscriptions, kept on the session", .hangBound)
struct PushSubscriptionTests {
    static let body = #"{"endpoint":"https://push.example/device-1","p256dh":"BKey","auth":"secret"}"#

    @Test("Subscribe answers 204 and the session holds it; a new one replaces it; unsubscribe removes it")
    func subscribeReplaceUnsubscribe() async throws {
        try await withServer { server throws in
            let account = server.defaultAccount
            #expect(
                try await server.http(.POST, "/push/subscribe", token: account.token, json: Self.body).status == 204)
            var held = await server.pushSubscriptions()
            #expect(held.count == 1)
            #expect(held.first?.userID == account.userID)
            #expect(
                held.first?.subscription
                    == PushSubscription(
                        endpoint: "https://push.example/device-1", p256dh: "BKey", auth: "secret"))
            let other = #"{"endpoint":"https://push.example/device-2","p256dh":"K2","auth":"S2"}"#
            #expect(try await server.http(.POST, "/push/subscribe", token: account.token, json: other).status == 204)
            held = await server.pushSubscriptions()
            #expect(held.map(\.subscription.endpoint) == ["https://push.example/device-2"])
            let listed = try await server.admin(.GET, "/push-subscriptions")
            #expect(listed.jsonArray?.first?["endpoint"] as? String == "https://push.example/device-2")
            #expect(listed.jsonArray?.first?["user_id"] as? String == account.userID)
            #expect(try await server.http(.POST, "/push/unsubscribe", token: account.token).status == 204)
            #expect(await server.pushSubscriptions().isEmpty)
            // Unsubscribing without a subscription is 204 all the same.
            #expect(try await server.http(.POST, "/push/unsubscribe", token: account.token).status == 204)
        }
    }

    @Test("The Session guard: no token or a bot's is the framework's 401; a body of the wrong shape 422")
    func guardAndBody() async throws {
        try await withServer { server throws in
            let anonymous = try await server.http(.POST, "/push/subscribe", json: Self.body)
            #expect(anonymous.status == 401)
            #expect(anonymous.catcherCode == 401)
            let bot = try await server.http(
                .POST, "/push/subscribe", json: Self.body, headers: [("X-Bot-Token", server.defaultBot.token)])
            #expect(bot.status == 401)
            let shape = try await server.http(
                .POST, "/push/subscribe", token: server.defaultAccount.token, json: #"{"endpoint":"x"}"#)
            #expect(shape.status == 422)
            #expect(await server.pushSubscriptions().isEmpty)
        }
    }

    @Test("A subscription ends with its session: a logout and a revocation take it; another session's stays")
    func endsWithTheSession() async throws {
        try await withServer { server throws in
            let first = server.defaultAccount
            let second = try await server.addUser(username: "second")
            let third = try await server.addUser(username: "third")
            for account in [first, second, third] {
                #expect(
                    try await server.http(.POST, "/push/subscribe", token: account.token, json: Self.body).status
                        == 204)
            }
            #expect(await server.pushSubscriptions().count == 3)
            #expect(try await server.http(.POST, "/auth/session/logout", token: first.token).status == 204)
            #expect(await server.revokeSession(token: second.token))
            #expect(await server.pushSubscriptions().map(\.userID) == [third.userID])
        }
    }
}

@Suite("Message actions already applied: what stoatchat answers", .hangBound)
struct MessageActionsAppliedTests {
    @Test("An edit repeated answers 200 again, stamps edited again and publishes MessageUpdate again")
    func editRepeated() async throws {
        try await withServer { server throws in
            let account = server.defaultAccount
            let message = try await server.postMessage(as: account.userID, in: server.lobbyChannelID, content: "v1")
            let socket = try await server.connectReady(token: account.token)
            let path = "/channels/\(server.lobbyChannelID)/messages/\(message.id)"
            let first = try await server.http(.PATCH, path, token: account.token, json: #"{"content":"v2"}"#)
            let second = try await server.http(.PATCH, path, token: account.token, json: #"{"content":"v2"}"#)
            #expect(first.status == 200)
            #expect(second.status == 200)
            #expect(second.json?["content"] as? String == "v2")
            for _ in 0..<2 {
                let update = try #require(try await socket.nextJSON(skipping: ["UserUpdate"]))
                #expect(update["type"] as? String == "MessageUpdate")
                #expect((update["data"] as? [String: Any])?["content"] as? String == "v2")
            }
            // An empty text is a validation failure, not an edit.
            let empty = try await server.http(.PATCH, path, token: account.token, json: #"{"content":""}"#)
            #expect(empty.errorType == "FailedValidation")
            await socket.close()
        }
    }

    @Test("A delete repeated answers NotFound (404): the message is looked up first")
    func deleteRepeated() async throws {
        try await withServer { server throws in
            let account = server.defaultAccount
            let message = try await server.postMessage(as: account.userID, in: server.lobbyChannelID, content: "bye")
            let path = "/channels/\(server.lobbyChannelID)/messages/\(message.id)"
            #expect(try await server.http(.DELETE, path, token: account.token).status == 204)
            let again = try await server.http(.DELETE, path, token: account.token)
            #expect(again.status == 404)
            #expect(again.errorType == "NotFound")
        }
    }

    @Test("A reaction repeated answers 204 and publishes MessageReact again; an unreact repeated is NotFound")
    func reactRepeated() async throws {
        try await withServer { server throws in
            let account = server.defaultAccount
            let message = try await server.postMessage(as: account.userID, in: server.lobbyChannelID, content: "hi")
            let socket = try await server.connectReady(token: account.token)
            let path = "/channels/\(server.lobbyChannelID)/messages/\(message.id)/reactions/%F0%9F%91%8D"
            #expect(try await server.http(.PUT, path, token: account.token).status == 204)
            #expect(try await server.http(.PUT, path, token: account.token).status == 204)
            for _ in 0..<2 {
                let react = try #require(try await socket.nextJSON(skipping: ["UserUpdate"]))
                #expect(react["type"] as? String == "MessageReact")
                #expect(react["emoji_id"] as? String == "👍")
            }
            let stored = try await server.http(
                .GET, "/channels/\(server.lobbyChannelID)/messages?limit=1", token: account.token)
            #expect((stored.jsonArray?.first?["reactions"] as? [String: [String]])?["👍"] == [account.userID])
            #expect(try await server.http(.DELETE, path, token: account.token).status == 204)
            let again = try await server.http(.DELETE, path, token: account.token)
            #expect(again.status == 404)
            #expect(again.errorType == "NotFound")
            await socket.close()
        }
    }

    @Test("Another user's reaction is removed with ManageMessages (user_id), refused without it")
    func unreactOthers() async throws {
        try await withServer { server throws in
            let owner = server.defaultAccount
            let friend = try await server.addUser(username: "friend")
            try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
            let message = try await server.postMessage(as: owner.userID, in: server.lobbyChannelID, content: "x")
            let path = "/channels/\(server.lobbyChannelID)/messages/\(message.id)/reactions/%F0%9F%8E%89"
            #expect(try await server.http(.PUT, path, token: owner.token).status == 204)
            let refused = try await server.http(.DELETE, path + "?user_id=\(owner.userID)", token: friend.token)
            #expect(refused.json?["permission"] as? String == "ManageMessages")
            #expect(try await server.http(.PUT, path, token: friend.token).status == 204)
            #expect(
                try await server.http(.DELETE, path + "?user_id=\(friend.userID)", token: owner.token).status == 204)
        }
    }
}
