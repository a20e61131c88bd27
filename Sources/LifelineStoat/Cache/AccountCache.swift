#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The account's data as the client holds it in memory: the pure core of ``StoatClient``'s cache.
///
/// A value type with no I/O: `Ready`, the socket's events, REST pages and the store's rows go in through
/// mutating methods, each of which returns what changed (for observers) and records what must be written
/// to the store (``pending``). The client guards one instance with a lock, so applying an event on the
/// socket's path is a few dictionary updates, and writes the pending changes to the store in batches off
/// that path.
///
/// Histories and member lists are *stale* until fetched from the server, and again after every
/// reconnect (``invalidate()``); a fetch that overlaps live events merges with them (see
/// ``historyFetched(channel:page:fetch:)``), so a message is never lost or duplicated by the race.
package struct AccountCache: Sendable {
    /// What one change touched, for the observers.
    struct Changes: Sendable, Equatable {
        /// The chat list changed.
        var chats = false
        /// These channels' histories changed.
        var histories: Set<String> = []
        /// These servers' member lists changed.
        var members: Set<String> = []
        /// What happened to messages, in order, for ``StoatClient/messages``: each message id received once.
        var messageEvents: [MessageEvent] = []

        var isEmpty: Bool { !chats && histories.isEmpty && members.isEmpty && messageEvents.isEmpty }

        mutating func formUnion(_ other: Changes) {
            chats = chats || other.chats
            histories.formUnion(other.histories)
            members.formUnion(other.members)
            messageEvents += other.messageEvents
        }
    }

    /// What must be written to the store: the keys changed since the last flush. The values are read
    /// from the cache when the batch is made, so many changes to one row cost one write.
    struct PendingWrites: Sendable, Equatable {
        var chats: Set<String> = []
        var deletedChats: Set<String> = []
        var servers: Set<String> = []
        var deletedServers: Set<String> = []
        var users: Set<String> = []
        /// Every user the cache holds is to be written: a `Ready` that fills an empty cache (each sign-in) marks
        /// this once rather than hashing each of its thousands of ids again into ``users``.
        var allUsers = false
        /// Message ids by channel.
        var messages: [String: Set<String>] = [:]
        var deletedMessages: [String: Set<String>] = [:]
        /// Member user ids by server.
        var members: [String: Set<String>] = [:]
        var deletedMembers: [String: Set<String>] = [:]
        /// Chats whose state (read marker, mentions, gaps, catch-up cursor) changed.
        var chatStates: Set<String> = []

        var isEmpty: Bool {
            chats.isEmpty && deletedChats.isEmpty && servers.isEmpty && deletedServers.isEmpty && users.isEmpty
                && !allUsers && messages.isEmpty && deletedMessages.isEmpty && members.isEmpty && deletedMembers.isEmpty
                && chatStates.isEmpty
        }
    }

    /// A fetch of a channel's history in flight: what happened live meanwhile, merged over the page.
    struct HistoryFetch: Sendable, Equatable {
        /// Messages that arrived: kept as the cache has them.
        var arrived: Set<String> = []
        /// Messages deleted: not brought back by the page.
        var deleted: Set<String> = []
        /// Changes to messages, in order: applied again to the page's (older) copies.
        var updates: [Update] = []
        /// The cache's ``AccountCache/generation`` when the fetch started: a page asked for before a
        /// reconnect may miss what happened while the socket was down, so it cannot make a history fresh.
        var generation: UInt64 = 0

        enum Update: Sendable, Equatable {
            case update(id: String, data: PartialMessage, clear: [Message.Field])
            case append(id: String, embeds: [Message.Embed])
            case react(id: String, user: String, emoji: String, added: Bool)
            case removeReaction(id: String, emoji: String)

            var id: String {
                switch self {
                case .update(let id, _, _), .append(let id, _), .react(let id, _, _, _), .removeReaction(let id, _): id
                }
            }

            func apply(to message: inout Message) {
                switch self {
                case .update(_, let data, let clear): message.apply(data, clearing: clear)
                case .append(_, let embeds): message.embeds = (message.embeds ?? []) + embeds
                case .react(_, let user, let emoji, let added):
                    AccountCache.react(&message, user: user, emoji: emoji, added: added)
                case .removeReaction(_, let emoji): message.reactions?[emoji] = nil
                }
            }
        }
    }

    /// How many messages a channel's history keeps (the newest).
    let historyLimit: Int

    /// The signed-in user: the session's own user id when it is known (``signedIn(as:)``), else the user
    /// `Ready` marks as the viewer (`relationship: "User"`). Never a position in `Ready`'s `users`: bonfire
    /// lists the viewer last, Stoat's new events server first.
    private(set) var userID: String?
    private(set) var users: [String: User] = [:]
    private(set) var servers: [String: Server] = [:]
    private(set) var channels: [String: Channel] = [:]
    var chats: [String: Chat] = [:]
    var histories: [String: ChannelHistory] = [:]
    private(set) var members: [String: [String: Member]] = [:]
    private(set) var staleMembers: Set<String> = []
    /// Fetches in flight, by channel, then by the token ``historyFetchStarted(channel:)`` gave.
    private(set) var fetches: [String: [Int: HistoryFetch]] = [:]
    /// Deletions and changes that overtook their message (``EarlyMessageEvents``).
    private(set) var earlyEvents = EarlyMessageEvents()
    private var nextFetchToken = 0
    /// How many times the cache was invalidated (or discarded): a fetch that began in an earlier generation
    /// merges its data but leaves the history or member list stale.
    private(set) var generation: UInt64 = 0
    /// Changes not yet written to the store.
    var pending = PendingWrites()
    /// Whether changes are recorded in ``pending``. ``CacheEngine`` clears it while no store is attached: a
    /// client that keeps no store (a bot) would otherwise record, for ever, the id of every message that left a
    /// history (``markEverythingPending()`` makes up for it when a store comes).
    var recordsPending = true
    /// Events that named something the cache does not know (a message for an unknown channel…).
    private(set) var ignoredEvents = 0

    // MARK: Read state and catch-up (AccountCache+CatchUp.swift)

    /// The `Ready` fields the client asked for: the others, absent or empty, say nothing.
    let readyFields: ReadyFields
    /// Whether the client catches up after each CONNECTED (and so keeps the bookkeeping for it).
    let tracksCatchUp: Bool
    /// Each channel's read state: the last message acknowledged, the mentions not yet acknowledged.
    var readStates: [String: ReadState] = [:]
    /// Each channel's holes in its cached history, oldest first.
    var gaps: [String: [HistoryGap]] = [:]
    /// Where each chat's catch-up resumes, while one is under way (stored, so a restart resumes too).
    var catchUpCursors: [String: String] = [:]
    /// What each chat's history was known whole up to when `Ready` came (or when its stored row was read
    /// after `Ready`): the next plan's cursors, for chats without a stored one.
    var readyCursors: [String: CatchUpPlan.Cursor] = [:]
    /// Between `Ready` and the catch-up's plan: live messages are noted so the plan's pages do not deliver
    /// them again.
    var awaitingCatchUp = false
    /// The chats the first pass knew whole without a request, by the cursor it trusted (`Ready`'s
    /// `last_message_id`, which lags): the second pass checks them against the field as committed later.
    var settleCursors: [String: CatchUpPlan.Cursor] = [:]
    /// Message ids delivered to ``StoatClient/messages`` while a chat's catch-up is planned or under way.
    var deliveredDuringCatchUp: [String: Set<String>] = [:]
    /// The newest message id the cache knew when `Ready` came: of a chat new to the cache, only messages newer
    /// than it were posted while the client was away.
    var deliveryBaseline: String?
    /// Chats whose history is known whole in this generation (caught up, or nothing new): a history read from
    /// the store for them is fresh.
    var knownWhole: Set<String> = []
    /// Whether `Ready` gave the read states (`ready=channel_unreads`), so `GET /sync/unreads` is not needed.
    var readyGaveUnreads = false
    /// Channels holding messages known one by one (a post's answer, a look-up) above the history known whole:
    /// where the history was whole before the first of them, which the next catch-up starts from
    /// (``noteAlone(_:)``).
    var unconfirmed: [String: Unconfirmed] = [:]
    /// The user's acks the server refused after announcing them, by channel: their `ChannelAck`, if it comes after
    /// the refusal, is not taken as read (``ackRefused(channel:upTo:restore:into:)``).
    var refusedAcks: [String: String] = [:]

    init(historyLimit: Int = 100, readyFields: ReadyFields = .bonfireDefault, tracksCatchUp: Bool = false) {
        precondition(historyLimit > 0, "historyLimit must be positive, got \(historyLimit)")
        self.historyLimit = historyLimit
        self.readyFields = readyFields
        self.tracksCatchUp = tracksCatchUp
    }

    // MARK: - Reading

    /// The chats, most recently active first.
    var sortedChats: [Chat] { chats.values.sorted(by: Chat.isMoreRecent) }

    /// A channel's history; an unknown or never-loaded channel has an empty, stale one.
    func history(_ channel: String) -> ChannelHistory {
        var history = histories[channel] ?? ChannelHistory(channelID: channel)
        history.gaps = gaps[channel] ?? []
        return history
    }

    /// A server's members, by user id.
    func memberList(_ server: String) -> MemberList {
        let list = members[server].map { $0.values.sorted { $0.id.user < $1.id.user } } ?? []
        return MemberList(
            serverID: server, members: list, isStale: members[server] == nil || staleMembers.contains(server))
    }

    /// The signed-in user's own membership of a server (its `timeout`, its nickname).
    func ownMembership(in server: String) -> Member? {
        guard let userID else { return nil }
        return members[server]?[userID]
    }

    // MARK: - Loading from the store

    /// Shows chats read from the store before any network (the first screen, then the rest). Chats the
    /// cache already holds from the server are kept as they are.
    mutating func loadStored(chats stored: [Chat]) -> Changes {
        var changed = false
        for chat in stored {
            guard var held = chats[chat.id] else {
                chats[chat.id] = chat
                refreshUnread(chat.id)
                changed = true
                continue
            }
            // `Ready` came first: the stored last message is what the cache knew before this connection,
            // where its catch-up starts; it is shown until a newer one comes.
            if let last = chat.lastMessage, tracksCatchUp, readyCursors[chat.id] == nil {
                readyCursors[chat.id] = .message(last.id)
            }
            if let last = chat.lastMessage, held.lastMessage.map({ $0.id < last.id }) ?? true {
                held.lastMessage = last
                chats[chat.id] = held
                refreshUnread(chat.id)
                changed = true
            }
        }
        return Changes(chats: changed)
    }

    /// Adds a channel's messages read from the store to a history that has none yet; the history stays
    /// stale (the store may be behind the server).
    mutating func loadStored(messages stored: [Message], channel: String) -> Changes {
        guard histories[channel]?.messages.isEmpty ?? true, !stored.isEmpty else { return Changes() }
        var history = ChannelHistory(channelID: channel, isStale: !knownWhole.contains(channel))
        history.messages = Self.bounded(stored.sorted { $0.id < $1.id }, limit: historyLimit)
        histories[channel] = history
        trimGaps(channel)
        return Changes(histories: [channel])
    }

    /// Adds members read from the store to a server with none yet; the list stays stale.
    mutating func loadStored(members stored: [Member], server: String) -> Changes {
        guard members[server] == nil, !stored.isEmpty else { return Changes() }
        members[server] = Dictionary(stored.map { ($0.id.user, $0) }, uniquingKeysWith: { $1 })
        staleMembers.insert(server)
        return Changes(members: [server])
    }

    /// Adds users read from the store that the cache does not know yet (names for the first screen).
    mutating func loadStored(users stored: [User]) {
        for user in stored where users[user.id] == nil { users[user.id] = user }
    }

    // MARK: - The lifecycle

    /// Marks every history and member list stale: the session reconnects, and events may have been
    /// missed while it was disconnected (the specification's RECONNECTING entry).
    mutating func invalidate() -> Changes {
        var changes = Changes()
        generation &+= 1
        knownWhole = []
        for (id, history) in histories where !history.isStale {
            histories[id]?.isStale = true
            changes.histories.insert(id)
        }
        for server in members.keys where !staleMembers.contains(server) {
            staleMembers.insert(server)
            changes.members.insert(server)
        }
        return changes
    }

    /// Forgets everything held in memory (DISPOSE). The store keeps its data; nothing pending is
    /// written after this.
    mutating func discard() {
        let next = generation &+ 1
        self = AccountCache(historyLimit: historyLimit, readyFields: readyFields, tracksCatchUp: tracksCatchUp)
        generation = next
    }

    /// Marks everything the cache holds as to be written: what a store attached to a cache that recorded
    /// nothing needs to hold all of it.
    mutating func markEverythingPending() {
        pending.chats.formUnion(chats.keys)
        pending.servers.formUnion(servers.keys)
        if !users.isEmpty { pending.allUsers = true }
        for (channel, history) in histories where !history.messages.isEmpty {
            pending.messages[channel, default: []].formUnion(history.messages.map(\.id))
        }
        for (server, list) in members where !list.isEmpty {
            pending.members[server, default: []].formUnion(list.keys)
        }
        pending.chatStates.formUnion(readStates.keys)
        pending.chatStates.formUnion(gaps.keys)
        pending.chatStates.formUnion(catchUpCursors.keys)
        pending.chatStates.formUnion(unconfirmed.keys)
    }

    /// The session's user id, from the login (its `user_id`) or the cached session: who the viewer is,
    /// whatever `Ready` lists first or last.
    mutating func signedIn(as userID: String) {
        self.userID = userID
    }

    // MARK: - Ready

    /// Takes `Ready`'s users, servers, channels and memberships as the truth: chats and servers it no
    /// longer lists are removed (with their histories), the rest updated.
    ///
    /// Only the fields the client asked for (``readyFields``) are taken: a field it did not ask for says
    /// nothing, whether the server left it out (bonfire) or sent it empty (the new gateway), so it never reads
    /// as "no chats" or "all read".
    mutating func ready(_ ready: Ready) -> Changes {
        var changes = Changes(chats: true)
        if tracksCatchUp { noteCatchUpStart() }
        if readyFields.contains(.users) {
            // The viewer is the one user whose relationship is `User` (bonfire lists it last, the gateway
            // first); the id the session signed in with, when known, wins.
            userID = userID ?? ready.users.first { $0.relationship == "User" }?.id
            // Room for every user at once: a large Ready grows these from empty after each sign-in, and growing
            // them step by step cost as much as the inserts (measured on `lifeline bench`'s time-to-connected).
            if users.isEmpty {
                // Every user is new: none to compare, and all of them pending as one mark (a later duplicate
                // wins, as in `upsert`). Built in one go, sized from the count, rather than by subscript, which
                // retained each user twice and released one at once: atomic operations, each a barrier for the
                // stores before it (7 % of `apply_ms` on the padded 1 MB Ready).
                users = Dictionary(ready.users.lazy.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
                if !users.isEmpty { pending.allUsers = true }
            } else {
                users.reserveCapacity(users.count + ready.users.count)
                pending.users.reserveCapacity(pending.users.count + ready.users.count)
                for user in ready.users { upsert(user) }
            }
        }
        if readyFields.contains(.servers) {
            let serverIDs = Set(ready.servers.map(\.id))
            for id in servers.keys where !serverIDs.contains(id) { removeServer(id, into: &changes) }
            for server in ready.servers {
                servers[server.id] = server
                pending.servers.insert(server.id)
            }
        }
        if readyFields.contains(.channels) {
            let channelIDs = Set(ready.channels.map(\.id))
            for id in Set(channels.keys).union(chats.keys) where !channelIDs.contains(id) {
                removeChannel(id, into: &changes)
            }
            for channel in ready.channels { upsert(channel) }
            if tracksCatchUp, deliveryBaseline == nil {
                // A client that knew no message (a bot's first run without a store): what is newer than the newest
                // message Ready names was posted since it connected, and a page that brings it before its live
                // event does must deliver it, or it is never delivered.
                deliveryBaseline = ready.channels.lazy.compactMap(\.lastMessageID).max()
            }
        }
        if readyFields.contains(.members) {
            for member in ready.members { upsert(member, into: &changes) }
        }
        if readyFields.contains(.channelUnreads) {
            readyGaveUnreads = true
            unreadsFetched(ready.channelUnreads)
        }
        return changes
    }

    // MARK: - Events

    /// Applies one event from the socket. Events that do not change the account's data (typing, acks,
    /// emojis, slowmodes) change nothing; an event about something the cache does not know is counted
    /// in ``ignoredEvents``.
    mutating func apply(_ event: BonfireEvent) -> Changes {
        var changes = Changes()
        switch event {
        case .ready(let ready):
            return self.ready(ready)
        case .bulk(let events):
            for event in events { changes.formUnion(apply(event)) }

        case .message(let message):
            guard channels[message.channel] != nil else {
                ignoredEvents += 1
                return changes
            }
            confirmLive(message)
            insert(message, origin: .live, into: &changes)
        case .messageUpdate(let id, let channel, let data, let clear):
            noteUpdate(.update(id: id, data: data, clear: clear), channel: channel)
            edit(message: id, channel: channel, into: &changes) { $0.apply(data, clearing: clear) }
            let message = histories[channel]?.messages.first { $0.id == id }
            changes.messageEvents.append(
                .updated(MessageChange(id: id, channel: channel, data: data, message: message, origin: .live)))
        case .messageAppend(let id, let channel, let embeds):
            noteUpdate(.append(id: id, embeds: embeds), channel: channel)
            edit(message: id, channel: channel, into: &changes) { $0.embeds = ($0.embeds ?? []) + embeds }
        case .messageReact(let id, let channel, let user, let emoji):
            noteUpdate(.react(id: id, user: user, emoji: emoji, added: true), channel: channel)
            edit(message: id, channel: channel, into: &changes) {
                Self.react(&$0, user: user, emoji: emoji, added: true)
            }
        case .messageUnreact(let id, let channel, let user, let emoji):
            noteUpdate(.react(id: id, user: user, emoji: emoji, added: false), channel: channel)
            edit(message: id, channel: channel, into: &changes) {
                Self.react(&$0, user: user, emoji: emoji, added: false)
            }
        case .messageRemoveReaction(let id, let channel, let emoji):
            noteUpdate(.removeReaction(id: id, emoji: emoji), channel: channel)
            edit(message: id, channel: channel, into: &changes) { $0.reactions?[emoji] = nil }
        case .messageDelete(let id, let channel):
            delete(message: id, channel: channel, into: &changes)
            changes.messageEvents.append(.deleted(id: id, channel: channel, origin: .live))
        case .bulkMessageDelete(let channel, let ids):
            for id in ids {
                delete(message: id, channel: channel, into: &changes)
                changes.messageEvents.append(.deleted(id: id, channel: channel, origin: .live))
            }
        case .channelAck(let channel, let user, let messageID):
            guard user == userID || userID == nil else { return changes }
            // The announcement of an ack the server then failed to write (stoatchat publishes before it writes).
            if let refused = refusedAcks.removeValue(forKey: channel), refused == messageID { return changes }
            acknowledged(channel: channel, message: messageID, into: &changes)

        case .channelCreate(let channel):
            upsert(channel)
            changes.chats = true
        case .channelUpdate(let id, let data, let clear):
            guard var channel = channels[id] else {
                ignoredEvents += 1
                return changes
            }
            channel.apply(data, clearing: clear)
            upsert(channel)
            refreshUnread(id)
            changes.chats = true
        case .channelDelete(let id):
            removeChannel(id, into: &changes)
        case .channelGroupJoin(let id, let user):
            guard var channel = channels[id] else { return changes }
            if !(channel.recipients ?? []).contains(user) { channel.recipients = (channel.recipients ?? []) + [user] }
            upsert(channel)
        case .channelGroupLeave(let id, let user):
            if user == userID {
                removeChannel(id, into: &changes)
            } else if var channel = channels[id] {
                channel.recipients?.removeAll { $0 == user }
                upsert(channel)
            }

        case .serverCreate(let server, let serverChannels, _):
            servers[server.id] = server
            pending.servers.insert(server.id)
            for channel in serverChannels { upsert(channel) }
            changes.chats = true
        case .serverUpdate(let id, let data, let clear):
            guard var server = servers[id] else {
                ignoredEvents += 1
                return changes
            }
            server.apply(data, clearing: clear)
            servers[id] = server
            pending.servers.insert(id)
        case .serverDelete(let id):
            removeServer(id, into: &changes)
        case .serverMemberJoin(let server, let user, let member):
            guard servers[server] != nil else {
                ignoredEvents += 1
                return changes
            }
            upsert(member ?? Member(id: Member.ID(server: server, user: user)), into: &changes)
        case .serverMemberLeave(let server, let user, _):
            removeMember(server: server, user: user, into: &changes)
            if user == userID { removeServer(server, into: &changes) }
        case .serverMemberUpdate(let id, let data, let clear):
            // A member the cache has not listed is only kept when it is the user's own membership (its
            // timeout matters); others arrive with the list.
            guard var member = members[id.server]?[id.user] ?? (id.user == userID ? Member(id: id) : nil) else {
                return changes
            }
            member.apply(data, clearing: clear)
            upsert(member, into: &changes)

        case .userUpdate(let id, let data, let clear):
            guard var user = users[id] else { return changes }
            user.apply(data, clearing: clear)
            upsert(user, renamingChatsInto: &changes)
        case .userRelationship(_, let user):
            upsert(user, renamingChatsInto: &changes)
        case .userPlatformWipe(let user, _):
            wipe(user: user, into: &changes)

        case .authenticated, .pong, .ping, .logout, .error, .channelStartTyping, .channelStopTyping,
            .userSlowmodes, .emojiCreate, .emojiDelete, .operationFinished, .unknown:
            break
        }
        return changes
    }

    // MARK: - REST

    /// A fetch of `channel`'s messages starts: live events are noted until it ends. Returns the fetch's token,
    /// which its end (``historyFetched(channel:page:users:fetch:)``, ``historyFetchFailed(channel:fetch:)``) names.
    @discardableResult
    mutating func historyFetchStarted(channel: String) -> Int {
        nextFetchToken &+= 1
        fetches[channel, default: [:]][nextFetchToken] = HistoryFetch(generation: generation)
        return nextFetchToken
    }

    /// Notes a live change of a message for every fetch of its channel in flight.
    mutating func noteUpdate(_ update: HistoryFetch.Update, channel: String) {
        forEachFetch(of: channel) { $0.updates.append(update) }
        if !holds(update.id, in: channel) { earlyEvents.changed(update) }
    }

    /// Whether `channel`'s history holds message `id`.
    private func holds(_ id: String, in channel: String) -> Bool {
        histories[channel]?.messages.contains { $0.id == id } ?? false
    }

    private mutating func forEachFetch(of channel: String, _ body: (inout HistoryFetch) -> Void) {
        guard var list = fetches[channel] else { return }
        for key in list.keys {
            if var fetch = list[key] {
                body(&fetch)
                list[key] = fetch
            }
        }
        fetches[channel] = list
    }

    /// Ends fetch `token` of `channel` (without a token, the newest one): what happened live meanwhile.
    mutating func endFetch(_ token: Int?, channel: String) -> HistoryFetch {
        guard let token = token ?? fetches[channel]?.keys.max(),
            let fetch = fetches[channel]?.removeValue(forKey: token)
        else { return HistoryFetch(generation: generation) }
        if fetches[channel]?.isEmpty == true { fetches[channel] = nil }
        return fetch
    }

    /// The page's messages of `channel`, with what happened live while it was on its way replayed on them:
    /// messages deleted meanwhile are dropped, changes applied again to the page's (older) copies, and
    /// messages that arrived meanwhile kept as the cache has them.
    func merged(_ page: [Message], channel: String, fetch: HistoryFetch) -> [String: Message] {
        var byID: [String: Message] = [:]
        for message in page where message.channel == channel && !fetch.deleted.contains(message.id) {
            byID[message.id] = message
        }
        for update in fetch.updates where !fetch.arrived.contains(update.id) {
            if var message = byID[update.id] {
                update.apply(to: &message)
                byID[update.id] = message
            }
        }
        for message in histories[channel]?.messages ?? [] where fetch.arrived.contains(message.id) {
            byID[message.id] = message
        }
        return byID
    }

    /// The latest page of `channel`'s messages arrived: it replaces the history, merged with what
    /// happened live while it was on its way — messages that arrived meanwhile are kept, messages
    /// deleted meanwhile are not brought back. The history is fresh afterwards, unless the fetch began before
    /// a reconnect. Messages the client had not seen reach ``StoatClient/messages`` as caught up; a full page
    /// that does not reach the history's newest message leaves a ``HistoryGap`` below it.
    ///
    /// - Parameters:
    ///   - channel: The channel.
    ///   - page: The server's latest messages, in any order.
    ///   - users: The users the page named (`include_users`), if any.
    ///   - fetch: The token ``historyFetchStarted(channel:)`` gave.
    ///   - limit: How many messages the page asked for (a page this long may not reach older ones).
    mutating func historyFetched(
        channel: String, page: [Message], users pageUsers: [User] = [], fetch token: Int? = nil, limit: Int? = nil
    ) -> Changes {
        let fetch = endFetch(token, channel: channel)
        for user in pageUsers { upsert(user) }
        let byID = merged(page, channel: channel, fetch: fetch)
        let previous = histories[channel]?.messages ?? []
        let knownIDs = Set(previous.map(\.id))
        var changes = Changes(histories: [channel])
        // What the client had not seen: inside or above the window of messages it held (older ones are older
        // history), not held, and not delivered live meanwhile. Without a window, newer than the newest message
        // it knew anywhere.
        let above: String?
        if let entry = unconfirmed[channel] {
            // Messages known on their own say nothing of what lies below them: what the history was whole up to
            // before them does (the channel's start, or — never held — the newest message known anywhere).
            above = [entry.floorID, catchUpCursors[channel]].compactMap { $0 }.min() ?? deliveryBaseline
        } else {
            above = [previous.first?.id, catchUpCursors[channel]].compactMap { $0 }.min() ?? deliveryBaseline
        }
        let fresh = byID.values.filter { message in
            !knownIDs.contains(message.id) && !fetch.arrived.contains(message.id)
                && above.map { message.id > $0 } ?? false
                && !(deliveredDuringCatchUp[channel]?.contains(message.id) ?? false)
        }
        for message in fresh.sorted(by: { $0.id < $1.id }) {
            noteDelivered(message, channel: channel)
            changes.messageEvents.append(.received(message, origin: .caughtUp))
        }
        let merged = Self.bounded(byID.values.sorted { $0.id < $1.id }, limit: historyLimit)
        let kept = Set(merged.map(\.id))
        for message in previous where !kept.contains(message.id) {
            pending.deletedMessages[channel, default: []].insert(message.id)
        }
        pending.messages[channel, default: []].formUnion(kept)
        pending.deletedMessages[channel]?.subtract(kept)
        histories[channel] = ChannelHistory(
            channelID: channel, messages: merged, isStale: fetch.generation != generation)
        // What the page covers is known; a full page above everything held leaves a hole below it.
        let oldest = page.map(\.id).min()
        let isFull = limit.map { page.count >= $0 } ?? false
        cover(channel, from: isFull ? oldest : nil, through: nil)
        // The newest message held that the history was whole up to: not one known on its own above it.
        let wholeUpTo: String? = if let entry = unconfirmed[channel] { entry.floorMessage } else { previous.last?.id }
        if isFull, let oldest, let newestHeld = wholeUpTo, newestHeld < oldest {
            addGap(HistoryGap(after: newestHeld, before: oldest), channel: channel)
        }
        // The page is whole from its oldest message (or the channel's start) up to its newest.
        confirmPage(channel, through: page.map(\.id).max())
        trimGaps(channel)
        if let newest = merged.last { noteLastMessage(newest, into: &changes) }
        return changes
    }

    /// A fetch of `channel`'s history failed: the history stays as it was (stale).
    mutating func historyFetchFailed(channel: String, fetch token: Int? = nil) {
        _ = endFetch(token, channel: channel)
    }

    /// The server's member list arrived: it replaces the list, which is fresh afterwards — unless the cache
    /// was invalidated since the fetch began (`generation`, the cache's ``generation`` then).
    mutating func membersFetched(
        server: String, members list: [Member], users listUsers: [User] = [], generation fetchGeneration: UInt64? = nil
    ) -> Changes {
        for user in listUsers { upsert(user) }
        let previous = members[server] ?? [:]
        var current: [String: Member] = [:]
        for member in list where member.id.server == server { current[member.id.user] = member }
        for user in previous.keys where current[user] == nil {
            pending.deletedMembers[server, default: []].insert(user)
        }
        pending.members[server, default: []].formUnion(current.keys)
        members[server] = current
        if fetchGeneration.map({ $0 == generation }) ?? true {
            staleMembers.remove(server)
        } else {
            staleMembers.insert(server)
        }
        return Changes(members: [server])
    }

    /// A message the user sent was accepted by the server (a post's answer, or found by the outbox's look-up): it
    /// joins the history at once (the socket's `Message` event for it changes nothing more). Known on its own, it
    /// does not make the history whole up to it: a message posted before it that the socket did not deliver (a
    /// deaf socket) is fetched by the next catch-up (``noteAlone(_:)``).
    mutating func sent(_ message: Message) -> Changes {
        var changes = Changes()
        noteAlone(message)
        insert(message, origin: .live, into: &changes)
        return changes
    }

    /// The channel whose history holds the message `id`, if one does.
    func channel(holding id: String) -> String? {
        for (channel, history) in histories where history.messages.contains(where: { $0.id == id }) {
            return channel
        }
        return nil
    }

    /// An action of the outbox the server applied (or was found to have applied): the history shows it at once,
    /// whether or not its event comes (a socket that is down, or deaf). `message` is the server's copy when the
    /// answer or the read-back carried one.
    mutating func applied(
        _ kind: OutboxEntry.Kind, target: String, channel: String, text: String?, emoji: String?, user: String?,
        message: Message?
    ) -> Changes {
        var changes = Changes()
        switch kind {
        case .send:
            break
        case .edit:
            edit(message: target, channel: channel, into: &changes) { held in
                held.content = message?.content ?? text
                if let edited = message?.edited { held.edited = edited }
            }
        case .delete:
            delete(message: target, channel: channel, into: &changes)
        case .react, .unreact:
            guard let emoji, let user = user ?? userID else { break }
            edit(message: target, channel: channel, into: &changes) { held in
                Self.react(&held, user: user, emoji: emoji, added: kind == .react)
            }
        }
        return changes
    }

    // MARK: - Writes

    /// Takes the pending writes, leaving none.
    mutating func takePending() -> PendingWrites {
        defer { pending = PendingWrites() }
        return pending
    }

    // MARK: - Internals

    /// Inserts a message into its history (bounded), and delivers it to ``StoatClient/messages`` when the client
    /// had not seen it: live, or caught up.
    mutating func insert(
        _ message: Message, origin: MessageOrigin, deliver: Bool = true, into changes: inout Changes
    ) {
        var message = message
        if let early = earlyEvents.take(message.id) {
            // Its deletion overtook it: it never reaches the history or the app.
            if early.deleted { return }
            for update in early.updates { update.apply(to: &message) }
        }
        let channel = message.channel
        forEachFetch(of: channel) { fetch in
            fetch.arrived.insert(message.id)
            fetch.deleted.remove(message.id)
        }
        // Taken out of the dictionary while it changes, so that its messages are not copied (a history shared
        // by the dictionary and a copy would be, on the first insertion: a hundred messages for one).
        var history = histories.removeValue(forKey: channel) ?? ChannelHistory(channelID: channel)
        let index = Self.insertionIndex(of: message.id, in: history.messages)
        if index < history.messages.count, history.messages[index].id == message.id {
            guard history.messages[index] != message else {
                histories[channel] = history
                return
            }
            history.messages[index] = message
        } else {
            if deliver, !(deliveredDuringCatchUp[channel]?.contains(message.id) ?? false) {
                noteDelivered(message, channel: channel)
                noteMention(message)
                changes.messageEvents.append(.received(message, origin: origin))
            }
            history.messages.insert(message, at: index)
            if history.messages.count > historyLimit {
                let dropped = history.messages.removeFirst()
                pending.deletedMessages[channel, default: []].insert(dropped.id)
                pending.messages[channel]?.remove(dropped.id)
            }
        }
        histories[channel] = history
        trimGaps(channel)
        if histories[channel]?.messages.contains(where: { $0.id == message.id }) == true {
            pending.messages[channel, default: []].insert(message.id)
            pending.deletedMessages[channel]?.remove(message.id)
        }
        changes.histories.insert(channel)
        noteLastMessage(message, into: &changes)
    }

    /// Changes a message the history holds, in place.
    mutating func edit(
        message id: String, channel: String, into changes: inout Changes, _ body: (inout Message) -> Void
    ) {
        guard let index = histories[channel]?.messages.firstIndex(where: { $0.id == id }),
            var message = histories[channel]?.messages[index]
        else { return }
        body(&message)
        guard histories[channel]?.messages[index] != message else { return }
        histories[channel]?.messages[index] = message
        pending.messages[channel, default: []].insert(id)
        changes.histories.insert(channel)
        if chats[channel]?.lastMessage?.id == id {
            chats[channel]?.lastMessage = message
            pending.chats.insert(channel)
            changes.chats = true
        }
    }

    /// Adds or takes back a user's reaction with an emoji.
    static func react(_ message: inout Message, user: String, emoji: String, added: Bool) {
        var users = message.reactions?[emoji] ?? []
        if added {
            guard !users.contains(user) else { return }
            users.append(user)
        } else {
            users.removeAll { $0 == user }
        }
        var reactions = message.reactions ?? [:]
        reactions[emoji] = users.isEmpty ? nil : users
        message.reactions = reactions
    }

    /// A user was wiped from the platform: their messages and memberships go.
    private mutating func wipe(user: String, into changes: inout Changes) {
        for (channel, history) in histories {
            for message in history.messages where message.author == user {
                delete(message: message.id, channel: channel, into: &changes)
            }
        }
        for server in members.keys where members[server]?[user] != nil {
            removeMember(server: server, user: user, into: &changes)
        }
    }

    mutating func delete(message id: String, channel: String, into changes: inout Changes) {
        forEachFetch(of: channel) { fetch in
            fetch.deleted.insert(id)
            fetch.arrived.remove(id)
        }
        guard let index = histories[channel]?.messages.firstIndex(where: { $0.id == id }) else {
            // Not held: it may be on its way still (the deletion overtook it), so it is remembered.
            earlyEvents.deleted(id)
            return
        }
        histories[channel]?.messages.remove(at: index)
        pending.messages[channel]?.remove(id)
        pending.deletedMessages[channel, default: []].insert(id)
        changes.histories.insert(channel)
        if chats[channel]?.lastMessage?.id == id {
            chats[channel]?.lastMessage = histories[channel]?.messages.last
            pending.chats.insert(channel)
            refreshUnread(channel)
            changes.chats = true
        }
    }

    /// Makes `message` its chat's last message if it is the newest the chat has seen.
    mutating func noteLastMessage(_ message: Message, into changes: inout Changes) {
        guard var chat = chats[message.channel] else { return }
        if let last = chat.lastMessage, last.id > message.id { return }
        guard chat.lastMessage != message else { return }
        chat.lastMessage = message
        if let sent = ULID.date(of: message.id), sent > chat.lastActivity { chat.lastActivity = sent }
        if channels[message.channel]?.lastMessageID ?? "" < message.id {
            channels[message.channel]?.lastMessageID = message.id
        }
        chats[message.channel] = chat
        pending.chats.insert(chat.id)
        refreshUnread(message.channel)
        changes.chats = true
    }

    mutating func upsert(_ user: User) {
        // One lookup: the new value goes in, and the old one says whether anything changed.
        guard users.updateValue(user, forKey: user.id) != user else { return }
        pending.users.insert(user.id)
    }

    /// Stores a user and renames the direct messages shown under their name.
    private mutating func upsert(_ user: User, renamingChatsInto changes: inout Changes) {
        upsert(user)
        for channel in channels.values
        where channel.kind == .directMessage && (channel.recipients ?? []).contains(user.id) {
            let before = chats[channel.id]
            upsert(channel)
            if chats[channel.id] != before { changes.chats = true }
        }
    }

    mutating func upsert(_ channel: Channel) {
        channels[channel.id] = channel
        guard var chat = chat(for: channel) else {
            if chats.removeValue(forKey: channel.id) != nil { pending.deletedChats.insert(channel.id) }
            return
        }
        // Keep the last message the cache knows: the channel's last one, or newer, or — until the catch-up
        // brings the newer one — the last the client has seen.
        if let known = chats[channel.id]?.lastMessage ?? histories[channel.id]?.messages.last {
            chat.lastMessage = known
            chat.lastActivity = max(chat.lastActivity, ULID.date(of: known.id) ?? chat.lastActivity)
        }
        chat.isUnread = chats[channel.id]?.isUnread ?? false
        chat.mentionCount = chats[channel.id]?.mentionCount ?? 0
        guard chats[channel.id] != chat else { return }
        chats[channel.id] = chat
        refreshUnread(channel.id)
        pending.chats.insert(channel.id)
    }

    private mutating func upsert(_ member: Member, into changes: inout Changes) {
        let server = member.id.server
        guard members[server]?[member.id.user] != member else { return }
        members[server, default: [:]][member.id.user] = member
        if members[server]?.count == 1 { staleMembers.insert(server) }
        pending.members[server, default: []].insert(member.id.user)
        pending.deletedMembers[server]?.remove(member.id.user)
        changes.members.insert(server)
    }

    private mutating func removeMember(server: String, user: String, into changes: inout Changes) {
        guard members[server]?.removeValue(forKey: user) != nil else { return }
        pending.members[server]?.remove(user)
        pending.deletedMembers[server, default: []].insert(user)
        changes.members.insert(server)
    }

    private mutating func removeServer(_ id: String, into changes: inout Changes) {
        if servers.removeValue(forKey: id) != nil {
            pending.servers.remove(id)
            pending.deletedServers.insert(id)
        }
        if let list = members.removeValue(forKey: id) {
            pending.members[id] = nil
            pending.deletedMembers[id, default: []].formUnion(list.keys)
            changes.members.insert(id)
        }
        staleMembers.remove(id)
        for channel in channels.values where channel.server == id { removeChannel(channel.id, into: &changes) }
    }

    private mutating func removeChannel(_ id: String, into changes: inout Changes) {
        channels[id] = nil
        if chats.removeValue(forKey: id) != nil {
            pending.chats.remove(id)
            pending.deletedChats.insert(id)
            changes.chats = true
        }
        if let history = histories.removeValue(forKey: id) {
            pending.messages[id] = nil
            pending.deletedMessages[id, default: []].formUnion(history.messages.map(\.id))
            changes.histories.insert(id)
        }
        fetches[id] = nil
        // The store deletes a chat's state with the chat; a chat deleted during its catch-up ends it quietly.
        readStates[id] = nil
        gaps[id] = nil
        catchUpCursors[id] = nil
        readyCursors[id] = nil
        deliveredDuringCatchUp[id] = nil
        unconfirmed[id] = nil
        refusedAcks[id] = nil
        pending.chatStates.remove(id)
    }

    /// The chat a channel is shown as, or `nil` for a channel that is not a conversation (a voice
    /// channel, a kind Lifeline does not know).
    private func chat(for channel: Channel) -> Chat? {
        let name: String
        switch channel.kind {
        case .textChannel, .group:
            name = channel.name ?? channel.id
        case .directMessage:
            let other = channel.recipients?.first { $0 != userID }
            name = other.flatMap { users[$0] }.map(Self.displayName) ?? other ?? channel.id
        case .savedMessages:
            name = "Saved Notes"
        default:
            return nil
        }
        let created = ULID.date(of: channel.id) ?? Date(timeIntervalSince1970: 0)
        let last = channel.lastMessageID.flatMap(ULID.date(of:)) ?? created
        return Chat(
            id: channel.id, kind: channel.kind, name: name, serverID: channel.server,
            lastActivity: max(created, last))
    }

    /// A user's name as Stoat's clients show it: the display name, else the username.
    static func displayName(_ user: User) -> String {
        user.displayName ?? user.username
    }

    /// The newest `limit` of sorted messages.
    static func bounded(_ sorted: [Message], limit: Int) -> [Message] {
        sorted.count > limit ? Array(sorted.suffix(limit)) : sorted
    }

    /// Where a message id belongs in a history sorted by id (ULIDs sort by time).
    static func insertionIndex(of id: String, in messages: [Message]) -> Int {
        var low = 0
        var high = messages.count
        while low < high {
            let middle = (low + high) / 2
            if messages[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// The stages a client runs on `Ready` before CONNECTED, one at a time, for `lifeline bench`'s time-to-connected.
package enum ReadyStages {
    /// Takes `ready` into a new, empty in-memory cache (no store), as a client does before CONNECTED.
    package static func applyToEmptyCache(_ ready: Ready) {
        var cache = AccountCache()
        _ = cache.ready(ready)
    }
}
