import Foundation
import Testing

@testable import StoatReferenceServer

/// Message flags, mass and role mentions, roles, a channel's default permissions and acknowledgements, as
/// stoatchat does them (`crates/core/database/src/models/messages/model.rs`, `crates/core/parser`,
/// `crates/core/permissions/src/impl.rs`, pushd's mass-mention consumer, `Channel::ack`).
@Suite("Flags, mentions, roles, channel permissions and acks, as stoatchat does them")
struct MentionsAndPermissionsTests {
    @Test(
        "Flags are bit positions: 2 silences, 4 mentions everyone (a bot's, with MentionEveryone), above 7 is refused; @everyone and @online in the text set 4 and 8"
    )
    func flags() async throws {
        try await withServer { server throws in
            let lobby = server.lobbyServerID
            let path = "/channels/\(server.lobbyChannelID)/messages"
            let bot = server.defaultBot
            _ = try? await server.join(userID: bot.userID, serverID: lobby)
            func botPost(_ body: String) async throws -> HTTPAnswer {
                try await server.http(.POST, path, json: body, headers: [("X-Bot-Token", bot.token)])
            }
            let silent = try await botPost(#"{"content":"quietly","flags":2}"#)
            #expect(silent.status == 200)
            #expect(silent.json?["flags"] as? Int == 2)
            // The value 1 is no flag: accepted, and gone from the stored message.
            let one = try await botPost(#"{"content":"one","flags":1}"#)
            #expect(one.status == 200)
            #expect(one.json?["flags"] == nil)
            // 8 (MentionsOnline) cannot be sent: anything above 7 is InvalidProperty.
            #expect(try await botPost(#"{"content":"online","flags":8}"#).errorType == "InvalidProperty")
            // Mentioning everyone needs MentionEveryone, which a new server's members lack.
            let refused = try await botPost(#"{"content":"all of you","flags":4}"#)
            #expect(refused.errorType == "MissingPermission")
            #expect(refused.json?["permission"] as? String == "MentionEveryone")
            try await server.setDefaultPermissions(
                serverID: lobby, StoatPermission.defaultServer.union(.mentionEveryone))
            let everyone = try await botPost(#"{"content":"all of you","flags":6}"#)
            #expect(everyone.json?["flags"] as? Int == 6)
            // A person cannot set the bit; the text says it instead (the owner has every permission).
            let owner = server.defaultAccount.token
            #expect(
                try await server.http(.POST, path, token: owner, json: #"{"content":"x","flags":4}"#).errorType
                    == "IsNotBot")
            let written = try await server.http(.POST, path, token: owner, json: #"{"content":"hey @everyone"}"#)
            #expect(written.json?["flags"] as? Int == 4)
            let online = try await server.http(.POST, path, token: owner, json: #"{"content":"@online, anyone?"}"#)
            #expect(online.json?["flags"] as? Int == 8)
            // A member without MentionEveryone cannot write it either.
            try await server.setDefaultPermissions(serverID: lobby, .defaultServer)
            let member = try await server.addUser(username: "member")
            try await server.join(userID: member.userID, serverID: lobby)
            let memberEveryone = try await server.http(
                .POST, path, token: member.token, json: #"{"content":"@everyone look"}"#)
            #expect(memberEveryone.json?["permission"] as? String == "MentionEveryone")
        }
    }

    @Test(
        "Roles: a member's roles override the server's default permissions in rank order; <%ROLE> is kept when the server has it and needs MentionRoles"
    )
    func roles() async throws {
        try await withServer { server throws in
            let world = try await World.make(server)
            let lobby = server.lobbyServerID
            let path = "/channels/\(server.lobbyChannelID)/messages"
            let pinged = try await server.addRole(serverID: lobby, StoatRole(name: "pinged", rank: 2))
            let roleUpdate = try #require(try await world.memberSocket.nextEvent("ServerRoleUpdate"))
            #expect(roleUpdate["role_id"] as? String == pinged)
            #expect((roleUpdate["data"] as? [String: Any])?["name"] as? String == "pinged")
            try await server.setMemberRoles(serverID: lobby, userID: world.member.userID, roles: [pinged])
            let memberUpdate = try #require(try await world.memberSocket.nextEvent("ServerMemberUpdate"))
            #expect((memberUpdate["data"] as? [String: Any])?["roles"] as? [String] == [pinged])
            #expect(await server.member(userID: world.member.userID, serverID: lobby)?.roles == [pinged])
            // The owner mentions the role (an unknown one is dropped); the member lacks MentionRoles.
            let unknown = "01J0000000000000000000NONE"
            let mention = try await server.http(
                .POST, path, token: world.owner.token, json: #"{"content":"<%\#(pinged)> and <%\#(unknown)>"}"#)
            #expect(mention.json?["role_mentions"] as? [String] == [pinged])
            let memberMention = try await server.http(
                .POST, path, token: world.member.token, json: #"{"content":"<%\#(pinged)>"}"#)
            #expect(memberMention.json?["permission"] as? String == "MentionRoles")
            // A higher role (lower rank) that allows it, applied last: the member may.
            let speaker = try await server.addRole(
                serverID: lobby, StoatRole(name: "speaker", permissions: StoatOverride(allow: .mentionRoles), rank: 1))
            try await server.setMemberRoles(serverID: lobby, userID: world.member.userID, roles: [pinged, speaker])
            let allowed = try await server.http(
                .POST, path, token: world.member.token, json: #"{"content":"<%\#(pinged)>"}"#)
            #expect(allowed.json?["role_mentions"] as? [String] == [pinged])
            // The server lists its roles, by id.
            let fetched = try await server.http(.GET, "/servers/\(lobby)", token: world.member.token)
            let roles = try #require(fetched.json?["roles"] as? [String: Any])
            #expect(Set(roles.keys) == [pinged, speaker])
            await world.close()
        }
    }

    @Test(
        "@everyone adds a mention to every member's read state (pushd's mass mention), the author's too; a role mention, @online and a silent message add none"
    )
    func massMentionsInReadState() async throws {
        try await withServer { server throws in
            let world = try await World.make(server)
            let lobby = server.lobbyServerID
            let channel = server.lobbyChannelID
            let role = try await server.addRole(serverID: lobby, StoatRole(name: "pinged"))
            try await server.setMemberRoles(serverID: lobby, userID: world.member.userID, roles: [role])
            func mentions(_ userID: String) async -> [String] {
                await server.unreads(userID: userID).first { $0.channel == channel }?.mentions ?? []
            }
            _ = try await server.postMessage(as: world.owner.userID, in: channel, content: "<%\(role)> and @online")
            #expect(await mentions(world.member.userID).isEmpty)
            let everyone = try await server.postMessage(as: world.owner.userID, in: channel, content: "@everyone")
            #expect(await mentions(world.member.userID) == [everyone.id])
            #expect(await mentions(world.owner.userID) == [everyone.id])
            #expect(await mentions(world.stranger.userID).isEmpty, "not a member")
            await world.close()
        }
    }

    @Test(
        "A channel's default permissions override its server's: SendMessage without ReadMessageHistory sends, and reads nothing back"
    )
    func sendWithoutHistory() async throws {
        try await withServer { server throws in
            let member = try await server.addUser(username: "member")
            try await server.join(userID: member.userID, serverID: server.lobbyServerID)
            let drop = try await server.addTextChannel(serverID: server.lobbyServerID, name: "drop box")
            let watcher = try await server.connectReady(token: member.token)
            try await server.setChannelDefaultPermissions(
                channelID: drop.id, StoatOverride(deny: .readMessageHistory))
            let update = try #require(try await watcher.nextEvent("ChannelUpdate"))
            let override = (update["data"] as? [String: Any])?["default_permissions"] as? [String: Any]
            #expect(override?["d"] as? Int == Int(StoatPermission.readMessageHistory.rawValue))
            let path = "/channels/\(drop.id)/messages"
            let sent = try await server.http(.POST, path, token: member.token, json: #"{"content":"in the box"}"#)
            #expect(sent.status == 200)
            let read = try await server.http(.GET, "\(path)?limit=5", token: member.token)
            #expect(read.status == 403)
            #expect(read.json?["permission"] as? String == "ReadMessageHistory")
            // The owner is above it; removing the override lets the member read again.
            #expect(try await server.http(.GET, "\(path)?limit=5", token: server.defaultAccount.token).status == 200)
            try await server.setChannelDefaultPermissions(channelID: drop.id, nil)
            #expect(try await server.http(.GET, "\(path)?limit=5", token: member.token).status == 200)
            await watcher.close()
        }
    }

    @Test(
        "An ack sets last_id unconditionally (an older id moves it back); ChannelAck goes out before the write, so a failed write still announced it"
    )
    func acks() async throws {
        try await withServer { server throws in
            let world = try await World.make(server)
            let channel = server.lobbyChannelID
            let first = try await server.postMessage(as: world.owner.userID, in: channel, content: "first")
            let second = try await server.postMessage(as: world.owner.userID, in: channel, content: "second")
            func lastID() async -> String? {
                await server.unreads(userID: world.member.userID).first { $0.channel == channel }?.lastID
            }
            let path = "/channels/\(channel)/ack"
            #expect(try await server.http(.PUT, "\(path)/\(second.id)", token: world.member.token).status == 204)
            #expect(await lastID() == second.id)
            #expect(try await server.http(.PUT, "\(path)/\(first.id)", token: world.member.token).status == 204)
            #expect(await lastID() == first.id, "moved back, as MongoDB's $set does")
            await server.failNextAckWrites(1)
            let failed = try await server.http(.PUT, "\(path)/\(second.id)", token: world.member.token)
            #expect(failed.status == 500)
            #expect(failed.errorType == "InternalError")
            var announced: [String: Any]?
            while announced?["message_id"] as? String != second.id {
                announced = try await world.memberSocket.nextEvent("ChannelAck")
                guard announced != nil else { break }
            }
            #expect(await lastID() == first.id, "the write never happened")
            await world.close()
        }
    }
}
