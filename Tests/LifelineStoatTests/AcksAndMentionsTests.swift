import Foundation
import Lifeline
import LifelineCore
import LifelineTesting
import StoatReferenceServer
import Testing

@testable import LifelineStoat

/// Acknowledgements as stoatchat takes them (`$set last_id` unconditionally, `ChannelAck` before the write) and
/// mentions counted live, against the reference server, on the client's test clock.
@Suite("Acks and mentions against the reference server", .hangBound)
struct AcksAndMentionsTests {
    static let ackRoute = "PUT /channels/{id}/ack/{id}"

    func chat(_ world: CatchUpWorld, _ id: String) -> Chat? {
        world.client.chats.first { $0.id == id }
    }

    /// Posts `count` messages as the friend in `channel` and waits for the client to receive them.
    func posted(_ world: CatchUpWorld, _ count: Int, in channel: String) async throws -> [StoatMessage] {
        var messages: [StoatMessage] = []
        for index in 0..<count { messages.append(try await world.post("m\(index)", in: channel)) }
        let last = try #require(messages.last)
        await world.streamed(1) { $0.id == last.id }
        return messages
    }

    /// Waits until the server's read state of `channel` is `id`.
    func serverRead(_ world: CatchUpWorld, _ channel: String, is id: String) async {
        await waitUntil {
            await world.server.unreads(userID: world.account.userID).first { $0.channel == channel }?.lastID == id
        }
    }

    func ackRequests(_ world: CatchUpWorld) async -> Int {
        await world.server.requestCounts()[Self.ackRoute] ?? 0
    }

    @Test(
        "An ack marks the chat read at once and returns; one request goes 1.5 s after the last ask with the newest id, 4 s after the first at the latest"
    )
    func coalesced() async throws {
        let world = try await CatchUpWorld()
        await world.connect()
        let first = try await posted(world, 3, in: world.dm)
        #expect(chat(world, world.dm)?.isUnread == true)
        await world.server.resetRequestCounts()
        let start = world.clock.now
        try world.client.ack(channel: world.dm, message: first[0].id)
        try world.client.ack(channel: world.dm, message: first[2].id)
        try world.client.ack(channel: world.dm, message: first[1].id)
        // Read at once, before any request.
        #expect(chat(world, world.dm)?.isUnread == false)
        #expect(chat(world, world.dm)?.mentionCount == 0)
        let due = start.advanced(by: .milliseconds(1500))
        await world.clock.waitForSleep(until: due)
        world.clock.advance(to: due)
        await serverRead(world, world.dm, is: first[2].id)
        #expect(await ackRequests(world) == 1)

        // An ask every second: each pushes the request back, until 4 s after the first ask.
        let more = try await posted(world, 4, in: world.dm)
        let asked = world.clock.now
        for (index, message) in more.enumerated() {
            world.clock.advance(to: asked.advanced(by: .seconds(index)))
            try world.client.ack(channel: world.dm, message: message.id)
        }
        let cap = asked.advanced(by: .seconds(4))
        await world.clock.waitForSleep(until: cap)
        world.clock.advance(to: cap)
        await serverRead(world, world.dm, is: more[3].id)
        #expect(await ackRequests(world) == 2, "one request for the four asks")
        await world.stop()
    }

    @Test(
        "Never an older id than the marker: an ack below what another device acknowledged sends nothing, and a newer one goes alone"
    )
    func neverBackwards() async throws {
        let world = try await CatchUpWorld()
        await world.connect()
        let messages = try await posted(world, 3, in: world.dm)
        // Another device reads up to the second message: ChannelAck reaches this client.
        try await world.server.acknowledge(as: world.account.userID, channelID: world.dm, messageID: messages[1].id)
        _ = await world.client.chatUpdates.first { chats in chats.first { $0.id == world.dm }?.mentionCount == 1 }
        await world.server.resetRequestCounts()
        let start = world.clock.now
        try world.client.ack(channel: world.dm, message: messages[0].id)
        world.clock.advance(to: start.advanced(by: .seconds(1)))
        try world.client.ack(channel: world.dm, message: messages[2].id)
        let due = start.advanced(by: .milliseconds(2500))
        await world.clock.waitForSleep(until: due)
        world.clock.advance(to: due)
        await serverRead(world, world.dm, is: messages[2].id)
        #expect(await ackRequests(world) == 1, "the older id was never sent")
        await world.stop()
    }

    @Test(
        "A refused ack is undone: the server announced it (ChannelAck) and failed its write (500): the chat is unread again, as on the server"
    )
    func refusedUndone() async throws {
        let world = try await CatchUpWorld()
        await world.connect()
        let before = try await posted(world, 1, in: world.dm)
        try await world.server.acknowledge(as: world.account.userID, channelID: world.dm, messageID: before[0].id)
        _ = await world.client.chatUpdates.first { chats in chats.first { $0.id == world.dm }?.isUnread == false }
        let unread = try await posted(world, 2, in: world.dm)
        #expect(chat(world, world.dm)?.mentionCount == 2)
        await world.server.failNextAckWrites(1)
        let start = world.clock.now
        try world.client.ack(channel: world.dm, message: unread[1].id)
        #expect(chat(world, world.dm)?.isUnread == false)
        let due = start.advanced(by: .milliseconds(1500))
        await world.clock.waitForSleep(until: due)
        world.clock.advance(to: due)
        // The ChannelAck came (the client shows it read, as it did), then the 500: back to unread, mentions and all.
        let undone = await world.client.chatUpdates.first { chats in
            chats.first { $0.id == world.dm }?.isUnread == true
        }
        #expect(undone?.first { $0.id == world.dm }?.mentionCount == 2)
        #expect(
            await world.server.unreads(userID: world.account.userID).first { $0.channel == world.dm }?.lastID
                == before[0].id)
        await world.stop()
    }

    @Test(
        "Mass and role mentions count live: @everyone, @online and a role the user holds; another role and a silent message do not"
    )
    func massAndRoleMentions() async throws {
        let world = try await CatchUpWorld()
        let server = world.server
        let lobby = server.lobbyServerID
        try await server.setDefaultPermissions(
            serverID: lobby, StoatPermission.defaultServer.union([.mentionEveryone, .mentionRoles]))
        let held = try await server.addRole(serverID: lobby, StoatRole(name: "held"))
        let other = try await server.addRole(serverID: lobby, StoatRole(name: "other"))
        await world.connect()
        // The role is given while connected: the client learns it from ServerMemberUpdate.
        try await server.setMemberRoles(serverID: lobby, userID: world.account.userID, roles: [held])
        _ = await world.client.memberUpdates(of: lobby).first { list in
            list.members.first { $0.id.user == world.account.userID }?.roles == [held]
        }
        let friendAPI = StoatAPI(baseURL: server.apiURL, httpClient: world.http)
        let friend = SessionCredentials(token: world.friend.token, userID: world.friend.userID)
        func post(_ content: String, flags: MessageFlags? = nil) async throws {
            let message = try await friendAPI.sendMessage(
                OutgoingMessage(content: content, flags: flags), in: world.general, friend)
            await world.streamed(1) { $0.id == message.id }
        }
        try await post("@everyone hello")
        #expect(chat(world, world.general)?.mentionCount == 1)
        try await post("@online, anyone?")
        #expect(chat(world, world.general)?.mentionCount == 2)
        try await post("<%\(held)> this is you")
        #expect(chat(world, world.general)?.mentionCount == 3)
        try await post("<%\(other)> not you")
        try await post("@everyone shh", flags: .suppressNotifications)
        #expect(chat(world, world.general)?.mentionCount == 3)
        // After a reconnect the server's read state (which has only the @everyone) adds nothing twice.
        let disconnected = try await world.dropped()
        _ = try await world.reconnect(after: disconnected)
        #expect(chat(world, world.general)?.mentionCount == 3)
        await world.stop()
    }

    @Test("A silent message is MessageFlags.suppressNotifications, the value 2: no mention, even in a direct message")
    func silentFlag() async throws {
        let world = try await CatchUpWorld()
        await world.connect()
        let friendAPI = StoatAPI(baseURL: world.server.apiURL, httpClient: world.http)
        let friend = SessionCredentials(token: world.friend.token, userID: world.friend.userID)
        let silent = try await friendAPI.sendMessage(
            OutgoingMessage(content: "psst", flags: .suppressNotifications), in: world.dm, friend)
        #expect(silent.flags == .suppressNotifications)
        #expect(silent.flags.rawValue == 2)
        await world.streamed(1) { $0.id == silent.id }
        #expect(chat(world, world.dm)?.isUnread == true)
        #expect(chat(world, world.dm)?.mentionCount == 0)
        let stored = await world.server.unreads(userID: world.account.userID).first { $0.channel == world.dm }
        #expect(stored?.mentions.isEmpty ?? true, "the server counted no mention either")
        await world.stop()
    }
}
