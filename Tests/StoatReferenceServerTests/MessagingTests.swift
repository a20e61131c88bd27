import Foundation
import Testing

@testable import StoatReferenceServer

@Suite("REST API: channels, servers, users and messages")
struct MessagingTests {
    @Test("A member fetches the server, its channels and members; a stranger meets NotFound and MissingPermission")
    func visibility() async throws {
        try await withServer { server throws in
            let owner = server.defaultAccount
            let friend = try await server.addUser(username: "friend")
            let stranger = try await server.addUser(username: "stranger")
            try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
            let fetched = try await server.http(.GET, "/servers/\(server.lobbyServerID)", token: friend.token)
            #expect(fetched.status == 200)
            #expect(fetched.json?["name"] as? String == "Lifeline Lobby")
            #expect(fetched.json?["approximate_member_count"] as? Int == 3)
            #expect((fetched.json?["channels"] as? [String])?.contains(server.lobbyChannelID) == true)
            let withChannels = try await server.http(
                .GET, "/servers/\(server.lobbyServerID)?include_channels=true", token: friend.token)
            // serde's flatten writes the server's channel ids, then the channel objects, under the same key.
            #expect(withChannels.text.components(separatedBy: #""channels":"#).count == 3)
            #expect(
                (withChannels.json?["channels"] as? [[String: Any]])?.first?["channel_type"] as? String == "TextChannel"
            )
            let channel = try await server.http(.GET, "/channels/\(server.lobbyChannelID)", token: friend.token)
            #expect(channel.json?["name"] as? String == "general")
            let members = try await server.http(.GET, "/servers/\(server.lobbyServerID)/members", token: friend.token)
            let memberIDs = try #require(members.json?["members"] as? [[String: Any]]).map {
                ($0["_id"] as? [String: String])?["user"] ?? ""
            }
            let userIDs = try #require(members.json?["users"] as? [[String: Any]]).map { $0["_id"] as? String ?? "" }
            #expect(memberIDs == memberIDs.sorted())
            #expect(memberIDs == userIDs)
            #expect(Set(memberIDs) == [owner.userID, friend.userID, server.defaultBot.userID])

            let notMember = try await server.http(.GET, "/servers/\(server.lobbyServerID)", token: stranger.token)
            #expect(notMember.status == 404)
            #expect(notMember.errorType == "NotFound")
            #expect(
                try await server.http(.GET, "/servers/\(server.lobbyServerID)/members", token: stranger.token).errorType
                    == "NotFound")
            let hidden = try await server.http(.GET, "/channels/\(server.lobbyChannelID)", token: stranger.token)
            #expect(hidden.status == 403)
            #expect(hidden.errorType == "MissingPermission")
            #expect(hidden.json?["permission"] as? String == "ViewChannel")
            let history = try await server.http(
                .GET, "/channels/\(server.lobbyChannelID)/messages", token: stranger.token)
            #expect(history.json?["permission"] as? String == "ReadMessageHistory")
            let post = try await server.http(
                .POST, "/channels/\(server.lobbyChannelID)/messages", token: stranger.token, json: #"{"content":"hi"}"#)
            #expect(post.json?["permission"] as? String == "SendMessage")
            #expect(try await server.http(.GET, "/channels/NOPE", token: friend.token).errorType == "NotFound")
            #expect(try await server.http(.GET, "/servers/NOPE", token: friend.token).status == 404)
        }
    }

    @Test("Members listed with exclude_offline are those with a socket past Ready")
    func excludeOffline() async throws {
        try await withServer { server throws in
            let friend = try await server.addUser(username: "friend")
            try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
            let socket = try await server.connectReady(token: friend.token)
            let path = "/servers/\(server.lobbyServerID)/members?exclude_offline=true"
            let online = try await server.http(.GET, path, token: server.defaultAccount.token)
            #expect((online.json?["users"] as? [[String: Any]])?.map { $0["_id"] as? String } == [friend.userID])
            #expect((online.json?["members"] as? [[String: Any]])?.count == 1)
            #expect(
                try await server.http(.GET, "/servers/x/members?exclude_offline=maybe", token: friend.token).status
                    == 422)
            await socket.close()
        }
    }

    @Test("Users: @me, another member with Access, a stranger MissingPermission{Access}, the DM list")
    func users() async throws {
        try await withServer { server throws in
            let owner = server.defaultAccount
            let friend = try await server.addUser(username: "friend")
            let stranger = try await server.addUser(username: "stranger")
            try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
            let seen = try await server.http(.GET, "/users/\(friend.userID)", token: owner.token)
            #expect(seen.json?["username"] as? String == "friend")
            #expect(seen.json?["relationship"] as? String == "None")
            let refused = try await server.http(.GET, "/users/\(stranger.userID)", token: owner.token)
            #expect(refused.status == 403)
            #expect(refused.json?["permission"] as? String == "Access")
            #expect(try await server.http(.GET, "/users/NOBODY", token: owner.token).errorType == "NotFound")
            try await server.makeFriends(owner.userID, stranger.userID)
            let friendly = try await server.http(.GET, "/users/\(stranger.userID)", token: owner.token)
            #expect(friendly.json?["relationship"] as? String == "Friend")
            let me = try await server.http(.GET, "/users/@me", token: owner.token)
            #expect((me.json?["relations"] as? [[String: Any]])?.first?["status"] as? String == "Friend")
            let dm = try await server.openDirectMessage(owner.userID, stranger.userID)
            let dms = try await server.http(.GET, "/users/dms", token: owner.token)
            let kinds = try #require(dms.jsonArray).map { $0["channel_type"] as? String }
            #expect(kinds.contains("SavedMessages"))
            #expect(try #require(dms.jsonArray).contains { $0["_id"] as? String == dm.id })
        }
    }

    @Test(
        "A sent message has a ULID of the send time, a nonce, the author's user and member, and updates last_message_id"
    )
    func send() async throws {
        let clock = ManualClock()
        try await withServer(clock: clock) { server throws in
            let owner = server.defaultAccount
            let channel = server.lobbyChannelID
            let sent = try await server.http(
                .POST, "/channels/\(channel)/messages", token: owner.token, json: #"{"content":"hello"}"#)
            #expect(sent.status == 200)
            let id = try #require(sent.json?["_id"] as? String)
            #expect(Identifiers.time(ofULID: id) == clock.now)
            #expect(sent.json?["channel"] as? String == channel)
            #expect(sent.json?["author"] as? String == owner.userID)
            #expect(sent.json?["content"] as? String == "hello")
            #expect((sent.json?["nonce"] as? String)?.count == 26)
            #expect((sent.json?["user"] as? [String: Any])?["_id"] as? String == owner.userID)
            #expect(((sent.json?["member"] as? [String: Any])?["_id"] as? [String: String])?["user"] == owner.userID)
            #expect(sent.json?.keys.contains("flags") == false)
            // stoatchat's debounced task commits last_message_id about 6 s later (LagTests pins when).
            #expect(await server.channel(id: channel)?.lastMessageID != id)
            clock.advance(by: 7)
            #expect(await server.channel(id: channel)?.lastMessageID == id)
            let fetched = try await server.http(.GET, "/channels/\(channel)", token: owner.token)
            #expect(fetched.json?["last_message_id"] as? String == id)
        }
    }

    @Test(
        "Idempotency-Key becomes the nonce; reused it answers the framework's 409; a reused body nonce InvalidOperation"
    )
    func nonces() async throws {
        try await withServer { server throws in
            let token = server.defaultAccount.token
            let path = "/channels/\(server.lobbyChannelID)/messages"
            let keyed = try await server.http(
                .POST, path, token: token, json: #"{"content":"a"}"#, headers: [("Idempotency-Key", "key-1")])
            #expect(keyed.json?["nonce"] as? String == "key-1")
            let again = try await server.http(
                .POST, path, token: token, json: #"{"content":"a"}"#, headers: [("Idempotency-Key", "key-1")])
            #expect(again.status == 409)
            #expect(again.catcherCode == 409)
            let long = try await server.http(
                .POST, path, token: token, json: #"{"content":"a"}"#,
                headers: [("Idempotency-Key", String(repeating: "k", count: 65))])
            #expect(long.status == 400)
            #expect(long.catcherCode == 400)
            let nonce = try await server.http(.POST, path, token: token, json: #"{"content":"b","nonce":"n-1"}"#)
            #expect(nonce.json?["nonce"] as? String == "n-1")
            let reused = try await server.http(.POST, path, token: token, json: #"{"content":"b","nonce":"n-1"}"#)
            #expect(reused.status == 400)
            #expect(reused.errorType == "InvalidOperation")
            let empty = try await server.http(.POST, path, token: token, json: #"{"content":""}"#)
            #expect(empty.status == 422)
            #expect(empty.errorType == "EmptyMessage")
            let long2 = try await server.http(
                .POST, path, token: token, json: #"{"content":"\#(String(repeating: "x", count: 2001))"}"#)
            #expect(long2.errorType == "PayloadTooLarge")
            let flags = try await server.http(.POST, path, token: token, json: #"{"content":"c","flags":4}"#)
            #expect(flags.errorType == "IsNotBot")
            #expect(try await server.http(.POST, path, token: token, json: #"{"content":5}"#).status == 422)
        }
    }

    @Test(
        "Messages page by limit (1–100, 50 by default), before, after, sort and nearby; Relevance is InvalidOperation")
    func query() async throws {
        try await withServer { server throws in
            let owner = server.defaultAccount
            let channel = server.lobbyChannelID
            var ids: [String] = []
            for index in 0..<60 {
                ids.append(try await server.postMessage(as: owner.userID, in: channel, content: "m\(index)").id)
            }
            func page(_ query: String) async throws -> [String] {
                let answer = try await server.http(.GET, "/channels/\(channel)/messages\(query)", token: owner.token)
                #expect(answer.status == 200, "\(query): \(answer.text)")
                return (answer.jsonArray ?? []).compactMap { $0["_id"] as? String }
            }
            #expect(try await page("") == Array(ids.reversed().prefix(50)))
            #expect(try await page("?limit=3&sort=Oldest") == Array(ids.prefix(3)))
            #expect(try await page("?limit=2&before=\(ids[10])") == [ids[9], ids[8]])
            #expect(try await page("?limit=2&after=\(ids[10])&sort=oldest") == [ids[11], ids[12]])
            #expect(try await page("?before=\(ids[5])&after=\(ids[1])&sort=Oldest") == Array(ids[2...4]))
            #expect(
                try await page("?nearby=\(ids[30])&limit=4") == [ids[30], ids[31], ids[32], ids[29], ids[28], ids[27]])
            for bad in ["?limit=0", "?limit=101", "?before=short"] {
                let answer = try await server.http(.GET, "/channels/\(channel)/messages\(bad)", token: owner.token)
                #expect(answer.errorType == "FailedValidation", "\(bad)")
            }
            let relevance = try await server.http(
                .GET, "/channels/\(channel)/messages?sort=Relevance", token: owner.token)
            #expect(relevance.errorType == "InvalidOperation")
            #expect(
                try await server.http(.GET, "/channels/\(channel)/messages?limit=x", token: owner.token).status == 422)
            #expect(
                try await server.http(.GET, "/channels/\(channel)/messages?sort=Newest", token: owner.token).status
                    == 422)
        }
    }

    @Test("include_users answers {messages, users, members} for a server channel, without members elsewhere")
    func includeUsers() async throws {
        try await withServer { server throws in
            let owner = server.defaultAccount
            let friend = try await server.addUser(username: "friend")
            try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
            try await server.postMessage(as: owner.userID, in: server.lobbyChannelID, content: "one")
            try await server.postMessage(as: friend.userID, in: server.lobbyChannelID, content: "two")
            let answer = try await server.http(
                .GET, "/channels/\(server.lobbyChannelID)/messages?include_users=true", token: owner.token)
            #expect(Set(answer.json?.keys ?? [:].keys) == ["messages", "users", "members"])
            #expect((answer.json?["messages"] as? [[String: Any]])?.count == 2)
            #expect(
                Set((answer.json?["users"] as? [[String: Any]] ?? []).compactMap { $0["_id"] as? String }) == [
                    owner.userID, friend.userID,
                ])
            #expect((answer.json?["members"] as? [[String: Any]])?.count == 2)
            try await server.makeFriends(owner.userID, friend.userID)
            let dm = try await server.openDirectMessage(owner.userID, friend.userID)
            try await server.postMessage(as: friend.userID, in: dm.id, content: "psst")
            let direct = try await server.http(
                .GET, "/channels/\(dm.id)/messages?include_users=true", token: owner.token)
            #expect(Set(direct.json?.keys ?? [:].keys) == ["messages", "users"])
        }
    }

    @Test("Direct messages: friends send, others may only read; a group's members send")
    func directMessages() async throws {
        try await withServer { server throws in
            let owner = server.defaultAccount
            let other = try await server.addUser(username: "other")
            let dm = try await server.openDirectMessage(owner.userID, other.userID)
            let refused = try await server.http(
                .POST, "/channels/\(dm.id)/messages", token: other.token, json: #"{"content":"hi"}"#)
            #expect(refused.json?["permission"] as? String == "SendMessage")
            #expect(try await server.http(.GET, "/channels/\(dm.id)/messages", token: other.token).status == 200)
            try await server.makeFriends(owner.userID, other.userID)
            let sent = try await server.http(
                .POST, "/channels/\(dm.id)/messages", token: other.token, json: #"{"content":"hi"}"#)
            #expect(sent.status == 200)
            let group = try await server.createGroup(name: "g", owner: owner.userID, recipients: [other.userID])
            let inGroup = try await server.http(
                .POST, "/channels/\(group.id)/messages", token: other.token, json: #"{"content":"yo"}"#)
            #expect(inGroup.status == 200)
            let outsider = try await server.addUser(username: "outsider")
            #expect(
                try await server.http(.GET, "/channels/\(group.id)", token: outsider.token).errorType
                    == "MissingPermission")
        }
    }

    @Test("Editing is the author's (CannotEditMessage otherwise) and deleting the author's or ManageMessages'")
    func editAndDelete() async throws {
        try await withServer { server throws in
            let owner = server.defaultAccount
            let friend = try await server.addUser(username: "friend")
            try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
            let channel = server.lobbyChannelID
            let mine = try await server.postMessage(as: friend.userID, in: channel, content: "mine")
            let edited = try await server.http(
                .PATCH, "/channels/\(channel)/messages/\(mine.id)", token: friend.token, json: #"{"content":"new"}"#)
            #expect(edited.json?["content"] as? String == "new")
            #expect(edited.json?["edited"] is String)
            #expect(edited.json?["embeds"] as? [Any] != nil)
            let notMine = try await server.http(
                .PATCH, "/channels/\(channel)/messages/\(mine.id)", token: owner.token, json: #"{"content":"x"}"#)
            #expect(notMine.status == 403)
            #expect(notMine.errorType == "CannotEditMessage")
            let ownerMessage = try await server.postMessage(as: owner.userID, in: channel, content: "owner's")
            let forbidden = try await server.http(
                .DELETE, "/channels/\(channel)/messages/\(ownerMessage.id)", token: friend.token)
            #expect(forbidden.json?["permission"] as? String == "ManageMessages")
            // The owner has every permission, ManageMessages included.
            let removed = try await server.http(.DELETE, "/channels/\(channel)/messages/\(mine.id)", token: owner.token)
            #expect(removed.status == 204)
            #expect(
                try await server.http(.DELETE, "/channels/\(channel)/messages/\(mine.id)", token: owner.token).errorType
                    == "NotFound")
        }
    }

    @Test("A timed-out member may read but not send until the timeout passes in the server's clock")
    func timeout() async throws {
        let clock = ManualClock()
        try await withServer(clock: clock) { server throws in
            let friend = try await server.addUser(username: "friend")
            try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
            try await server.timeOutMember(
                userID: friend.userID, serverID: server.lobbyServerID, until: clock.now.addingTimeInterval(60))
            let path = "/channels/\(server.lobbyChannelID)/messages"
            let refused = try await server.http(.POST, path, token: friend.token, json: #"{"content":"hi"}"#)
            #expect(refused.json?["permission"] as? String == "SendMessage")
            #expect(try await server.http(.GET, path, token: friend.token).status == 200)
            clock.advance(by: 61)
            #expect(try await server.http(.POST, path, token: friend.token, json: #"{"content":"hi"}"#).status == 200)
        }
    }

    @Test("Slowmode: a second message within the period answers InSlowmode{retry_after}; the owner bypasses it")
    func slowmode() async throws {
        let clock = ManualClock()
        try await withServer(clock: clock) { server throws in
            let friend = try await server.addUser(username: "friend")
            try await server.join(userID: friend.userID, serverID: server.lobbyServerID)
            try await server.setSlowmode(channelID: server.lobbyChannelID, seconds: 30)
            let path = "/channels/\(server.lobbyChannelID)/messages"
            #expect(try await server.http(.POST, path, token: friend.token, json: #"{"content":"1"}"#).status == 200)
            clock.advance(by: 10)
            let slow = try await server.http(.POST, path, token: friend.token, json: #"{"content":"2"}"#)
            #expect(slow.status == 429)
            #expect(slow.errorType == "InSlowmode")
            #expect(slow.json?["retry_after"] as? Int == 20)
            for _ in 0..<2 {
                #expect(
                    try await server.http(.POST, path, token: server.defaultAccount.token, json: #"{"content":"o"}"#)
                        .status == 200)
            }
            clock.advance(by: 20)
            #expect(try await server.http(.POST, path, token: friend.token, json: #"{"content":"3"}"#).status == 200)
        }
    }

    @Test("Bots call the REST API with X-Bot-Token; a wrong bot token is the framework's 401")
    func botToken() async throws {
        try await withServer { server throws in
            let bot = server.defaultBot
            let me = try await server.http(.GET, "/users/@me", headers: [("X-Bot-Token", bot.token)])
            #expect(me.status == 200)
            #expect(me.json?["_id"] as? String == bot.userID)
            #expect((me.json?["bot"] as? [String: Any])?["owner"] as? String == server.defaultAccount.userID)
            let sent = try await server.http(
                .POST, "/channels/\(server.lobbyChannelID)/messages", json: #"{"content":"beep"}"#,
                headers: [("X-Bot-Token", bot.token)])
            #expect(sent.json?["author"] as? String == bot.userID)
            let wrong = try await server.http(.GET, "/users/@me", headers: [("X-Bot-Token", "nope")])
            #expect(wrong.catcherCode == 401)
            // The session routes take sessions only.
            #expect(
                try await server.http(.GET, "/auth/session/all", headers: [("X-Bot-Token", bot.token)]).status == 401)
        }
    }
}
