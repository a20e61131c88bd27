import Foundation
import Testing

@testable import LifelineStoat

/// ULIDs at a given millisecond, so message order and chat activity are what a test says.
enum Ids {
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    /// A ULID whose time is `milliseconds` and whose random part is `suffix` (padded).
    static func ulid(_ milliseconds: Int64, _ suffix: Int = 0) -> String {
        var time = ""
        var value = milliseconds
        for _ in 0..<10 {
            time = String(alphabet[Int(value & 31)]) + time
            value >>= 5
        }
        var random = ""
        var rest = suffix
        for _ in 0..<16 {
            random = String(alphabet[rest & 31]) + random
            rest >>= 5
        }
        return time + random
    }
}

/// A small account: a server with two text channels and a voice channel, a DM, saved notes.
struct World {
    /// The viewer, marked as both of Stoat's events servers mark them.
    let me = User(id: Ids.ulid(1_000, 1), username: "me", discriminator: "0001", relationship: "User")
    let friend = User(id: Ids.ulid(1_000, 2), username: "friend", discriminator: "0002", displayName: "Friend")
    let server = Ids.ulid(2_000, 1)
    let general = Ids.ulid(3_000, 1)
    let random = Ids.ulid(3_000, 2)
    let voice = Ids.ulid(3_000, 3)
    let dm = Ids.ulid(3_000, 4)
    let notes = Ids.ulid(3_000, 5)

    var ready: Ready {
        Ready(
            users: [friend, me],
            servers: [Server(id: server, owner: me.id, name: "Lobby", channels: [general, random, voice])],
            channels: [
                Channel(id: general, kind: .textChannel, name: "general", server: server),
                Channel(id: random, kind: .textChannel, name: "random", server: server, lastMessageID: Ids.ulid(9_000)),
                Channel(id: voice, kind: .voiceChannel, name: "voice", server: server),
                Channel(id: dm, kind: .directMessage, recipients: [me.id, friend.id], active: true),
                Channel(id: notes, kind: .savedMessages, user: me.id),
            ],
            members: [Member(id: Member.ID(server: server, user: me.id))])
    }

    func message(_ time: Int64, in channel: String, _ text: String, suffix: Int = 0) -> Message {
        Message(id: Ids.ulid(time, suffix), channel: channel, author: friend.id, content: text)
    }
}

@Suite("The account cache's pure core")
struct AccountCacheTests {
    let world = World()

    @Test("A ULID's neighbours: predecessor and successor borrow and carry in base 32; the floor of its millisecond")
    func ulidNeighbours() {
        #expect(ULID.predecessor(of: Ids.ulid(5, 1)) == Ids.ulid(5, 0))
        #expect(ULID.predecessor(of: Ids.ulid(5, 0)) == String(Ids.ulid(4).prefix(10)) + "ZZZZZZZZZZZZZZZZ")
        #expect(ULID.successor(of: Ids.ulid(5, 31)) == Ids.ulid(5, 32))
        #expect(ULID.successor(of: Ids.ulid(5, 0).lowercased()) == Ids.ulid(5, 1))
        #expect(ULID.floor(of: Ids.ulid(5, 77)) == ULID.predecessor(of: Ids.ulid(5, 0)))
        #expect(ULID.predecessor(of: String(repeating: "0", count: 26)) == nil)
        #expect(ULID.successor(of: "7" + String(repeating: "Z", count: 25)) == nil)
        #expect(ULID.predecessor(of: "GENERAL0N9FRY2326EBBV7HH3G") == nil)
        #expect(ULID.floor(of: "short") == nil)
    }

    @Test("ULIDs give their time, in any case, and anything else gives nil")
    func ulidTime() {
        #expect(ULID.milliseconds(of: Ids.ulid(1_700_000_000_123)) == 1_700_000_000_123)
        #expect(ULID.milliseconds(of: Ids.ulid(42).lowercased()) == 42)
        #expect(ULID.milliseconds(of: "01HZZZZZZZZZZZZZZZZZZZZZZ") == nil)  // 25 characters
        #expect(ULID.milliseconds(of: "8ZZZZZZZZZZZZZZZZZZZZZZZZZ") == nil)  // beyond 48 bits
        #expect(ULID.milliseconds(of: "01HU!ZZZZZZZZZZZZZZZZZZZZZ") == nil)
        #expect(ULID.date(of: Ids.ulid(2_000)) == Date(timeIntervalSince1970: 2))
    }

    @Test(
        "Ready makes the chats: text channels, the DM under the friend's name, saved notes; no voice; the viewer is me"
    )
    func readyChats() {
        var cache = AccountCache()
        let changes = cache.ready(world.ready)
        #expect(changes.chats)
        #expect(cache.userID == world.me.id)
        let chats = cache.sortedChats
        #expect(Set(chats.map(\.id)) == [world.general, world.random, world.dm, world.notes])
        #expect(chats.first?.id == world.random)  // its last message is the newest activity
        #expect(cache.chats[world.dm]?.name == "Friend")
        #expect(cache.chats[world.notes]?.name == "Saved Notes")
        #expect(cache.chats[world.general]?.serverID == world.server)
        #expect(cache.chats[world.random]?.lastActivity == Date(timeIntervalSince1970: 9))
        #expect(cache.ownMembership(in: world.server)?.id.user == world.me.id)
    }

    @Test("the viewer is the session's user, else the one Ready marks, wherever either is in Ready's users")
    func viewerWhateverTheOrder() {
        var unmarked = world.ready
        unmarked.users = unmarked.users.map { user in
            var user = user
            user.relationship = nil
            return user
        }
        for users in [unmarked.users, unmarked.users.reversed()] {
            var cache = AccountCache()
            cache.signedIn(as: world.me.id)
            var ready = unmarked
            ready.users = users
            _ = cache.ready(ready)
            #expect(cache.userID == world.me.id, "the session's user, first or last")
        }
        for users in [world.ready.users, world.ready.users.reversed()] {
            var cache = AccountCache()
            var ready = world.ready
            ready.users = users
            _ = cache.ready(ready)
            #expect(cache.userID == world.me.id, "the marked viewer, first (the gateway) or last (bonfire)")
        }
    }

    @Test("live messages join their history in id order, once, and move the chat to the top with its last message")
    func liveMessages() {
        var cache = AccountCache()
        _ = cache.ready(world.ready)
        let second = world.message(20_000, in: world.general, "second")
        let first = world.message(10_000, in: world.general, "first")
        #expect(
            cache.apply(.message(second))
                == AccountCache.Changes(
                    chats: true, histories: [world.general], messageEvents: [.received(second, origin: .live)]))
        _ = cache.apply(.message(first))
        _ = cache.apply(.message(second))  // a duplicate changes nothing
        #expect(cache.history(world.general).messages.map(\.content) == ["first", "second"])
        #expect(cache.sortedChats.first?.id == world.general)
        #expect(cache.chats[world.general]?.lastMessage == second)
        #expect(cache.chats[world.general]?.lastActivity == Date(timeIntervalSince1970: 20))
    }

    @Test("a history keeps the newest messages up to its limit, and the store is told to drop the rest")
    func bounded() {
        var cache = AccountCache(historyLimit: 3)
        _ = cache.ready(world.ready)
        for time in 1...5 {
            _ = cache.apply(.message(world.message(Int64(time) * 1_000 + 10_000, in: world.general, "\(time)")))
        }
        #expect(cache.history(world.general).messages.map(\.content) == ["3", "4", "5"])
        let pending = cache.takePending()
        #expect(pending.messages[world.general]?.count == 3)
        #expect(pending.deletedMessages[world.general]?.count == 2)
        // An old message arriving late into a full history is not kept.
        _ = cache.apply(.message(world.message(1_000, in: world.general, "old")))
        #expect(cache.history(world.general).messages.map(\.content) == ["3", "4", "5"])
        #expect(cache.takePending().messages[world.general]?.isEmpty ?? true)
    }

    @Test("a message for an unknown channel is counted and ignored")
    func unknownChannel() {
        var cache = AccountCache()
        _ = cache.ready(world.ready)
        let changes = cache.apply(.message(world.message(5_000, in: Ids.ulid(7, 7), "lost?")))
        #expect(changes.isEmpty)
        #expect(cache.ignoredEvents == 1)
    }

    @Test("invalidation marks every fetched history and member list stale; a fetch makes one fresh again")
    func invalidation() {
        var cache = AccountCache()
        _ = cache.ready(world.ready)
        cache.historyFetchStarted(channel: world.general)
        _ = cache.historyFetched(channel: world.general, page: [world.message(5_000, in: world.general, "a")])
        _ = cache.membersFetched(
            server: world.server, members: [Member(id: .init(server: world.server, user: world.me.id))])
        #expect(!cache.history(world.general).isStale)
        #expect(!cache.memberList(world.server).isStale)
        let changes = cache.invalidate()
        #expect(changes.histories == [world.general] && changes.members == [world.server])
        #expect(cache.history(world.general).isStale)
        #expect(cache.memberList(world.server).isStale)
        #expect(cache.history(world.random).isStale)  // never fetched: stale
    }

    @Test("a page or member list asked for before a reconnect is merged but leaves its history or list stale")
    func fetchAcrossReconnect() {
        var cache = AccountCache()
        _ = cache.ready(world.ready)
        cache.historyFetchStarted(channel: world.general)
        let before = cache.generation
        _ = cache.invalidate()
        let page = [world.message(5_000, in: world.general, "a")]
        _ = cache.historyFetched(channel: world.general, page: page)
        #expect(cache.history(world.general).messages.map(\.id) == page.map(\.id), "the page is kept")
        #expect(cache.history(world.general).isStale, "it may miss what the socket missed")
        let member = Member(id: .init(server: world.server, user: world.me.id))
        _ = cache.membersFetched(server: world.server, members: [member], generation: before)
        #expect(cache.memberList(world.server).members.count == 1)
        #expect(cache.memberList(world.server).isStale)
        // Fetches begun after the reconnect make them fresh.
        cache.historyFetchStarted(channel: world.general)
        _ = cache.historyFetched(channel: world.general, page: page)
        _ = cache.membersFetched(server: world.server, members: [member], generation: cache.generation)
        #expect(!cache.history(world.general).isStale)
        #expect(!cache.memberList(world.server).isStale)
        // A discard is a generation too: nothing fetched before it is fresh after it.
        let beforeDiscard = cache.generation
        cache.discard()
        #expect(cache.generation > beforeDiscard)
    }

    @Test("a fetch overlapping live events keeps what arrived meanwhile and does not bring back what was deleted")
    func fetchRace() {
        var cache = AccountCache()
        _ = cache.ready(world.ready)
        let old = world.message(1_000, in: world.general, "old, deleted while offline")
        _ = cache.loadStored(messages: [old], channel: world.general)
        cache.historyFetchStarted(channel: world.general)
        let a = world.message(2_000, in: world.general, "a")
        let b = world.message(3_000, in: world.general, "b, deleted during the fetch")
        let c = world.message(4_000, in: world.general, "c, arrived during the fetch")
        _ = cache.apply(.message(c))
        _ = cache.apply(.messageDelete(id: b.id, channel: world.general))
        // The page was made before the deletion and before c.
        _ = cache.historyFetched(channel: world.general, page: [a, b])
        let history = cache.history(world.general)
        #expect(history.messages.map(\.id) == [a.id, c.id])
        #expect(!history.isStale)
        let pending = cache.takePending()
        #expect(pending.deletedMessages[world.general]?.contains(old.id) == true)
        #expect(pending.messages[world.general] == [a.id, c.id])
    }

    @Test("a channel or server that Ready no longer lists is removed with its history and members")
    func readyRemoves() {
        var cache = AccountCache()
        _ = cache.ready(world.ready)
        _ = cache.apply(.message(world.message(5_000, in: world.general, "hello")))
        _ = cache.takePending()
        var later = world.ready
        later.servers = []
        later.channels.removeAll { $0.server == world.server }
        later.members = []
        _ = cache.ready(later)
        #expect(cache.chats[world.general] == nil)
        #expect(cache.history(world.general).messages.isEmpty)
        let pending = cache.takePending()
        #expect(pending.deletedChats.isSuperset(of: [world.general, world.random]))
        #expect(pending.deletedServers == [world.server])
        #expect(pending.deletedMessages[world.general]?.count == 1)
        #expect(pending.deletedMembers[world.server] == [world.me.id])
    }

    @Test("a deleted last message gives the chat the previous one")
    func deleteLast() {
        var cache = AccountCache()
        _ = cache.ready(world.ready)
        let first = world.message(5_000, in: world.dm, "first")
        let second = world.message(6_000, in: world.dm, "second")
        _ = cache.apply(.message(first))
        _ = cache.apply(.message(second))
        _ = cache.apply(.messageDelete(id: second.id, channel: world.dm))
        #expect(cache.chats[world.dm]?.lastMessage == first)
    }

    @Test("pending writes that failed go back in line under newer ones")
    func restore() {
        var cache = AccountCache()
        _ = cache.ready(world.ready)
        let message = world.message(5_000, in: world.general, "kept")
        _ = cache.apply(.message(message))
        let failed = cache.takePending()
        _ = cache.apply(.messageDelete(id: message.id, channel: world.general))
        cache.pending.restore(failed)
        let batch = cache.batch(for: cache.takePending())
        #expect(batch.messages.isEmpty)
        #expect(batch.deletedMessages == [.init(channel: world.general, id: message.id)])
        #expect(Set(batch.chats.map(\.id)) == [world.general, world.random, world.dm, world.notes])
    }

    @Test("a Ready into an empty cache writes every user it lists, again after a failed write, and only changes after")
    func readyUsersPending() {
        var cache = AccountCache()
        _ = cache.ready(world.ready)
        let everyone = Set(world.ready.users.map(\.id))
        #expect(everyone.count > 1)
        let failed = cache.takePending()
        #expect(!failed.isEmpty)
        #expect(cache.takePending().isEmpty)
        #expect(Set(cache.batch(for: failed).users.map(\.id)) == everyone)
        cache.pending.restore(failed)
        #expect(Set(cache.batch(for: cache.takePending()).users.map(\.id)) == everyone)
        // The next Ready finds the users there: only a changed one is written.
        var next = world.ready
        next.users[0].displayName = "renamed"
        _ = cache.ready(next)
        #expect(cache.batch(for: cache.takePending()).users.map(\.id) == [next.users[0].id])
    }

    @Test("stored chats show before Ready, and Ready's chats replace them")
    func storedFirst() {
        var cache = AccountCache()
        let stored = Chat(
            id: world.general, kind: .textChannel, name: "general (stored)", serverID: world.server,
            lastActivity: Date(timeIntervalSince1970: 50), lastMessage: world.message(50_000, in: world.general, "hi"))
        #expect(cache.loadStored(chats: [stored]).chats)
        // No read state was stored for it: a chat with messages and no acknowledgement is unread.
        var shown = stored
        shown.isUnread = true
        #expect(cache.sortedChats == [shown])
        _ = cache.ready(world.ready)
        #expect(cache.chats[world.general]?.name == "general")
        // Ready's channel has no newer last message than the stored one: the stored last message stays.
        #expect(cache.chats[world.general]?.lastMessage?.content == "hi")
    }

    @Test("an edit, a reaction and an embed made during a fetch are applied again to the page's older copies")
    func editsDuringFetch() {
        var cache = AccountCache()
        _ = cache.ready(world.ready)
        let message = world.message(5_000, in: world.general, "before")
        cache.historyFetchStarted(channel: world.general)
        _ = cache.apply(
            .messageUpdate(id: message.id, channel: world.general, data: PartialMessage(content: "after"), clear: []))
        _ = cache.apply(.messageReact(id: message.id, channel: world.general, user: world.me.id, emoji: "👍"))
        _ = cache.historyFetched(channel: world.general, page: [message])
        let stored = cache.history(world.general).messages.first
        #expect(stored?.content == "after")
        #expect(stored?.reactions == ["👍": [world.me.id]])
        #expect(cache.chats[world.general]?.lastMessage?.content == "after")
        _ = cache.apply(.messageUnreact(id: message.id, channel: world.general, user: world.me.id, emoji: "👍"))
        #expect(cache.history(world.general).messages.first?.reactions == [:])
    }

    @Test("the user's own timeout comes with a member update, and clearing it removes it")
    func ownTimeout() {
        var cache = AccountCache()
        _ = cache.ready(world.ready)
        let until = Date(timeIntervalSince1970: 1_000_000)
        let id = Member.ID(server: world.server, user: world.me.id)
        _ = cache.apply(.serverMemberUpdate(id: id, data: PartialMember(timeout: until), clear: []))
        #expect(cache.ownMembership(in: world.server)?.timeout == until)
        _ = cache.apply(.serverMemberUpdate(id: id, data: PartialMember(), clear: [.timeout]))
        #expect(cache.ownMembership(in: world.server)?.timeout == nil)
    }

    @Test("a renamed channel and a renamed friend rename their chats; a channel deleted removes its chat")
    func renames() {
        var cache = AccountCache()
        _ = cache.ready(world.ready)
        #expect(cache.apply(.channelUpdate(id: world.general, data: PartialChannel(name: "lobby"), clear: [])).chats)
        #expect(cache.chats[world.general]?.name == "lobby")
        #expect(
            cache.apply(.userUpdate(id: world.friend.id, data: PartialUser(displayName: "Best friend"), clear: []))
                .chats)
        #expect(cache.chats[world.dm]?.name == "Best friend")
        _ = cache.apply(.channelDelete(id: world.general))
        #expect(cache.chats[world.general] == nil)
        #expect(cache.takePending().deletedChats.contains(world.general))
    }

    @Test("a user wiped from the platform loses their messages and memberships")
    func platformWipe() {
        var cache = AccountCache()
        _ = cache.ready(world.ready)
        _ = cache.apply(.message(world.message(5_000, in: world.general, "from the friend")))
        _ = cache.apply(.serverMemberJoin(server: world.server, user: world.friend.id, member: nil))
        _ = cache.apply(.userPlatformWipe(user: world.friend.id, flags: 4))
        #expect(cache.history(world.general).messages.isEmpty)
        #expect(cache.memberList(world.server).members.map(\.id.user) == [world.me.id])
    }
}
