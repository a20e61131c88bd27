import Foundation
import LifelineCore
import StoatReferenceServer
import Testing

@testable import LifelineStoat

@Suite("A channel's model keeps what scrolling loaded while it is shown", .serialized, .hangBound)
@MainActor
struct ChannelModelShownHistoryTests {
    @Test("older pages stay shown past the cache's bound; their deletions and the catch-up's count follow")
    func shownHistory() async throws {
        let world = try await CatchUpWorld(historyLimit: 5)
        var posted: [StoatMessage] = []
        for index in 0..<12 { posted.append(try await world.post("m\(index)", in: world.random)) }
        let app = StoatClientModel(client: world.client)
        let channel = app.channel(world.random)
        let running = Task { await channel.run() }
        await world.connect()
        await until { channel.messages.count == 5 && !channel.isStale }
        #expect(channel.messages.map(\.id) == posted.suffix(5).map(\.id))

        await channel.loadOlder()
        #expect(channel.messages.map(\.id) == posted.map(\.id))
        #expect(channel.reachedStart)
        #expect(world.client.cachedHistory(of: world.random).messages.count == 5)

        // New messages push the cache's bound up; the pages loaded stay on screen.
        var newer: [StoatMessage] = []
        for index in 0..<3 { newer.append(try await world.post("new \(index)", in: world.random)) }
        await until { channel.messages.last?.id == newer.last?.id }
        #expect(channel.messages.map(\.id) == (posted + newer).map(\.id))

        // A message far below the cache's range is deleted: it leaves the screen too.
        try await world.server.deleteMessage(id: posted[1].id)
        await until { !channel.messages.contains { $0.id == posted[1].id } }
        #expect(channel.messages.count == posted.count + newer.count - 1)

        // After a reconnect the channel's model says what its catch-up found here.
        await until { channel.lastCatchUp != nil }
        #expect(channel.lastCatchUp?.messages == 0)
        let first = channel.lastCatchUp
        let disconnected = try await world.dropped()
        let missed = try await world.post("missed", in: world.random)
        _ = try await world.reconnect(after: disconnected)
        await until { channel.lastCatchUp != first }
        #expect(channel.lastCatchUp == ChatCatchUp(messages: 1, oldestFound: missed.id))
        running.cancel()
        await world.stop()
    }

    @Test("a server's name and the user's read marker are the client's to give")
    func serverAndReadMarker() async throws {
        let world = try await CatchUpWorld()
        await world.connect()
        #expect(world.client.server(world.server.lobbyServerID)?.name == "Lifeline Lobby")
        #expect(world.client.server("NO-SUCH-SERVER") == nil)
        let message = try await world.post("read me", in: world.random)
        await world.streamed(1) { $0.id == message.id }
        #expect(world.client.lastRead(in: world.random) != message.id)
        try world.client.ack(channel: world.random, message: message.id)
        #expect(world.client.lastRead(in: world.random) == message.id)
        await world.stop()
    }
}
