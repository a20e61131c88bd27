public import Observation

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// One channel's screen for SwiftUI: its history (with gaps, stale while a reconnect has not refetched it), the
/// older pages, the composer with the user's pending and failed sends, who is typing, and the deadlines that hold
/// the composer back (a slowmode in the channel, a timeout in its server) as dates.
///
/// Made by ``StoatClientModel/channel(_:)``; run it while the screen shows (`.task { await channel.run() }`): the
/// channel is ``StoatClient/open(_:)`` meanwhile, so it is caught up first after every reconnect.
///
/// The history shown is a ``ShownHistory``: the pages ``loadOlder()`` loaded stay shown while the model lives —
/// the cache's bound limits what is stored, not what is shown — with their gaps, their edits and deletions.
@MainActor
@Observable
public final class ChannelModel {
    /// The channel's id.
    public let channelID: String
    /// The messages, oldest first: the cache's newest, and the older pages ``loadOlder()`` fetched.
    public private(set) var messages: [Message]
    /// The holes in the history (``ChannelHistory/gaps``): messages the client knows exist but has not loaded.
    public private(set) var gaps: [HistoryGap]
    /// Whether the history may miss messages no gap records (loaded from the store, or invalidated by a
    /// reconnect and not refetched yet): show it, marked as updating.
    public private(set) var isStale: Bool
    /// Whether an older page is being fetched.
    public private(set) var isLoadingOlder = false
    /// Whether the last older page came back short: the channel's first message is shown.
    public private(set) var reachedStart = false
    /// The stretch around the message last jumped to (``jump(to:)``, ``jumpToFirstUnread()``) while a gap parts
    /// it from the newest messages: its gaps (``HistoryIsland/gapBelow``, ``HistoryIsland/gapAbove``) are rows of
    /// ``gaps`` to draw as "history not loaded here"; ``loadNewer()`` scrolls down from it. `nil` once it joined.
    public private(set) var island: HistoryIsland?
    /// Whether a newer page is being fetched (``loadNewer()``).
    public private(set) var isLoadingNewer = false
    /// The first unread message, where a screen draws its "new messages" divider: the first message shown after
    /// the user's read marker (``StoatClient/lastRead(in:)``) when the model was made, or the one
    /// ``jumpToFirstUnread()`` found; `nil` when nothing shown is unread.
    public private(set) var firstUnread: String?
    /// What the last catch-up found in this channel (``CatchUpReport/chats``), once one fetched it while the model
    /// ran: where a timeline draws "caught up: N messages".
    public private(set) var lastCatchUp: ChatCatchUp?
    /// The user's messages in this channel the server has not confirmed — `queued`, `sending`, `failed` — in
    /// order: shown below the history, a failed one with "resend" and "discard". A send with files lists them
    /// (``OutboxEntry/files``, each with its id once uploaded) and, while one uploads, how far
    /// (``OutboxEntry/progress``).
    public private(set) var pending: [OutboxEntry]
    /// The user's edits, deletions, reactions and unreactions in this channel the server has not confirmed —
    /// `queued`, `sending` or `failed` — in order (``StoatClient/pendingActions(in:)``). Those not failed show at
    /// once on their messages (``pendingEdits``, ``pendingDeletions``, ``displayed(_:)``); a failed one is undone
    /// there and carries the server's reason (``failedActions``), to dismiss with ``discard(_:)``.
    public private(set) var pendingActions: [OutboxEntry]
    /// The users typing now (not the user), by id, in the order they started; ``name(of:)`` names them.
    public private(set) var typing: [String]
    /// The names of users the cache did not know, fetched for ``name(of:)``.
    private var fetchedNames: [String: String] = [:]
    /// Until when a slowmode holds the user's next send back, on the device's clock, while the server says it is
    /// in force (its end is confirmed with the server: the date may pass before the composer opens again).
    public private(set) var slowmodeUntil: Date?
    /// Until when the user is timed out in the channel's server (they may read, not send), while in force.
    public private(set) var timeoutUntil: Date?
    /// The last failure of ``send(_:)``, ``loadOlder()``, ``loadNewer()`` or a jump, for an alert; `nil` once one
    /// succeeds.
    public private(set) var lastError: StoatClientError?
    /// The composer's text as the client holds it.
    private var composerText: String
    /// The composer's text: the channel's draft (``StoatClient/draft(in:)``). Setting it keeps it at once and
    /// in the account's store soon after (``StoatClient/keepDraft(_:in:)``), so it survives a restart; it is
    /// restored at sign-in and cleared when the message is sent (``sendDraft()``, or any send to the channel).
    public var draft: String {
        get { composerText }
        set {
            guard newValue != composerText else { return }
            composerText = newValue
            client.keepDraft(newValue, in: channelID)
        }
    }

    /// Whether the composer may send now: no timeout, no slowmode in force.
    public var canSend: Bool { slowmodeUntil == nil && timeoutUntil == nil }

    /// The client the model follows.
    @ObservationIgnored public let client: StoatClient
    @ObservationIgnored let now: @Sendable () -> Date
    /// The history shown; its values are published to the properties above when they change.
    @ObservationIgnored private var shown: ShownHistory

    init(client: StoatClient, channel: String, now: @escaping @Sendable () -> Date) {
        self.client = client
        channelID = channel
        self.now = now
        let history = client.cachedHistory(of: channel)
        shown = ShownHistory(history)
        messages = shown.messages
        gaps = shown.gaps
        isStale = shown.isStale
        if let marker = client.lastRead(in: channel) {
            firstUnread = history.messages.first { $0.id > marker }?.id
        }
        pending = client.pendingMessages(in: channel)
        pendingActions = client.pendingActions(in: channel)
        composerText = client.draft(in: channel)
        typing = []
        slowmodeUntil = nil
        timeoutUntil = nil
        applyRestrictions(client.restrictions)
    }

    /// Opens the channel and follows its history, the outbox, the deadlines, typing and its draft until the
    /// calling task is cancelled; then closes it.
    public func run() async {
        client.open(channelID)
        defer { client.close(channelID) }
        await withDiscardingTaskGroup { group in
            group.addTask { await self.followHistory() }
            group.addTask { await self.followOutbox() }
            group.addTask { await self.followDeadlines() }
            group.addTask { await self.followTyping() }
            group.addTask { await self.followMessageEvents() }
            group.addTask { await self.followCatchUps() }
            group.addTask { await self.followDraft() }
            // A stale history is refetched once now; after each reconnect the catch-up refreshes it.
            group.addTask { _ = await self.client.history(of: self.channelID) }
        }
    }

    // MARK: - Actions

    /// Sends the ``draft`` through the outbox and clears it; an empty draft sends nothing. A message that could
    /// not be queued (``lastError``) gives its text back to the composer, unless something new was typed: the
    /// stored draft is not lost to a failed send.
    public func sendDraft() async {
        let typed = draft
        let text = typed.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return }
        draft = ""
        await send(text)
        if lastError != nil, draft.isEmpty { draft = typed }
    }

    /// Sends `text` through the outbox: it shows in ``pending`` until the server confirms it, then in
    /// ``messages``. A message the store cannot keep is not queued: ``lastError`` says so.
    ///
    /// - Parameter text: The message's text.
    public func send(_ text: String) async {
        do {
            try await client.send(text, to: channelID)
            if lastError != nil { lastError = nil }
        } catch {
            lastError = error
        }
    }

    /// Sends `text` with files through the outbox (``StoatClient/send(_:files:to:)``): it shows in ``pending``
    /// with its files and their upload's progress until the server confirms it. A file that cannot be read, or a
    /// message the store cannot keep, is not queued: ``lastError`` says so.
    ///
    /// - Parameters:
    ///   - text: The message's text; empty for files alone.
    ///   - files: The files to upload and attach.
    public func send(_ text: String, files: [OutgoingFile]) async {
        do {
            try await client.send(OutgoingMessage(content: text.isEmpty ? nil : text), files: files, to: channelID)
            if lastError != nil { lastError = nil }
        } catch {
            lastError = error
        }
    }

    /// Sends a failed message again (``StoatClient/resend(_:)``).
    ///
    /// - Parameter entry: The failed entry.
    public func resend(_ entry: OutboxEntry) {
        do { try client.resend(entry.nonce) } catch { lastError = error }
    }

    /// Drops a queued or failed message (``StoatClient/discard(_:)``): the user's word.
    ///
    /// - Parameter entry: The entry.
    public func discard(_ entry: OutboxEntry) {
        do { try client.discard(entry.nonce) } catch { lastError = error }
    }

    // MARK: - Acting on messages

    /// Edits a message the user sent (``StoatClient/edit(_:in:to:)``): its new text shows at once
    /// (``pendingEdits``, ``displayed(_:)``) until the server confirms it, or is undone if it refuses.
    ///
    /// - Parameters:
    ///   - message: The message's id.
    ///   - text: The new text.
    public func edit(_ message: String, to text: String) async {
        await act { client throws(StoatClientError) in try await client.edit(message, in: self.channelID, to: text) }
    }

    /// Deletes a message (``StoatClient/delete(_:in:)``): the user's own, or another's with `ManageMessages`.
    /// It shows as being deleted at once (``pendingDeletions``).
    ///
    /// - Parameter message: The message's id.
    public func delete(_ message: String) async {
        await act { client throws(StoatClientError) in try await client.delete(message, in: self.channelID) }
    }

    /// Reacts to a message (``StoatClient/react(to:in:with:)``): the reaction shows at once, marked pending
    /// (``pendingReactions``, ``displayed(_:)``).
    ///
    /// - Parameters:
    ///   - message: The message's id.
    ///   - emoji: The emoji.
    public func react(to message: String, with emoji: String) async {
        await act { client throws(StoatClientError) in
            try await client.react(to: message, in: self.channelID, with: emoji)
        }
    }

    /// Takes the user's reaction back (``StoatClient/unreact(to:in:with:)``): it leaves the message at once.
    ///
    /// - Parameters:
    ///   - message: The message's id.
    ///   - emoji: The emoji.
    public func unreact(to message: String, with emoji: String) async {
        await act { client throws(StoatClientError) in
            try await client.unreact(to: message, in: self.channelID, with: emoji)
        }
    }

    private func act(_ body: (StoatClient) async throws(StoatClientError) -> OutboxEntry) async {
        do {
            _ = try await body(client)
            if lastError != nil { lastError = nil }
        } catch {
            lastError = error
        }
    }

    /// The actions in force: not failed, in order.
    private var actionsInForce: [OutboxEntry] {
        pendingActions.filter { if case .failed = $0.state { false } else { true } }
    }

    /// The new text of each message with an edit not confirmed yet (the newest edit of each), by message id.
    public var pendingEdits: [String: String] {
        var edits: [String: String] = [:]
        for entry in actionsInForce where entry.kind == .edit {
            if let target = entry.target, let text = entry.message.content { edits[target] = text }
        }
        return edits
    }

    /// The messages being deleted: a deletion not confirmed yet. Show them struck out, or hide them.
    public var pendingDeletions: Set<String> {
        Set(actionsInForce.filter { $0.kind == .delete }.compactMap(\.target))
    }

    /// The reactions and unreactions not confirmed yet, in order: each one's ``OutboxEntry/target``,
    /// ``OutboxEntry/emoji`` and ``OutboxEntry/kind``, to mark the emoji pending.
    public var pendingReactions: [OutboxEntry] {
        actionsInForce.filter { $0.kind == .react || $0.kind == .unreact }
    }

    /// The actions the server refused, with its reason (``OutboxEntry/State/failed(_:)``): already undone on
    /// their messages; ``discard(_:)`` dismisses one, ``resend(_:)`` tries it again.
    public var failedActions: [OutboxEntry] {
        pendingActions.filter { if case .failed = $0.state { true } else { false } }
    }

    /// A message as the screen shows it: with its pending edit's text, and the user's pending reactions added or
    /// taken back (the user being ``StoatClient/currentUser``). Whether it is being deleted is
    /// ``pendingDeletions``.
    ///
    /// - Parameter message: A message of ``messages``.
    /// - Returns: The message with the user's actions not yet confirmed applied.
    public func displayed(_ message: Message) -> Message {
        var shown = message
        let user = client.currentUser?.id
        for entry in actionsInForce where entry.target == message.id {
            switch entry.kind {
            case .send, .delete:
                break
            case .edit:
                if let text = entry.message.content { shown.content = text }
            case .react, .unreact:
                guard let emoji = entry.emoji, let user else { continue }
                var users = shown.reactions?[emoji] ?? []
                users.removeAll { $0 == user }
                if entry.kind == .react { users.append(user) }
                var reactions = shown.reactions ?? [:]
                reactions[emoji] = users.isEmpty ? nil : users
                shown.reactions = reactions
            }
        }
        return shown
    }

    /// Loads the page before the oldest message shown — before the newest gap first, when there is one — and
    /// shows it (``StoatClient/history(of:before:limit:)``, ``ShownHistory/olderPage(_:before:limit:)``).
    public func loadOlder() async {
        guard !isLoadingOlder, let before = shown.nextPage else { return }
        isLoadingOlder = true
        defer { isLoadingOlder = false }
        do {
            let page = try await client.history(of: channelID, before: before, limit: 50)
            shown.olderPage(page.messages, before: before, limit: 50)
            publish()
            if lastError != nil { lastError = nil }
        } catch {
            lastError = error
        }
    }

    // MARK: - Jumping

    /// Jumps to `message` (a reply, a pinned message, a link): the page around it joins the shown history as an
    /// ``island``, with a gap on each side where it does not reach what is shown
    /// (``StoatClient/history(of:around:limit:)``, ``ShownHistory/insert(_:)``). A message arriving meanwhile joins
    /// the newest messages, not the island.
    ///
    /// - Parameter message: The message's id.
    public func jump(to message: String) async {
        await fetchPage { client, channel throws(StoatClientError) in
            try await client.history(of: channel, around: message, limit: 50)
        }
    }

    /// Jumps to the first unread message (``StoatClient/historyAtFirstUnread(of:limit:)``) and sets
    /// ``firstUnread``; with nothing unread, to the newest messages.
    public func jumpToFirstUnread() async {
        let page = await fetchPage { client, channel throws(StoatClientError) in
            try await client.historyAtFirstUnread(of: channel, limit: 50)
        }
        if let page, page.target != firstUnread { firstUnread = page.target }
    }

    /// Loads the page after the ``island`` (scrolling down from a jump): it fills the gap above the island from
    /// below, until the island joins the newest messages (``StoatClient/history(of:after:limit:)``).
    public func loadNewer() async {
        guard !isLoadingNewer, let after = shown.nextNewerPage else { return }
        isLoadingNewer = true
        defer { isLoadingNewer = false }
        await fetchPage { client, channel throws(StoatClientError) in
            try await client.history(of: channel, after: after, limit: 50)
        }
    }

    /// Fetches a page and shows it; `nil` when it failed (``lastError``).
    @discardableResult
    private func fetchPage(
        _ body: (StoatClient, String) async throws(StoatClientError) -> HistoryPage
    ) async -> HistoryPage? {
        do {
            let page = try await body(client, channelID)
            shown.insert(page)
            publish()
            if lastError != nil { lastError = nil }
            return page
        } catch {
            lastError = error
            return nil
        }
    }

    /// Assigns what changed in the shown history, and only that.
    private func publish() {
        if shown.messages != messages { messages = shown.messages }
        if shown.gaps != gaps { gaps = shown.gaps }
        if shown.isStale != isStale { isStale = shown.isStale }
        if shown.reachedStart != reachedStart { reachedStart = shown.reachedStart }
        let island = shown.island
        if island != self.island { self.island = island }
    }

    /// The name to show for a message's author, from what the client knows without asking: the masquerade, the
    /// nickname in the channel's server, the user's display name or username, else the id
    /// (``StoatClient/authorName(of:)`` fetches unknown users).
    ///
    /// - Parameter message: The message.
    public func authorName(of message: Message) -> String {
        client.knownName(of: message.author, message: message, channel: channelID)
    }

    /// The name to show for a user typing.
    ///
    /// - Parameter user: The user's id.
    public func name(of user: String) -> String {
        let known = client.knownName(of: user, message: nil, channel: channelID)
        return known == user ? fetchedNames[user] ?? user : known
    }

    // MARK: - Following the client

    private func followHistory() async {
        for await history in client.historyUpdates(of: channelID) {
            // Older pages the cache does not keep stay shown.
            shown.update(history)
            publish()
            // A user whose message arrived has stopped typing.
            let authors = Set(history.messages.suffix(5).map(\.author))
            if typing.contains(where: authors.contains) { typing.removeAll(where: authors.contains) }
        }
    }

    /// Edits and deletions of the messages shown below the cache's range.
    private func followMessageEvents() async {
        while !Task.isCancelled {
            do {
                for try await event in client.messages where event.channel == channelID {
                    shown.apply(event)
                    publish()
                }
                return
            } catch {
                // The observer fell behind: the cache's range is whole; older shown pages may keep a stale copy.
                continue
            }
        }
    }

    private func followCatchUps() async {
        for await report in client.catchUps {
            if let found = report.chats[channelID], found != lastCatchUp { lastCatchUp = found }
        }
    }

    private func followOutbox() async {
        for await outbox in client.outboxUpdates {
            let mine = outbox.filter { $0.channel == channelID && $0.kind == .send }
            if mine != pending { pending = mine }
            let actions = outbox.filter { $0.channel == channelID && $0.kind != .send }
            if actions != pendingActions { pendingActions = actions }
        }
    }

    private func followDraft() async {
        for await drafts in client.draftUpdates {
            let text = drafts[channelID] ?? ""
            if text != composerText { composerText = text }
        }
    }

    private func followDeadlines() async {
        for await restrictions in client.restrictionUpdates {
            applyRestrictions(restrictions)
        }
    }

    private func applyRestrictions(_ restrictions: [StoatRestriction]) {
        let clockNow = client.restrictionClockNow
        let wallNow = now()
        func date(_ deadline: StoatRestriction?) -> Date? {
            guard let deadline else { return nil }
            let (seconds, attoseconds) = max(.zero, deadline.deadline - clockNow).components
            return wallNow.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
        }
        let slowmode = restrictions.first { $0.id == StoatRestriction.ID(.slowmode, channelID) }
        let server = client.server(ofChannel: channelID)
        let timeout = server.flatMap { server in restrictions.first { $0.id == StoatRestriction.ID(.timeout, server) } }
        // A deadline restated keeps its date unless its own deadline moved.
        if (slowmode == nil) != (slowmodeUntil == nil) || slowmode.map({ $0 != lastSlowmode }) == true {
            slowmodeUntil = date(slowmode)
        }
        if (timeout == nil) != (timeoutUntil == nil) || timeout.map({ $0 != lastTimeout }) == true {
            timeoutUntil = date(timeout)
        }
        lastSlowmode = slowmode
        lastTimeout = timeout
    }

    @ObservationIgnored private var lastSlowmode: StoatRestriction?
    @ObservationIgnored private var lastTimeout: StoatRestriction?

    private func followTyping() async {
        do {
            for try await event in client.events {
                switch event {
                case .channelStartTyping(let channel, let user) where channel == channelID:
                    guard user != client.currentUser?.id, !typing.contains(user) else { continue }
                    typing.append(user)
                    // Someone the cache does not know: fetched once (StoatClient.fetchUser), named when it comes.
                    if name(of: user) == user, let fetched = try? await client.fetchUser(user) {
                        fetchedNames[user] = fetched.displayName ?? fetched.username
                    }
                case .channelStopTyping(let channel, let user) where channel == channelID:
                    if typing.contains(user) { typing.removeAll { $0 == user } }
                default:
                    continue
                }
            }
        } catch {
            // The observer fell behind (the cache did not): typing restarts empty.
            if !typing.isEmpty { typing = [] }
        }
    }
}

extension StoatClient {
    /// The server a channel belongs to, if the cache knows the channel and it is a server's.
    func server(ofChannel channel: String) -> String? {
        cache.read { $0.channels[channel]?.server }
    }

    /// A user's name from what the cache knows: a message's masquerade or webhook, the nickname in the channel's
    /// server, the display name, the username, else the id.
    func knownName(of user: String, message: Message?, channel: String) -> String {
        if let name = message?.masquerade?.name { return name }
        if let webhook = message?.webhook { return webhook.name }
        if let nickname = message?.member?.nickname { return nickname }
        return cache.read { cache -> String? in
            if let server = cache.channels[channel]?.server, let nickname = cache.members[server]?[user]?.nickname {
                return nickname
            }
            let known = message?.user ?? cache.users[user]
            return known.map { $0.displayName ?? $0.username }
        } ?? userDirectory.withLock { $0.user(user) }.map { $0.displayName ?? $0.username } ?? user
    }
}
