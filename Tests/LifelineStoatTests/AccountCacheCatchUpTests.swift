import Foundation
import Testing

@testable import LifelineStoat

/// The account cache's catch-up bookkeeping, read states, gaps and `Ready` field selection, as stories.
@Suite("The account cache: catch-up, read states, gaps, Ready's fields")
struct AccountCacheCatchUpTests {
    let world = World()

    /// A cache with `world.ready` applied that catches up, its general channel holding `times` (seconds).
    func cache(general times: [Int64] = [], limit: Int = 100) -> AccountCache {
        var cache = AccountCache(historyLimit: limit, tracksCatchUp: true)
        _ = cache.ready(world.ready)
        for time in times { _ = cache.apply(.message(world.message(time * 1_000, in: world.general, "\(time)"))) }
        return cache
    }

    func received(_ changes: AccountCache.Changes) -> [String] {
        changes.messageEvents.compactMap { event in
            if case .received(let message, _) = event { return message.content }
            return nil
        }
    }

    @Test("A filtered Ready (bonfire leaves the rest out) keeps the servers, chats and histories it did not ask for")
    func filteredReadyKeepsChats() {
        var full = cache(general: [10])
        #expect(full.chats.count == 4)
        var filtered = AccountCache(readyFields: ReadyFields(asked: ["users"]))
        _ = filtered.ready(world.ready)
        #expect(filtered.chats.isEmpty)  // channels were not asked for: nothing to take
        // The same client reconnecting with a Ready of users only: everything stays.
        full = AccountCache(readyFields: ReadyFields(asked: ["users", "channel_unreads"]), tracksCatchUp: true)
        _ = full.loadStored(chats: [Chat(id: world.general, kind: .textChannel, name: "general", lastActivity: .now)])
        _ = full.ready(Ready(users: [world.me]))
        #expect(full.chats[world.general] != nil)
        #expect(full.userID == world.me.id)
    }

    @Test("The new gateway's empty lists for fields not asked for, and its channel_unreads [], change nothing")
    func gatewayEmptyLists() {
        var cache = cache(general: [10])
        let before = (cache.chats, cache.servers, cache.history(world.general))
        var asked = AccountCache(readyFields: ReadyFields(asked: ["users"]), tracksCatchUp: true)
        _ = asked.ready(world.ready)
        // Not asked for: read states stay unknown (unread as Stoat shows it), never "all read".
        _ = cache.ready(Ready(users: world.ready.users, servers: world.ready.servers, channels: world.ready.channels))
        #expect(cache.chats[world.general]?.isUnread == true)
        #expect(cache.chats.keys.sorted() == before.0.keys.sorted())
        #expect(cache.servers == before.1)
        #expect(cache.history(world.general).messages == before.2.messages)
        // channel_unreads: [] from a server that was not asked for it (the gateway always sends it).
        _ = cache.ready(world.ready)
        #expect(cache.chats[world.general]?.isUnread == true)
        #expect(!cache.readyGaveUnreads)
    }

    @Test(
        "Read states: unread until acknowledged, here or elsewhere; mentions counted, dropped up to the ack; own messages read"
    )
    func readStates() {
        var cache = cache(general: [10])
        #expect(cache.chats[world.general]?.isUnread == true)
        #expect(cache.chats[world.notes]?.isUnread == false)
        // GET /sync/unreads: read up to 10.
        cache.unreadsFetched([
            ChannelUnread(id: .init(channel: world.general, user: world.me.id), lastID: Ids.ulid(10_000))
        ])
        #expect(cache.chats[world.general]?.isUnread == false)
        // The friend mentions me, then writes without: unread, one mention.
        var mention = world.message(20_000, in: world.general, "hey")
        mention.mentions = [world.me.id]
        _ = cache.apply(.message(mention))
        _ = cache.apply(.message(world.message(30_000, in: world.general, "more")))
        #expect(cache.chats[world.general]?.isUnread == true)
        #expect(cache.chats[world.general]?.mentionCount == 1)
        // Another device acknowledges up to the mention: still unread (30), no mention left.
        let ack = cache.apply(.channelAck(channel: world.general, user: world.me.id, messageID: mention.id))
        #expect(ack.chats)
        #expect(cache.chats[world.general]?.mentionCount == 0)
        #expect(cache.chats[world.general]?.isUnread == true)
        // An ack of another user changes nothing; the marker never moves back.
        _ = cache.apply(.channelAck(channel: world.general, user: world.friend.id, messageID: Ids.ulid(40_000)))
        #expect(cache.chats[world.general]?.isUnread == true)
        cache.unreadsFetched([ChannelUnread(id: .init(channel: world.general, user: world.me.id), lastID: Ids.ulid(1))])
        #expect(cache.readStates[world.general]?.lastRead == mention.id)
        // My own last message is read.
        _ = cache.apply(.message(Message(id: Ids.ulid(50_000), channel: world.general, author: world.me.id)))
        #expect(cache.chats[world.general]?.isUnread == false)
        // In the DM every message of the friend is a mention, unless silent (flags 2).
        _ = cache.apply(.message(world.message(60_000, in: world.dm, "psst")))
        var silent = world.message(61_000, in: world.dm, "shh")
        silent.flags = .suppressNotifications
        _ = cache.apply(.message(silent))
        #expect(cache.chats[world.dm]?.mentionCount == 1)
        #expect(cache.chatState(world.dm)?.readState.mentions == [Ids.ulid(60_000)])
    }

    @Test(
        "Catch-up delivers each message once: not again what the socket delivered meanwhile, nor what it already held")
    func eachMessageOnce() throws {
        var cache = cache(general: [10])
        _ = cache.invalidate()
        _ = cache.ready(world.readyWith(generalLast: Ids.ulid(40_000)))
        // Live, between Ready and the plan, and after it.
        let live = cache.apply(.message(world.message(35_000, in: world.general, "35")))
        #expect(received(live) == ["35"])
        var (plan, _) = cache.planCatchUp(open: [], policy: CatchUpPolicy(verifiedMessages: 0, firstScreen: 0))
        // General first (its live message is the newest activity); random, never held, gets its newest page.
        #expect(plan.order == [world.general, world.random])
        _ = cache.apply(.message(world.message(38_000, in: world.general, "38")))
        let request = plan.start(world.general, cachedIDs: cache.history(world.general).messages.map(\.id))
        #expect(request == .after(Ids.ulid(10_000), limit: 100))
        #expect(cache.catchUpCursors[world.general] == Ids.ulid(10_000))
        let page = [20, 30, 35, 38, 40].map { world.message(Int64($0) * 1_000, in: world.general, "\($0)") }
        let outcome = try plan.received(page, for: world.general)
        let token = cache.historyFetchStarted(channel: world.general)
        let changes = cache.applyCatchUp(outcome, fetch: token, generation: cache.generation)
        #expect(received(changes) == ["20", "30", "40"])
        #expect(changes.messageEvents.allSatisfy { if case .received(_, .caughtUp) = $0 { true } else { false } })
        #expect(cache.history(world.general).messages.map(\.content) == ["10", "20", "30", "35", "38", "40"])
        #expect(!cache.history(world.general).isStale)
        #expect(cache.catchUpCursors[world.general] == nil)
        #expect(cache.deliveredDuringCatchUp[world.general] == nil)
        // The same page again (a duplicate answer) delivers nothing.
        var again = cache
        let twice = again.applyCatchUp(outcome, fetch: nil, generation: again.generation)
        #expect(received(twice).isEmpty)
    }

    @Test(
        "Re-verification: a deleted cached message leaves with a caught-up deletion, an edited one is updated and reported"
    )
    func reVerification() throws {
        var cache = cache(general: [10, 20, 30])
        _ = cache.invalidate()
        _ = cache.ready(world.readyWith(generalLast: Ids.ulid(30_000)))
        var (plan, _) = cache.planCatchUp(open: [world.general], policy: .standard)
        _ = plan.start(world.general, cachedIDs: cache.history(world.general).messages.map(\.id))
        var edited = world.message(20_000, in: world.general, "twenty, edited")
        edited.edited = Date(timeIntervalSince1970: 25)
        let outcome = try plan.received([world.message(10_000, in: world.general, "10"), edited], for: world.general)
        let changes = cache.applyCatchUp(outcome, fetch: nil, generation: cache.generation)
        #expect(cache.history(world.general).messages.map(\.content) == ["10", "twenty, edited"])
        #expect(
            changes.messageEvents.contains(.deleted(id: Ids.ulid(30_000), channel: world.general, origin: .caughtUp)))
        let updates = changes.messageEvents.compactMap { event -> MessageChange? in
            if case .updated(let change) = event { return change }
            return nil
        }
        #expect(updates.map(\.content) == ["twenty, edited"])
        #expect(updates.first?.origin == .caughtUp)
        #expect(cache.chats[world.general]?.lastMessage?.id == edited.id)
    }

    @Test(
        "A chat Ready says has nothing newer (its last_message_id may lag) stays stale; its refetch delivers what was missed, once"
    )
    func laggingLastMessageID() {
        var cache = cache(general: [10])
        _ = cache.invalidate()
        // stoatchat wrote last_message_id before the message at 20 was posted: Ready still names 10.
        _ = cache.ready(world.readyWith(generalLast: Ids.ulid(10_000)))
        let (plan, _) = cache.planCatchUp(open: [], policy: CatchUpPolicy(firstScreen: 0))
        #expect(plan.wholeWithoutFetch.contains(world.general))
        #expect(cache.history(world.general).isStale)
        _ = cache.apply(.message(world.message(30_000, in: world.general, "30")))
        let page = [10, 20, 30].map { world.message(Int64($0) * 1_000, in: world.general, "\($0)") }
        let token = cache.historyFetchStarted(channel: world.general)
        let changes = cache.historyFetched(channel: world.general, page: page, fetch: token, limit: 100)
        #expect(received(changes) == ["20"])
        #expect(changes.messageEvents == [.received(page[1], origin: .caughtUp)])
        #expect(!cache.history(world.general).isStale)
    }

    @Test(
        "An open channel Ready says is empty (its last_message_id may lag) is still fetched: fresh after one page, with what it missed"
    )
    func openEmptyChannelIsFetched() throws {
        // A first sign-in (the cache never held the channel): its newest page.
        var first = AccountCache(tracksCatchUp: true)
        _ = first.ready(world.ready)
        var (plan, _) = first.planCatchUp(open: [world.general], policy: CatchUpPolicy(firstScreen: 0))
        #expect(plan.order.first == world.general)
        #expect(!plan.wholeWithoutFetch.contains(world.general))
        _ = first.apply(.message(world.message(30_000, in: world.general, "30")))
        #expect(first.history(world.general).isStale)
        #expect(plan.start(world.general, cachedIDs: []) == .latest(limit: 100))
        // Posted just before Ready, behind its last_message_id; and the live one (sort=Latest: newest first).
        let page = [20, 30].map { world.message(Int64($0) * 1_000, in: world.general, "\($0)") }
        var outcome = try plan.received(page.reversed(), for: world.general)
        #expect(outcome.isDone)
        var token = first.historyFetchStarted(channel: world.general)
        _ = first.applyCatchUp(outcome, fetch: token, generation: first.generation)
        #expect(first.history(world.general).messages.map(\.content) == ["20", "30"])
        #expect(!first.history(world.general).isStale)

        // A reconnect with the channel known empty: pages forward from its creation, and delivers what it missed.
        var cache = AccountCache(tracksCatchUp: true)
        _ = cache.ready(world.ready)
        _ = cache.invalidate()
        _ = cache.ready(world.ready)
        (plan, _) = cache.planCatchUp(open: [world.general], policy: CatchUpPolicy(firstScreen: 0))
        #expect(plan.order.first == world.general)
        _ = cache.apply(.message(world.message(30_000, in: world.general, "30")))
        #expect(cache.history(world.general).isStale)
        let floor = try #require(ULID.floor(of: world.general))
        #expect(plan.start(world.general, cachedIDs: []) == .after(floor, limit: 100))
        outcome = try plan.received(page, for: world.general)
        #expect(outcome.isDone)
        token = cache.historyFetchStarted(channel: world.general)
        let changes = cache.applyCatchUp(outcome, fetch: token, generation: cache.generation)
        #expect(received(changes) == ["20"])
        #expect(cache.history(world.general).messages.map(\.content) == ["20", "30"])
        #expect(!cache.history(world.general).isStale)

        // Empty on the server too: the empty page makes it fresh, and the next live message keeps it so.
        var empty = AccountCache(tracksCatchUp: true)
        _ = empty.ready(world.ready)
        (plan, _) = empty.planCatchUp(open: [world.general], policy: CatchUpPolicy(firstScreen: 0))
        #expect(plan.start(world.general, cachedIDs: []) == .latest(limit: 100))
        outcome = try plan.received([], for: world.general)
        token = empty.historyFetchStarted(channel: world.general)
        _ = empty.applyCatchUp(outcome, fetch: token, generation: empty.generation)
        #expect(!empty.history(world.general).isStale)
        _ = empty.apply(.message(world.message(40_000, in: world.general, "40")))
        #expect(empty.history(world.general).messages.map(\.content) == ["40"])
        #expect(!empty.history(world.general).isStale)

        // Not open and empty: known whole without a request, stale until opened (refetched then).
        var closed = AccountCache(tracksCatchUp: true)
        _ = closed.ready(world.ready)
        _ = closed.invalidate()
        _ = closed.ready(world.ready)
        let (unopened, _) = closed.planCatchUp(open: [], policy: CatchUpPolicy(firstScreen: 0))
        #expect(unopened.wholeWithoutFetch.contains(world.general))
        #expect(!unopened.order.contains(world.general))
    }

    @Test(
        "A client that knew no message: a message posted after Ready that a page brings before its live event is delivered once"
    )
    func firstRunPageBeforeLiveEvent() throws {
        // The catch-up's newest page of a chat the client never held.
        var cache = AccountCache(tracksCatchUp: true)
        _ = cache.ready(world.readyWith(generalLast: Ids.ulid(20_000)))
        var (plan, _) = cache.planCatchUp(open: [], policy: CatchUpPolicy(verifiedMessages: 0, firstScreen: 0))
        _ = plan.start(world.general, cachedIDs: [])
        let page = [10, 20, 30].map { world.message(Int64($0) * 1_000, in: world.general, "\($0)") }
        let outcome = try plan.received(page.reversed(), for: world.general)  // sort=Latest: newest first
        #expect(outcome.fromUnknownCursor)
        let token = cache.historyFetchStarted(channel: world.general)
        #expect(received(cache.applyCatchUp(outcome, fetch: token, generation: cache.generation)) == ["30"])
        #expect(received(cache.apply(.message(page[2]))).isEmpty)
        // The open channel's first fetch, the same way.
        var opened = AccountCache(tracksCatchUp: true)
        _ = opened.ready(world.readyWith(generalLast: Ids.ulid(20_000)))
        let fetch = opened.historyFetchStarted(channel: world.general)
        #expect(received(opened.historyFetched(channel: world.general, page: page, fetch: fetch, limit: 100)) == ["30"])
        #expect(received(opened.apply(.message(page[2]))).isEmpty)
    }

    @Test("A page of an earlier generation, or of a chat deleted meanwhile, changes nothing")
    func stalePages() throws {
        var cache = cache(general: [10])
        _ = cache.invalidate()
        _ = cache.ready(world.readyWith(generalLast: Ids.ulid(20_000)))
        var (plan, _) = cache.planCatchUp(open: [], policy: CatchUpPolicy(verifiedMessages: 0, firstScreen: 0))
        _ = plan.start(world.general, cachedIDs: [Ids.ulid(10_000)])
        let outcome = try plan.received([world.message(20_000, in: world.general, "20")], for: world.general)
        var reconnected = cache
        _ = reconnected.invalidate()
        #expect(reconnected.applyCatchUp(outcome, fetch: nil, generation: cache.generation).isEmpty)
        #expect(reconnected.history(world.general).messages.count == 1)
        _ = cache.apply(.channelDelete(id: world.general))
        #expect(cache.applyCatchUp(outcome, fetch: nil, generation: cache.generation).isEmpty)
        #expect(cache.catchUpCursors[world.general] == nil)
    }

    @Test("Gaps: recorded, shrunk by the pages that cover them, filled, and forgotten once below a full history")
    func gaps() {
        var cache = cache(general: [10, 90], limit: 4)
        let gap = HistoryGap(after: Ids.ulid(10_000), before: Ids.ulid(90_000))
        cache.addGap(gap, channel: world.general)
        #expect(cache.history(world.general).gaps == [gap])
        // A page before 90 that reaches 50: the gap keeps its lower part.
        cache.cover(world.general, from: Ids.ulid(49_999), through: ULID.predecessor(of: Ids.ulid(90_000)))
        #expect(
            cache.history(world.general).gaps == [
                HistoryGap(after: Ids.ulid(10_000), before: ULID.successor(of: Ids.ulid(49_999))!)
            ])
        // A forward page from 10 covering everything up to now fills it.
        cache.cover(world.general, from: Ids.ulid(10_000), through: nil)
        #expect(cache.history(world.general).gaps.isEmpty)
        // A gap below a full history's oldest message is older history, not a gap.
        cache.addGap(HistoryGap(after: Ids.ulid(1_000), before: Ids.ulid(5_000)), channel: world.general)
        for time in [91, 92, 93] as [Int64] {
            _ = cache.apply(.message(world.message(time * 1_000, in: world.general, "\(time)")))
        }
        #expect(cache.history(world.general).gaps.isEmpty)
        #expect(cache.chatState(world.general) == nil || cache.chatState(world.general)?.gaps.isEmpty == true)
    }

    @Test("Chat states go to the store and come back: markers, mentions, gaps, cursors")
    func storedStates() {
        var cache = cache(general: [10])
        cache.unreadsFetched([
            ChannelUnread(
                id: .init(channel: world.general, user: world.me.id), lastID: Ids.ulid(5_000),
                mentions: [Ids.ulid(10_000)])
        ])
        cache.addGap(HistoryGap(after: Ids.ulid(1_000), before: Ids.ulid(5_000)), channel: world.general)
        cache.catchUpCursors[world.general] = Ids.ulid(10_000)
        let batch = cache.batch(for: cache.takePending())
        let state = batch.chatStates.first(where: { $0.chatID == world.general })
        #expect(state != nil)
        #expect(state?.readState == ReadState(lastRead: Ids.ulid(5_000), mentions: [Ids.ulid(10_000)]))
        #expect(state?.catchUpCursor == Ids.ulid(10_000))
        var next = AccountCache(tracksCatchUp: true)
        _ = next.ready(world.ready)
        _ = next.loadStored(states: batch.chatStates)
        #expect(next.chats[world.general]?.mentionCount == 1)
        #expect(next.history(world.general).gaps.count == 1)
        #expect(next.catchUpCursors[world.general] == Ids.ulid(10_000))
    }
}

extension World {
    /// `ready` with general's `last_message_id` set.
    func readyWith(generalLast: String) -> Ready {
        var ready = self.ready
        if let index = ready.channels.firstIndex(where: { $0.id == general }) {
            ready.channels[index].lastMessageID = generalLast
        }
        return ready
    }
}
