/// The account cache's read states, gaps and catch-up bookkeeping: pure, like the rest of ``AccountCache``.
extension AccountCache {
    /// What the store keeps of a chat besides its messages.
    package struct ChatState: Sendable, Hashable {
        package var chatID: String
        package var readState: ReadState
        package var gaps: [HistoryGap]
        package var catchUpCursor: String?

        package init(chatID: String, readState: ReadState, gaps: [HistoryGap], catchUpCursor: String?) {
            self.chatID = chatID
            self.readState = readState
            self.gaps = gaps
            self.catchUpCursor = catchUpCursor
        }
    }

    // MARK: - Messages known on their own

    /// Messages of a channel known one by one above the history known whole (``AccountCache/unconfirmed``).
    struct Unconfirmed: Sendable, Hashable {
        /// Where the history was whole before the first of them.
        var floor: CatchUpPlan.Cursor
        /// Their ids: the socket's echo of any of them proves the socket delivered what came before it.
        var messages: Set<String>

        /// The newest message the history was whole up to, if it held one.
        var floorMessage: String? {
            if case .message(let id) = floor { return id }
            return nil
        }

        /// The id pages start after to cover everything above the floor: the floor's message, or from below the
        /// channel's creation for a channel known to have had none; nil when the history was never held.
        var floorID: String? {
            switch floor {
            case .message(let id): id
            case .start(let channel): ULID.floor(of: channel) ?? CatchUpPlan.smallestULID
            case .unknown: nil
            }
        }
    }

    /// A message known on its own — a post's answer, the outbox's look-up — is not evidence that the history is
    /// whole up to it: a message posted before it may never have reached the client (a deaf socket delivers
    /// nothing, and the user's own send would hide the hole). Above everything the history holds, it is noted with
    /// where the history was whole before it; the next catch-up starts there (also after a restart: the chat's
    /// stored cursor), a page that reaches down to it, or the socket's echo of it, settles it. While a catch-up is
    /// planned or under way, its own cursor already lies below.
    mutating func noteAlone(_ message: Message) {
        let channel = message.channel
        if var entry = unconfirmed[channel] {
            entry.messages.insert(message.id)
            unconfirmed[channel] = entry
            return
        }
        guard !awaitingCatchUp, catchUpCursors[channel] == nil else { return }
        let floor = wholeCursor(of: channel)
        if case .message(let newest) = floor, newest >= message.id { return }
        unconfirmed[channel] = Unconfirmed(floor: floor, messages: [message.id])
        pending.chatStates.insert(channel)
    }

    /// The socket delivered `message`: one known on its own is settled — the socket delivered what came before it.
    mutating func confirmLive(_ message: Message) {
        guard var entry = unconfirmed[message.channel], entry.messages.remove(message.id) != nil else { return }
        unconfirmed[message.channel] = entry.messages.isEmpty ? nil : entry
        pending.chatStates.insert(message.channel)
    }

    /// A page covered `channel` from below the floor up to `through` (nil: an empty page, up to the present): the
    /// messages known on their own up to there are settled.
    mutating func confirmPage(_ channel: String, through: String?) {
        guard var entry = unconfirmed[channel] else { return }
        if let through {
            entry.messages = entry.messages.filter { $0 > through }
            entry.floor = .message(max(through, entry.floorMessage ?? through))
        } else {
            entry.messages = []
        }
        unconfirmed[channel] = entry.messages.isEmpty ? nil : entry
        pending.chatStates.insert(channel)
    }

    /// What a chat's history is known whole up to, from what the cache holds: its newest message; a channel known
    /// to have none (`last_message_id` absent, or an empty history known whole) from its start; else unknown.
    func wholeCursor(of id: String) -> CatchUpPlan.Cursor {
        if let newest = [histories[id]?.messages.last?.id, chats[id]?.lastMessage?.id].compactMap({ $0 }).max() {
            return .message(newest)
        }
        if knownWhole.contains(id) || (channels[id].map { $0.lastMessageID == nil } ?? false) { return .start(id) }
        return .unknown
    }

    // MARK: - Catch-up

    /// `Ready` came: notes what each chat's history was known whole up to before this connection, and the
    /// newest message the cache knew; live messages are noted from now until the plan is made. A chat holding
    /// messages known on their own is whole only up to below them (``noteAlone(_:)``).
    mutating func noteCatchUpStart() {
        deliveryBaseline = newestKnownMessage ?? deliveryBaseline
        readyCursors = [:]
        for (id, chat) in chats {
            if let entry = unconfirmed[id] {
                if entry.floor != .unknown { readyCursors[id] = entry.floor }
            } else if let newest = [histories[id]?.messages.last?.id, chat.lastMessage?.id].compactMap({ $0 }).max() {
                readyCursors[id] = .message(newest)
            } else if let channel = channels[id], channel.lastMessageID == nil {
                readyCursors[id] = .start(id)
            }
        }
        // What was delivered live since an interrupted catch-up's cursor stays: its pages come again.
        deliveredDuringCatchUp = deliveredDuringCatchUp.filter { catchUpCursors[$0.key] != nil }
        settleCursors = [:]
        awaitingCatchUp = true
    }

    /// The newest message id the cache holds anywhere (of a chat with messages known on their own, what its
    /// history was whole up to).
    private var newestKnownMessage: String? {
        var newest: String?
        func note(_ id: String?) {
            if let id, newest.map({ id > $0 }) ?? true { newest = id }
        }
        for chat in chats.values where unconfirmed[chat.id] == nil { note(chat.lastMessage?.id) }
        for (id, history) in histories where unconfirmed[id] == nil { note(history.messages.last?.id) }
        for entry in unconfirmed.values { note(entry.floorMessage) }
        return newest
    }

    /// Makes this connection's catch-up plan: each chat's cursor is where a stored catch-up stopped, else what
    /// the cache knew when `Ready` came. The chats to fetch get a stored cursor, so that a drop before their turn
    /// resumes there; the others keep a stale history, refetched when opened.
    mutating func planCatchUp(open: Set<String>, policy: CatchUpPolicy) -> (CatchUpPlan, Changes) {
        var inputs: [CatchUpPlan.Chat] = []
        inputs.reserveCapacity(chats.count)
        for (id, chat) in chats {
            let cursor = catchUpCursors[id].map(CatchUpPlan.Cursor.message) ?? readyCursors[id] ?? .unknown
            // What the cache holds is on the server too: a cursor below it (an interrupted catch-up, messages known
            // on their own) has something newer to fetch, whatever a lagging `last_message_id` says.
            let serverLast = [channels[id]?.lastMessageID, histories[id]?.messages.last?.id, chat.lastMessage?.id]
                .compactMap { $0 }.max()
            inputs.append(
                CatchUpPlan.Chat(
                    id: id, serverLast: serverLast, cursor: cursor, isOpen: open.contains(id),
                    lastActivity: chat.lastActivity))
        }
        let plan = CatchUpPlan(chats: inputs, policy: policy)
        let changes = Changes()
        let trusted = Dictionary(inputs.map { ($0.id, $0.cursor) }, uniquingKeysWith: { $1 })
        for id in plan.wholeWithoutFetch {
            // Nothing newer by `last_message_id` — which stoatchat commits about 6 s late, 31 s for a busy channel:
            // a message posted just before `Ready` may not show in it. The second pass looks again once it has
            // settled (``planSettle(_:policy:)``); until then the history stays stale.
            settleCursors[id] = trusted[id]
            deliveredDuringCatchUp[id] = nil
            if catchUpCursors.removeValue(forKey: id) != nil { pending.chatStates.insert(id) }
        }
        let cursors = Dictionary(inputs.map { ($0.id, $0.cursor) }, uniquingKeysWith: { $1 })
        for id in plan.order {
            if case .message(let cursor) = cursors[id], catchUpCursors[id] != cursor {
                catchUpCursors[id] = cursor
                pending.chatStates.insert(id)
            }
        }
        let planned = Set(plan.order)
        deliveredDuringCatchUp = deliveredDuringCatchUp.filter { planned.contains($0.key) }
        // The plan starts each chat below its messages known on their own, and keeps its cursor till it is done.
        for id in planned.union(plan.wholeWithoutFetch) where unconfirmed.removeValue(forKey: id) != nil {
            pending.chatStates.insert(id)
        }
        awaitingCatchUp = false
        readyCursors = [:]
        return (plan, changes)
    }

    /// The second pass: `channels` are the chats as the server stores them now (`GET /servers/{id}?include_channels`,
    /// `GET /users/dms`), their `last_message_id` committed since `Ready`. Each chat the first pass knew whole
    /// without a request is planned again from the cursor it trusted, against the field as it is now; those with
    /// nothing newer need no request (no re-verification: the first pass did that for the open and first-screen
    /// chats).
    mutating func planSettle(_ refreshed: [Channel], policy: CatchUpPolicy) -> (CatchUpPlan, Changes) {
        var changes = Changes()
        for channel in refreshed {
            guard var known = channels[channel.id], let last = channel.lastMessageID,
                known.lastMessageID.map({ $0 < last }) ?? true
            else { continue }
            known.lastMessageID = last
            upsert(known)
            changes.chats = true
        }
        var inputs: [CatchUpPlan.Chat] = []
        for (id, cursor) in settleCursors {
            guard let chat = chats[id] else { continue }
            inputs.append(
                CatchUpPlan.Chat(
                    id: id, serverLast: channels[id]?.lastMessageID, cursor: cursor, isOpen: false,
                    lastActivity: chat.lastActivity))
        }
        var second = policy
        second.firstScreen = 0
        let plan = CatchUpPlan(chats: inputs, policy: second)
        let cursors = Dictionary(inputs.map { ($0.id, $0.cursor) }, uniquingKeysWith: { $1 })
        for id in plan.order {
            if case .message(let cursor) = cursors[id], catchUpCursors[id] != cursor {
                catchUpCursors[id] = cursor
                pending.chatStates.insert(id)
            }
        }
        let planned = Set(plan.order)
        for id in cursors.keys where !planned.contains(id) { deliveredDuringCatchUp[id] = nil }
        settleCursors = [:]
        return (plan, changes)
    }

    /// A chat's history is whole in this generation: fresh, and fresh when read from the store later. An empty
    /// chat gets an empty fresh history, which its next live message joins (without one, that message would
    /// start a stale history).
    private mutating func markWhole(_ id: String, into changes: inout Changes) {
        knownWhole.insert(id)
        deliveredDuringCatchUp[id] = nil
        if histories[id] == nil {
            histories[id] = ChannelHistory(channelID: id, isStale: false)
            changes.histories.insert(id)
        } else if histories[id]?.isStale == true {
            histories[id]?.isStale = false
            changes.histories.insert(id)
        }
    }

    /// Applies what a catch-up page means (``CatchUpPlan/Outcome``): cached messages it proves deleted leave,
    /// edited ones are taken (each reported once to ``StoatClient/messages``), new ones join the history and
    /// reach the stream as caught up — unless they were delivered live meanwhile — the gap it leaves is
    /// recorded and the gaps it covers shrink, and the chat's cursor moves on (or goes, once it is done).
    ///
    /// A page of an earlier generation (a reconnect happened since it was asked) or of a chat deleted meanwhile
    /// changes nothing.
    mutating func applyCatchUp(_ outcome: CatchUpPlan.Outcome, fetch token: Int?, generation asked: UInt64) -> Changes {
        let channel = outcome.chat
        let fetch = endFetch(token, channel: channel)
        var changes = Changes()
        guard asked == generation, chats[channel] != nil || channels[channel] != nil else { return changes }
        let copies = merged(outcome.verified + outcome.added, channel: channel, fetch: fetch)
        for id in outcome.deleted where !fetch.arrived.contains(id) {
            guard histories[channel]?.messages.contains(where: { $0.id == id }) == true else { continue }
            delete(message: id, channel: channel, into: &changes)
            changes.messageEvents.append(.deleted(id: id, channel: channel, origin: .caughtUp))
        }
        for message in outcome.verified {
            guard let copy = copies[message.id], !fetch.arrived.contains(message.id),
                let cached = histories[channel]?.messages.first(where: { $0.id == message.id }), cached != copy
            else { continue }
            insert(copy, origin: .caughtUp, deliver: false, into: &changes)
            if cached.content != copy.content || cached.edited != copy.edited {
                changes.messageEvents.append(
                    .updated(
                        MessageChange(
                            id: copy.id, channel: channel,
                            data: PartialMessage(content: copy.content, edited: copy.edited),
                            message: copy, origin: .caughtUp)))
            }
        }
        for message in outcome.added {
            guard let copy = copies[message.id] else { continue }
            let deliver = !outcome.fromUnknownCursor || deliveryBaseline.map { copy.id > $0 } ?? false
            insert(copy, origin: .caughtUp, deliver: deliver, into: &changes)
        }
        // The newest message, before the pages below it: the chat shows it at once.
        if let preview = outcome.preview { noteLastMessage(preview, into: &changes) }
        cover(channel, from: outcome.from, through: outcome.through)
        if let gap = outcome.gap { addGap(gap, channel: channel) }
        trimGaps(channel)
        if catchUpCursors[channel] != outcome.cursor {
            catchUpCursors[channel] = outcome.cursor
            pending.chatStates.insert(channel)
        }
        if outcome.isDone, fetch.generation == generation { markWhole(channel, into: &changes) }
        return changes
    }

    /// A chat's catch-up was given up for this connection: what it delivered meanwhile is forgotten with it
    /// once the cursor is gone; the cursor stays for the next CONNECTED.
    mutating func catchUpAbandoned(_ channel: String, fetch token: Int?) {
        _ = endFetch(token, channel: channel)
    }

    /// Notes a message delivered to ``StoatClient/messages`` while its chat's catch-up is planned or under way.
    mutating func noteDelivered(_ message: Message, channel: String) {
        guard awaitingCatchUp || catchUpCursors[channel] != nil || settleCursors[channel] != nil else { return }
        deliveredDuringCatchUp[channel, default: []].insert(message.id)
    }

    // MARK: - Gaps

    /// Records a hole in a channel's history (merging with one it overlaps).
    mutating func addGap(_ gap: HistoryGap, channel: String) {
        guard gap.after < gap.before else { return }
        var list = gaps[channel] ?? []
        var merged = gap
        list.removeAll { other in
            guard other.after < merged.before, merged.after < other.before else { return false }
            merged = HistoryGap(after: min(other.after, merged.after), before: max(other.before, merged.before))
            return true
        }
        list.append(merged)
        gaps[channel] = list.sorted { $0.after < $1.after }
        pending.chatStates.insert(channel)
    }

    /// A page covered the ids above `from` (exclusive; nil from the start) up to `through` (inclusive; nil to
    /// the present): the gaps shrink by it, and those it covers whole are filled.
    mutating func cover(_ channel: String, from: String?, through: String?) {
        guard let list = gaps[channel], !list.isEmpty else { return }
        let cleaned = HistoryGap.remaining(of: list, coveredFrom: from, through: through)
        guard cleaned != list else { return }
        gaps[channel] = cleaned.isEmpty ? nil : cleaned.sorted { $0.after < $1.after }
        pending.chatStates.insert(channel)
    }

    /// Forgets the gaps below a full history's oldest message: older history is not a gap.
    mutating func trimGaps(_ channel: String) {
        guard let list = gaps[channel], let history = histories[channel], history.messages.count >= historyLimit,
            let oldest = history.messages.first?.id
        else { return }
        let kept = list.filter { $0.before >= oldest }
        guard kept.count != list.count else { return }
        gaps[channel] = kept.isEmpty ? nil : kept
        pending.chatStates.insert(channel)
    }

    /// How many gaps the cache records in all.
    var gapCount: Int { gaps.values.reduce(0) { $0 + $1.count } }

    // MARK: - Read state

    /// `GET /sync/unreads` (or `Ready`'s `channel_unreads`) answered: each listed channel's marker moves forward
    /// to the server's (never back: the server's acknowledgements are debounced), and its mentions are the
    /// server's and those seen since, above the marker. Channels the answer does not list keep their state.
    mutating func unreadsFetched(_ unreads: [ChannelUnread]) {
        for unread in unreads {
            let channel = unread.id.channel
            if let userID, unread.id.user != userID { continue }
            var state = readStates[channel] ?? ReadState()
            if let last = unread.lastID, state.lastRead.map({ $0 < last }) ?? true { state.lastRead = last }
            var mentions = state.mentions
            // The user's own `@everyone` is in their own read state too (pushd adds it for every member).
            for id in unread.mentions where !mentions.contains(id) && !isOwnMessage(id, in: channel) {
                mentions.append(id)
            }
            state.mentions = mentions.filter { id in state.lastRead.map { id > $0 } ?? true }.sorted()
            setReadState(state, channel: channel)
        }
    }

    /// Whether the cache holds `id` in `channel` as a message of the signed-in user.
    private func isOwnMessage(_ id: String, in channel: String) -> Bool {
        guard let userID else { return false }
        if let last = chats[channel]?.lastMessage, last.id == id { return last.author == userID }
        guard let messages = histories[channel]?.messages else { return false }
        let index = Self.insertionIndex(of: id, in: messages)
        return index < messages.count && messages[index].id == id && messages[index].author == userID
    }

    /// The user acknowledged `message` in `channel`, here or on another device (`ChannelAck`).
    mutating func acknowledged(channel: String, message: String, into changes: inout Changes) {
        var state = readStates[channel] ?? ReadState()
        if state.lastRead.map({ $0 < message }) ?? true { state.lastRead = message }
        state.mentions.removeAll { $0 <= message }
        if setReadState(state, channel: channel) { changes.chats = true }
    }

    /// The server refused the user's acknowledgements of `channel` up to `upTo`: the read state goes back to
    /// `restore` (with the mentions seen since), unless the marker moved past `upTo` meanwhile — another device's
    /// `ChannelAck`, or the server's read states — which stays.
    mutating func ackRefused(channel: String, upTo: String, restore: ReadState, into changes: inout Changes) {
        // Its `ChannelAck` may still be on its way: it went out before the write failed.
        refusedAcks[channel] = upTo
        let current = readStates[channel] ?? ReadState()
        guard current.lastRead.map({ $0 <= upTo }) ?? true else { return }
        var state = restore
        for id in current.mentions where !state.mentions.contains(id) { state.mentions.append(id) }
        state.mentions = state.mentions.filter { id in state.lastRead.map { id > $0 } ?? true }.sorted()
        if setReadState(state, channel: channel) { changes.chats = true }
    }

    /// The read state of `channel` (the last message acknowledged, the mentions above it).
    func readState(of channel: String) -> ReadState {
        readStates[channel] ?? ReadState()
    }

    /// Sets a channel's read state; whether its chat's unread state changed.
    @discardableResult
    private mutating func setReadState(_ state: ReadState, channel: String) -> Bool {
        guard readStates[channel] != state else { return false }
        readStates[channel] = state
        pending.chatStates.insert(channel)
        return refreshUnread(channel)
    }

    /// A message the user had not seen counts as a mention when it is not the user's own, not silent
    /// (``MessageFlags/suppressNotifications``), newer than the marker, and in a direct message or a group, or it
    /// mentions the user (``mentionsViewer(_:)``).
    mutating func noteMention(_ message: Message) {
        guard let userID, message.author != userID, !message.flags.contains(.suppressNotifications) else { return }
        let kind = channels[message.channel]?.kind ?? chats[message.channel]?.kind
        guard kind == .directMessage || kind == .group || mentionsViewer(message) else { return }
        var state = readStates[message.channel] ?? ReadState()
        guard state.lastRead.map({ message.id > $0 }) ?? true, !state.mentions.contains(message.id) else { return }
        state.mentions.append(message.id)
        state.mentions.sort()
        setReadState(state, channel: message.channel)
    }

    /// Whether a message mentions the signed-in user: by name (`mentions`), everyone (``MessageFlags/mentionsEveryone``),
    /// everyone online (``MessageFlags/mentionsOnline``: a message that reaches the client reaches it online), or a
    /// role the user's membership of the channel's server holds (`role_mentions`, the roles from `Ready`'s members
    /// and `ServerMemberUpdate`). stoatchat's own read state (`GET /sync/unreads`) records only the names and
    /// `@everyone` (pushd's mass-mention consumer); the rest is counted here, live, and kept with the chat's state.
    func mentionsViewer(_ message: Message) -> Bool {
        guard let userID else { return false }
        if (message.mentions ?? []).contains(userID) { return true }
        if !message.flags.isDisjoint(with: [.mentionsEveryone, .mentionsOnline]) { return true }
        guard let mentioned = message.roleMentions, !mentioned.isEmpty,
            let server = channels[message.channel]?.server,
            let held = members[server]?[userID]?.roles
        else { return false }
        return mentioned.contains(where: held.contains)
    }

    /// Recomputes a chat's unread flag and mention count; whether they changed.
    @discardableResult
    mutating func refreshUnread(_ channel: String) -> Bool {
        guard var chat = chats[channel] else { return false }
        let state = readStates[channel] ?? ReadState()
        let last = [channels[channel]?.lastMessageID, chat.lastMessage?.id].compactMap { $0 }.max()
        var unread = false
        if let last, chat.kind != .savedMessages, state.lastRead.map({ $0 < last }) ?? true {
            // The user's own last message is read.
            unread = !(chat.lastMessage?.id == last && chat.lastMessage?.author == userID && userID != nil)
        }
        let mentions = state.mentions.filter { id in state.lastRead.map { id > $0 } ?? true }.count
        guard chat.isUnread != unread || chat.mentionCount != mentions else { return false }
        chat.isUnread = unread
        chat.mentionCount = mentions
        chats[channel] = chat
        return true
    }

    /// The newest message the cache knows in `channel` (for an acknowledgement).
    func newestMessage(in channel: String) -> String? {
        [histories[channel]?.messages.last?.id, chats[channel]?.lastMessage?.id, channels[channel]?.lastMessageID]
            .compactMap { $0 }.max()
    }

    // MARK: - The store

    /// What the store keeps of a chat besides its messages; nil when there is nothing to keep. Messages known on
    /// their own are kept as the catch-up cursor below them, so a restart catches up from there.
    func chatState(_ channel: String) -> ChatState? {
        let state = ChatState(
            chatID: channel, readState: readStates[channel] ?? ReadState(), gaps: gaps[channel] ?? [],
            catchUpCursor: catchUpCursors[channel] ?? unconfirmed[channel]?.floorID)
        let empty = state.readState == ReadState() && state.gaps.isEmpty && state.catchUpCursor == nil
        return empty ? nil : state
    }

    /// Chat states read from the store: read markers and mentions merge with what the cache has (markers
    /// never move back); gaps and cursors are taken where the cache has none.
    mutating func loadStored(states stored: [ChatState]) -> Changes {
        var changes = Changes()
        for state in stored {
            let channel = state.chatID
            var read = readStates[channel] ?? ReadState()
            if let last = state.readState.lastRead, read.lastRead.map({ $0 < last }) ?? true { read.lastRead = last }
            for id in state.readState.mentions where !read.mentions.contains(id) { read.mentions.append(id) }
            read.mentions = read.mentions.filter { id in read.lastRead.map { id > $0 } ?? true }.sorted()
            if readStates[channel] != read {
                readStates[channel] = read
                if refreshUnread(channel) { changes.chats = true }
            }
            if gaps[channel] == nil, !state.gaps.isEmpty {
                gaps[channel] = state.gaps
                changes.histories.insert(channel)
            }
            if catchUpCursors[channel] == nil, let cursor = state.catchUpCursor { catchUpCursors[channel] = cursor }
        }
        return changes
    }
}
