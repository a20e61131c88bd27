import Foundation
import LifelineCore
import StoatReferenceServer
import Testing

@testable import LifelineStoat

@Suite("Jumping to a message and to the first unread, against the reference server", .serialized, .hangBound)
@MainActor
struct JumpTests {
    /// The first consecutive pair of messages shown with a message of the server between them that no recorded
    /// gap covers — a silent hole — if any.
    static func silentHole(in channel: ChannelModel, server ids: [String]) -> String? {
        let shown = channel.messages.map(\.id)
        for (lower, upper) in zip(shown, shown.dropFirst()) {
            for id in ids where lower < id && id < upper {
                if !channel.gaps.contains(where: { $0.contains(id) }) {
                    return "\(id) missing between \(lower) and \(upper)"
                }
            }
        }
        return nil
    }

    @Test(
        "a jump to an old message is an island with a gap above it; a live message lands above the gap; scrolling down fills it with no silent hole"
    )
    func jumpAndScrollDown() async throws {
        let world = try await CatchUpWorld(historyLimit: 10)
        var posted: [StoatMessage] = []
        for index in 0..<120 { posted.append(try await world.post("m\(index)", in: world.random)) }
        let app = StoatClientModel(client: world.client)
        let channel = app.channel(world.random)
        let running = Task { await channel.run() }
        await world.connect()
        await until { channel.messages.count == 10 && !channel.isStale }
        let floor = posted[110].id

        // Jump to an old message (a pinned one, a reply): the page around it, 26 from it on and all 5 before.
        await channel.jump(to: posted[5].id)
        #expect(channel.lastError == nil)
        let island = try #require(channel.island)
        #expect(island.target == posted[5].id)
        #expect(island.first == posted[0].id)
        #expect(island.last == posted[30].id)
        #expect(island.gapBelow == nil)
        #expect(island.gapAbove == HistoryGap(after: posted[30].id, before: floor))
        #expect(channel.reachedStart)
        #expect(Self.silentHole(in: channel, server: posted.map(\.id)) == nil)

        // A message arrives while the island is shown: it joins the newest messages, above the gap.
        let live = try await world.post("live", in: world.random)
        await until { channel.messages.last?.id == live.id }
        #expect(channel.island == island)
        #expect(channel.gaps == [HistoryGap(after: posted[30].id, before: floor)])
        let all = posted.map(\.id) + [live.id]

        // Scrolling down from the island: each page joins it, the gap shrinks, never a silent hole.
        var pages = 0
        while channel.island != nil, pages < 10 {
            await channel.loadNewer()
            #expect(channel.lastError == nil)
            pages += 1
            #expect(Self.silentHole(in: channel, server: all) == nil)
        }
        #expect(channel.island == nil)
        #expect(channel.gaps.isEmpty)
        #expect(channel.messages.map(\.id) == all)
        // The cache's bound is the store's: the pages stay shown, the cache keeps its newest ten.
        #expect(world.client.cachedHistory(of: world.random).messages.count == 10)
        running.cancel()
        await world.stop()
    }

    @Test(
        "the first unread is after the read marker; a chat never read starts at its first message; none unread is the newest"
    )
    func firstUnread() async throws {
        let world = try await CatchUpWorld(historyLimit: 10)
        var posted: [StoatMessage] = []
        for index in 0..<60 { posted.append(try await world.post("m\(index)", in: world.random)) }
        let app = StoatClientModel(client: world.client)
        let channel = app.channel(world.random)
        let running = Task { await channel.run() }
        await world.connect()
        await until { channel.messages.count == 10 && !channel.isStale }

        // Never read: unread from the channel's first message.
        #expect(world.client.lastRead(in: world.random) == nil)
        await channel.jumpToFirstUnread()
        #expect(channel.firstUnread == posted[0].id)
        #expect(channel.messages.first?.id == posted[0].id)

        // Read up to m20: the first unread is m21, shown, with the page around it.
        try world.client.ack(channel: world.random, message: posted[20].id)
        let page = try await world.client.historyAtFirstUnread(of: world.random)
        #expect(page.target == posted[21].id)
        #expect(page.messages.map(\.id) == posted[0...45].map(\.id))
        await channel.jumpToFirstUnread()
        #expect(channel.firstUnread == posted[21].id)
        #expect(channel.messages.contains { $0.id == posted[21].id })
        #expect(Self.silentHole(in: channel, server: posted.map(\.id)) == nil)

        // Everything read: no first unread; the page is the newest messages, joined to the rest.
        try world.client.ack(channel: world.random, message: posted[59].id)
        await channel.jumpToFirstUnread()
        #expect(channel.firstUnread == nil)
        #expect(channel.messages.last?.id == posted[59].id)
        running.cancel()
        await world.stop()
    }

    @Test(
        "a jump's messages inside the cache's gap join the cache, fill the gap and reach the message stream as caught up"
    )
    func jumpFillsTheCachesGap() async throws {
        let world = try await CatchUpWorld(
            catchUp: CatchUpPolicy(pagesPerChat: 2, pageSize: 5, verifiedMessages: 0, firstScreen: 0))
        await world.connect()
        let first = try await world.post("seen", in: world.random)
        await world.streamed(1) { $0.id == first.id }
        let disconnected = try await world.dropped()
        var missed: [StoatMessage] = []
        for index in 1...20 { missed.append(try await world.post("\(index)", in: world.random)) }
        _ = try await world.reconnect(after: disconnected)
        #expect(
            world.client.cachedHistory(of: world.random).gaps == [
                HistoryGap(after: missed[9].id, before: missed[15].id)
            ])

        // The page around m12 (5 from it on, 5 before) covers the gap whole.
        let page = try await world.client.history(of: world.random, around: missed[12].id, limit: 8)
        #expect(page.messages.map(\.id) == missed[7...16].map(\.id))
        #expect(page.target == missed[12].id)
        #expect(page.from == ULID.predecessor(of: missed[7].id))
        #expect(page.through == missed[16].id)
        let history = world.client.cachedHistory(of: world.random)
        #expect(history.gaps.isEmpty)
        #expect(history.messages.suffix(20).map(\.id) == missed.map(\.id))
        await world.streamed(20) { if case .received(_, .caughtUp) = $0 { true } else { false } }
        let all = world.received.filter { $0.origin == .caughtUp }.map(\.id)
        #expect(all.count == 20)
        #expect(Set(all) == Set(missed.map(\.id)))
        await world.stop()
    }
}
