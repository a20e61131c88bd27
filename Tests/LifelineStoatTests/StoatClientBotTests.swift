import Foundation
import Lifeline
import LifelineCore
import LifelineTesting
import StoatReferenceServer
import Testing

@testable import LifelineStoat

@Suite("The users fetched to name authors, bounded")
struct UserDirectoryTests {
    static func user(_ id: String) -> User { User(id: id, username: "user-\(id)", discriminator: "0001") }

    @Test("Past its capacity the directory forgets the user named least recently")
    func forgetsTheLeastRecentlyNamed() {
        var directory = UserDirectory(capacity: 2)
        directory.keep(Self.user("a"))
        directory.keep(Self.user("b"))
        #expect(directory.user("a")?.username == "user-a")  // a is now the most recently named
        directory.keep(Self.user("c"))
        #expect(directory.count == 2)
        #expect(directory.user("b") == nil)
        #expect(directory.user("a") != nil)
        #expect(directory.user("c") != nil)
    }

    @Test("Keeping a user again replaces it without growing the directory")
    func keepingAgainReplaces() {
        var directory = UserDirectory(capacity: 2)
        directory.keep(Self.user("a"))
        directory.keep(User(id: "a", username: "renamed", discriminator: "0001"))
        directory.keep(Self.user("b"))
        #expect(directory.count == 2)
        #expect(directory.user("a")?.username == "renamed")
    }
}

@Suite("The bot-sized surface of StoatClient, against the reference server", .hangBound)
struct StoatClientBotTests {
    @Test("Authors unknown to the cache are fetched once however many ask, kept, and forgotten past the limit")
    func authorsFetchedOnceAndBounded() async throws {
        let server = try await ReferenceServer.start()
        let world = try await CatchUpWorld(server: server, fetchedUserLimit: 1)
        await world.connect()
        // Members of the lobby who joined after Ready: the user may see them (stoatchat's `Access`), the cache does not.
        let strangers = [
            try await server.addUser(username: "stranger"), try await server.addUser(username: "passer-by"),
        ]
        for stranger in strangers { try await server.join(userID: stranger.userID, serverID: server.lobbyServerID) }
        #expect(world.client.user(strangers[0].userID) == nil)
        await server.resetRequestCounts()
        let client = world.client
        let names = await withTaskGroup(of: String.self) { group in
            for _ in 0..<5 { group.addTask { (try? await client.fetchUser(strangers[0].userID))?.username ?? "" } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(names == Array(repeating: "stranger", count: 5))
        #expect(await server.requestCounts()["GET /users/{id}"] == 1)
        #expect(try await client.fetchUser(strangers[0].userID).username == "stranger")
        #expect(await server.requestCounts()["GET /users/{id}"] == 1)
        // A limit of one: the second stranger pushes the first out, which is fetched again.
        #expect(try await client.fetchUser(strangers[1].userID).username == "passer-by")
        #expect(try await client.fetchUser(strangers[0].userID).username == "stranger")
        #expect(await server.requestCounts()["GET /users/{id}"] == 3)
        await world.stop(keepingServer: true)
        await server.stop()
    }

    @Test("An author's name: masquerade first, then the user's display name or username, else the id")
    func authorNames() async throws {
        let world = try await CatchUpWorld()
        await world.connect()
        let stranger = try await world.server.addUser(username: "stranger")
        try await world.server.join(userID: stranger.userID, serverID: world.server.lobbyServerID)
        try await world.server.setDisplayName(userID: stranger.userID, displayName: "Stranger Danger")
        var message = Message(id: "01J0000000000000000000000A", channel: world.general, author: stranger.userID)
        #expect(await world.client.authorName(of: message) == "Stranger Danger")
        message.masquerade = Message.Masquerade(name: "Masked")
        #expect(await world.client.authorName(of: message) == "Masked")
        let unknown = Message(
            id: "01J0000000000000000000000B", channel: world.general, author: "01J00000000000000000NOBODY")
        #expect(await world.client.authorName(of: unknown) == "01J00000000000000000NOBODY")
        await world.stop()
    }

    @Test("reply and send queue text in the outbox; the reply names the message it answers")
    func replyAndSend() async throws {
        let world = try await CatchUpWorld()
        await world.connect()
        let ping = try await world.post("!ping", in: world.general)
        let pingMessage = try #require(
            await world.streamed(1) { $0.id == ping.id }.first.flatMap {
                if case .received(let message, _) = $0 { message } else { nil }
            })
        let reply = try await world.client.reply(to: pingMessage, with: "pong", mention: true)
        let plain = try await world.client.send("plain", to: world.general)
        #expect(reply.message.replies == [OutgoingMessage.Reply(id: ping.id, mention: true)])
        #expect(reply.message.content == "pong")
        #expect(plain.message.content == "plain" && plain.message.replies == nil)
        guard case .sent(let sentID) = await world.client.delivery(of: reply.nonce) else {
            Issue.record("the reply was not sent")
            return
        }
        let stored = await world.streamed(1) { $0.id == sentID }
        if case .received(let message, _) = stored.first { #expect(message.replies == [ping.id]) }
        await world.stop()
    }

    @Test("The session's common actions are the client's: reconnect now from DISCONNECTED, log out to READY")
    func sessionActions() async throws {
        let world = try await CatchUpWorld()
        await world.connect()
        #expect(world.client.snapshot.state == .connected)
        _ = try await world.dropped()
        #expect(await world.client.reconnectNow())  // no clock advanced: the retry timer never fires
        #expect(await world.recorder.next(.connected) != nil)
        #expect(await world.client.logOut())
        #expect(await world.recorder.next(.ready) != nil)
        #expect(await world.client.reconnectNow() == false)
        await world.stop()
    }
}
