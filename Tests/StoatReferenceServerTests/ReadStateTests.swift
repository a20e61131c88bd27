import Foundation
import Testing

@testable import StoatReferenceServer

/// What a client catching up after a gap relies on: what happens to messages after they are sent, what the user
/// has read, and the events of server-wide changes.
@Suite("Messages after they are sent, read states and server-wide changes, as stoatchat does them")
struct ReadStateTests {
    @Test(
        "Reactions: MessageReact and MessageUnreact to the channel, the emoji gone with its last user, remove_all and a clear"
    )
    func reactions() async throws {
        try await withServer { server throws in
            let world = try await World.make(server)
            let channel = server.lobbyChannelID
            let message = try await server.postMessage(as: world.member.userID, in: channel, content: "react to me")
            _ = try await world.ownerSocket.nextEvent("Message")
            let path = "/channels/\(channel)/messages/\(message.id)/reactions"
            #expect(try await server.http(.PUT, "\(path)/%F0%9F%91%8D", token: world.member.token).status == 204)
            let react = try #require(try await world.ownerSocket.nextEvent("MessageReact"))
            #expect(react["id"] as? String == message.id)
            #expect(react["channel_id"] as? String == channel)
            #expect(react["user_id"] as? String == world.member.userID)
            #expect(react["emoji_id"] as? String == "👍")
            let page = try await server.http(.GET, "/channels/\(channel)/messages?limit=1", token: world.owner.token)
            #expect((page.jsonArray?.first?["reactions"] as? [String: [String]]) == ["👍": [world.member.userID]])
            // Not an emoji: InvalidOperation; someone else's reaction without ManageMessages: MissingPermission.
            #expect(
                try await server.http(.PUT, "\(path)/hello", token: world.member.token).errorType == "InvalidOperation")
            let others = try await server.http(
                .DELETE, "\(path)/%F0%9F%91%8D?user_id=\(world.owner.userID)", token: world.member.token)
            #expect(others.json?["permission"] as? String == "ManageMessages")
            // Taking back a reaction that is not there is NotFound; the member's own goes, and the emoji with it.
            #expect(
                try await server.http(.DELETE, "\(path)/%F0%9F%91%8D", token: world.owner.token).errorType == "NotFound"
            )
            #expect(try await server.http(.DELETE, "\(path)/%F0%9F%91%8D", token: world.member.token).status == 204)
            let unreact = try #require(try await world.ownerSocket.nextEvent("MessageUnreact"))
            #expect(unreact["user_id"] as? String == world.member.userID)
            let after = try await server.http(.GET, "/channels/\(channel)/messages?limit=1", token: world.owner.token)
            #expect(after.jsonArray?.first?["reactions"] == nil)
            // The owner (ManageMessages) removes every 🎉, then clears the rest: MessageUpdate {reactions: {}}.
            try await server.react(as: world.member.userID, to: message.id, with: "🎉")
            _ = try await world.ownerSocket.nextEvent("MessageReact")
            #expect(
                try await server.http(.DELETE, "\(path)/%F0%9F%8E%89?remove_all=true", token: world.owner.token).status
                    == 204)
            let removed = try #require(try await world.ownerSocket.nextEvent("MessageRemoveReaction"))
            #expect(removed["emoji_id"] as? String == "🎉")
            #expect(try await server.http(.DELETE, path, token: world.owner.token).status == 204)
            let cleared = try #require(try await world.ownerSocket.nextEvent("MessageUpdate"))
            #expect(cleared["data"] as? [String: [String: [String]]] == ["reactions": [:]])
            try await world.expectNothingMore([world.strangerSocket])
            await world.close()
        }
    }

    @Test("At most 20 distinct emojis on a message; a 21st is InvalidOperation, another of the 20 is fine")
    func reactionLimit() async throws {
        try await withServer { server throws in
            let owner = server.defaultAccount
            let message = try await server.postMessage(as: owner.userID, in: server.lobbyChannelID, content: "m")
            let emojis = Array("😀😁😂🤣😃😄😅😆😉😊😋😎😍😘🥰😗😙😚🙂🤗🤩").map(String.init)
            for emoji in emojis.prefix(20) { try await server.react(as: owner.userID, to: message.id, with: emoji) }
            await #expect(throws: ReferenceServerError.self) {
                try await server.react(as: owner.userID, to: message.id, with: emojis[20])
            }
            try await server.react(as: owner.userID, to: message.id, with: emojis[0])
        }
    }

    @Test("Appended embeds reach the channel as MessageAppend {append: {embeds}} and stay on the message")
    func append() async throws {
        try await withServer { server throws in
            let world = try await World.make(server)
            let channel = server.lobbyChannelID
            let message = try await server.postMessage(as: world.member.userID, in: channel, content: "https://x")
            _ = try await world.ownerSocket.nextEvent("Message")
            try await server.appendTextEmbed(to: message.id, title: "X", description: "the page")
            let append = try #require(try await world.ownerSocket.nextEvent("MessageAppend"))
            #expect(append["id"] as? String == message.id)
            #expect(append["channel"] as? String == channel)
            let embeds = (append["append"] as? [String: Any])?["embeds"] as? [[String: String]]
            #expect(embeds == [["type": "Text", "title": "X", "description": "the page"]])
            let page = try await server.http(.GET, "/channels/\(channel)/messages?limit=1", token: world.owner.token)
            #expect((page.jsonArray?.first?["embeds"] as? [[String: String]])?.first?["title"] == "X")
            await world.close()
        }
    }

    @Test(
        "Bulk deletion: ManageMessages, ids of the last 7 days, one BulkMessageDelete naming those of the channel; last_message_id stays"
    )
    func bulkDelete() async throws {
        let clock = ManualClock()
        try await withServer(clock: clock) { server throws in
            // This test pins that a bulk deletion leaves a committed last_message_id as it was; the debounce that
            // commits it (LagTests) is turned off so that each send's field is committed with it.
            await server.setLastMessageIDLag(false)
            let world = try await World.make(server)
            let channel = server.lobbyChannelID
            var ids: [String] = []
            for index in 0..<3 {
                ids.append(try await server.postMessage(as: world.member.userID, in: channel, content: "\(index)").id)
            }
            for _ in ids { _ = try await world.ownerSocket.nextEvent("Message") }
            let path = "/channels/\(channel)/messages/bulk"
            // Recent, but not a message of this channel.
            let foreign = String(ids[0].prefix(10)) + String(repeating: "Z", count: 16)
            // The member may not, even for their own messages.
            let refused = try await server.http(
                .DELETE, path, token: world.member.token, json: #"{"ids":["\#(ids[0])"]}"#)
            #expect(refused.json?["permission"] as? String == "ManageMessages")
            #expect(
                try await server.http(.DELETE, path, token: world.owner.token, json: #"{"ids":[]}"#).errorType
                    == "FailedValidation")
            #expect(
                try await server.http(.DELETE, path, token: world.owner.token, json: #"{"ids":["nope"]}"#).errorType
                    == "InvalidOperation")
            #expect(try await server.http(.DELETE, path, token: world.owner.token, json: #"{"id":[]}"#).status == 422)
            let answer = try await server.http(
                .DELETE, path, token: world.owner.token, json: #"{"ids":["\#(ids[0])","\#(ids[2])","\#(foreign)"]}"#)
            #expect(answer.status == 204)
            let event = try #require(try await world.ownerSocket.nextEvent("BulkMessageDelete"))
            #expect(event["channel"] as? String == channel)
            #expect(event["ids"] as? [String] == [ids[0], ids[2]])
            let left = try await server.http(.GET, "/channels/\(channel)/messages", token: world.owner.token)
            #expect(left.jsonArray?.compactMap { $0["_id"] as? String } == [ids[1]])
            // stoatchat's bulk deletion does not move last_message_id.
            #expect(await server.channel(id: channel)?.lastMessageID == ids[2])
            // A week later the remaining message is too old for it.
            clock.advance(by: 8 * 24 * 3600)
            #expect(
                try await server.http(.DELETE, path, token: world.owner.token, json: #"{"ids":["\#(ids[1])"]}"#)
                    .errorType == "InvalidOperation")
            await world.close()
        }
    }

    @Test(
        "An ack answers 204, sends ChannelAck to the user's own sockets only, and moves their read state; mentions before it go"
    )
    func acknowledgements() async throws {
        try await withServer { server throws in
            let world = try await World.make(server)
            let channel = server.lobbyChannelID
            let owner = world.owner
            let first = try await server.postMessage(
                as: world.member.userID, in: channel, content: "hey <@\(owner.userID)>")
            let second = try await server.postMessage(
                as: world.member.userID, in: channel, content: "again <@\(owner.userID)>")
            var unreads = try await server.http(.GET, "/sync/unreads", token: owner.token)
            #expect(unreads.jsonArray?.count == 1)
            let record = try #require(unreads.jsonArray?.first)
            #expect(record["_id"] as? [String: String] == ["channel": channel, "user": owner.userID])
            #expect(record["last_id"] == nil)
            #expect(record["mentions"] as? [String] == [first.id, second.id])
            let ack = try await server.http(.PUT, "/channels/\(channel)/ack/\(first.id)", token: owner.token)
            #expect(ack.status == 204)
            let event = try #require(try await world.ownerSocket.nextEvent("ChannelAck"))
            #expect(event["id"] as? String == channel)
            #expect(event["user"] as? String == owner.userID)
            #expect(event["message_id"] as? String == first.id)
            unreads = try await server.http(.GET, "/sync/unreads", token: owner.token)
            #expect(unreads.jsonArray?.first?["last_id"] as? String == first.id)
            #expect(unreads.jsonArray?.first?["mentions"] as? [String] == [second.id])
            // The member's socket heard no ack; the member has no read state.
            try await world.expectNothingMore([world.memberSocket, world.strangerSocket], skipping: ["Message"])
            #expect(try await server.http(.GET, "/sync/unreads", token: world.member.token).jsonArray?.isEmpty == true)
            // Any id is taken, as stoatchat does not look it up; a stranger cannot see the channel.
            #expect(
                try await server.http(.PUT, "/channels/\(channel)/ack/01ARZ3NDEKTSV4RRFFQ69G5FAV", token: owner.token)
                    .status == 204)
            #expect(
                try await server.http(.PUT, "/channels/\(channel)/ack/\(second.id)", token: world.stranger.token)
                    .errorType == "MissingPermission")
            #expect(
                try await server.http(.PUT, "/channels/01ARZ3NDEKTSV4RRFFQ69G5FAV/ack/\(second.id)", token: owner.token)
                    .errorType == "NotFound")
            await world.close()
        }
    }

    @Test(
        "In a direct message every message of the other counts as a mention; a silent one (flags 2) does not; bots cannot ack"
    )
    func directMessageMentions() async throws {
        try await withServer { server throws in
            let owner = server.defaultAccount
            let friend = try await server.addUser(username: "friend")
            try await server.makeFriends(owner.userID, friend.userID)
            let dm = try await server.openDirectMessage(owner.userID, friend.userID)
            let loud = try await server.postMessage(as: friend.userID, in: dm.id, content: "hi")
            let silent = try await server.http(
                .POST, "/channels/\(dm.id)/messages", token: friend.token, json: #"{"content":"shh","flags":2}"#)
            #expect(silent.status == 200)
            let unreads = try await server.http(.GET, "/sync/unreads", token: owner.token)
            #expect(unreads.jsonArray?.first?["mentions"] as? [String] == [loud.id])
            #expect(try await server.http(.GET, "/sync/unreads", token: friend.token).jsonArray?.isEmpty == true)
            let bot = server.defaultBot
            let botAck = try await server.http(
                .PUT, "/channels/\(server.lobbyChannelID)/ack/\(loud.id)",
                headers: [("X-Bot-Token", bot.token)])
            #expect(botAck.errorType == "IsBot")
        }
    }

    @Test(
        "Default permissions that hide a channel: each member's socket gets Bulk [ChannelDelete, ServerUpdate] and hears it no more; restoring them Bulk [ChannelCreate, ServerUpdate]"
    )
    func permissionBulk() async throws {
        try await withServer { server throws in
            let world = try await World.make(server)
            let channel = server.lobbyChannelID
            try await server.setDefaultPermissions(serverID: server.lobbyServerID, [])
            let bulk = try #require(try await world.memberSocket.nextEvent("Bulk"))
            let events = try #require(bulk["v"] as? [[String: Any]])
            let lobbyChannels = try #require(await server.server(id: server.lobbyServerID)?.channels)
            #expect(
                events.map { $0["type"] as? String } == lobbyChannels.map { _ in "ChannelDelete" } + ["ServerUpdate"])
            #expect(Set(events.dropLast().compactMap { $0["id"] as? String }) == Set(lobbyChannels))
            #expect(lobbyChannels.contains(channel))
            #expect((events.last?["data"] as? [String: Int])?["default_permissions"] == 0)
            // The owner keeps every permission: the plain ServerUpdate.
            #expect(try await world.ownerSocket.nextEvent("ServerUpdate") != nil)
            _ = try await server.postMessage(as: world.owner.userID, in: channel, content: "members cannot see this")
            _ = try await world.ownerSocket.nextEvent("Message")
            try await world.expectNothingMore([world.memberSocket], skipping: ["UserUpdate"])
            try await server.setDefaultPermissions(serverID: server.lobbyServerID, .defaultServer)
            let restored = try #require(try await world.memberSocket.nextEvent("Bulk"))
            let again = try #require(restored["v"] as? [[String: Any]])
            #expect(
                again.map { $0["type"] as? String } == lobbyChannels.map { _ in "ChannelCreate" } + ["ServerUpdate"])
            _ = try await server.postMessage(as: world.owner.userID, in: channel, content: "back")
            #expect(try await world.memberSocket.nextEvent("Message")?["content"] as? String == "back")
            await world.close()
        }
    }

    @Test("A deleted server: ServerDelete to its sockets, which hear nothing of it afterwards; its channel is gone")
    func serverDelete() async throws {
        try await withServer { server throws in
            let world = try await World.make(server)
            let extra = try await server.addTextChannel(serverID: server.lobbyServerID, name: "extra")
            _ = try await world.memberSocket.nextEvent("ChannelCreate")
            try await server.deleteServer(id: server.lobbyServerID)
            let deleted = try #require(try await world.memberSocket.nextEvent("ServerDelete"))
            #expect(deleted["id"] as? String == server.lobbyServerID)
            #expect(try await world.ownerSocket.nextEvent("ServerDelete") != nil)
            #expect(
                try await server.http(.GET, "/channels/\(extra.id)", token: world.owner.token).errorType == "NotFound")
            await #expect(throws: ReferenceServerError.self) {
                try await server.postMessage(as: world.owner.userID, in: extra.id, content: "into the void")
            }
            try await world.expectNothingMore([world.memberSocket, world.ownerSocket], skipping: ["UserUpdate"])
            await world.close()
        }
    }

    @Test("Paging forward with after and sort=Oldest gives every message once, in order, and an empty page at the end")
    func forwardPages() async throws {
        try await withServer { server throws in
            let owner = server.defaultAccount
            let channel = server.lobbyChannelID
            var ids: [String] = []
            for index in 0..<25 {
                ids.append(try await server.postMessage(as: owner.userID, in: channel, content: "\(index)").id)
            }
            var seen: [String] = []
            var after = ids[4]
            while true {
                let page = try await server.http(
                    .GET, "/channels/\(channel)/messages?after=\(after)&sort=Oldest&limit=7", token: owner.token)
                let pageIDs = page.jsonArray?.compactMap { $0["_id"] as? String } ?? []
                seen += pageIDs
                guard let last = pageIDs.last, pageIDs.count == 7 else { break }
                after = last
            }
            #expect(seen == Array(ids[5...]))
            // Latest with after: the newest ones after it, newest first.
            let latest = try await server.http(
                .GET, "/channels/\(channel)/messages?after=\(ids[20])&limit=2", token: owner.token)
            #expect(latest.jsonArray?.compactMap { $0["_id"] as? String } == [ids[24], ids[23]])
            // Nearby the first message: itself and what follows (no older side).
            let nearby = try await server.http(
                .GET, "/channels/\(channel)/messages?nearby=\(ids[0])&limit=4", token: owner.token)
            #expect(nearby.jsonArray?.compactMap { $0["_id"] as? String } == [ids[0], ids[1], ids[2]])
        }
    }

    @Test("The admin API stages reactions, embeds, bulk deletions, acks, permissions and a deleted server")
    func adminRoutes() async throws {
        try await withServer { server throws in
            let owner = server.defaultAccount
            let channel = server.lobbyChannelID
            let message = try await server.postMessage(as: owner.userID, in: channel, content: "m")
            let react = try await server.admin(
                .POST, "/messages/\(message.id)/react", json: #"{"user_id":"\#(owner.userID)","emoji":"👍"}"#)
            #expect(react.status == 204)
            let append = try await server.admin(
                .POST, "/messages/\(message.id)/append", json: #"{"embeds":[{"type":"Text","title":"t"}]}"#)
            #expect(append.json?["embeds"] != nil)
            let ack = try await server.admin(
                .POST, "/acks",
                json: #"{"user_id":"\#(owner.userID)","channel_id":"\#(channel)","message_id":"\#(message.id)"}"#)
            #expect(ack.status == 204)
            #expect(await server.unreads(userID: owner.userID).first?.lastID == message.id)
            let bulk = try await server.admin(
                .POST, "/messages/bulk-delete",
                json: #"{"user_id":"\#(owner.userID)","channel_id":"\#(channel)","ids":["\#(message.id)"]}"#)
            #expect(bulk.status == 204)
            let permissions = try await server.admin(
                .POST, "/servers/\(server.lobbyServerID)/default-permissions", json: #"{"permissions":0}"#)
            #expect(permissions.status == 204)
            #expect(try await server.admin(.POST, "/servers/\(server.lobbyServerID)/delete").status == 204)
            #expect(try await server.admin(.POST, "/servers/\(server.lobbyServerID)/delete").status == 404)
            let counts = await server.requestCounts()
            #expect(counts["POST /channels/{id}/messages"] == nil)
        }
    }
}
