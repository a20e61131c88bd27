public import LifelineStoatStore
import LifelineTerminal

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The keys and the models' changes of `lifeline chat` as a pure reducer: `(state, event) -> (state, effects)`.
///
/// Printable keys always type (into the composer, or the focused field); every command is a Ctrl, Alt or
/// function key; Ctrl-C and Ctrl-Q quit from every screen. `?` in an empty composer opens the help. After every
/// event the open channel is acknowledged once its newest message has been on screen.
public enum ChatReducer {
    /// How long a sent typing indicator lasts before another is sent while the user keeps typing.
    static let typingInterval: TimeInterval = 3

    /// Applies an event to the state and returns what the program must do.
    public static func reduce(_ state: inout ChatState, _ event: ChatEvent) -> [ChatEffect] {
        var effects: [ChatEffect] = []
        switch event {
        case .key(let key):
            if key == .control("c") || key == .control("q") { return [.quit] }
            state.firstChatIsProvisional = false
            if state.mode == .demo, let fault = DemoFault.allCases.first(where: { $0.key == key }) {
                return [.fault(fault)]
            }
            effects = keyPressed(key, &state)
        case .paste(let text):
            state.firstChatIsProvisional = false
            effects = pasted(text, &state)
        case .mouse(let mouse):
            state.firstChatIsProvisional = false
            switch mouse.action {
            case .press(.left): effects = clicked(row: mouse.row, column: mouse.column, &state)
            case .wheelUp, .wheelDown:
                guard state.models.session.presentation.screen == .client else { break }
                effects = scroll(&state, by: mouse.action == .wheelUp ? -3 : 3)
            default: break
            }
        case .resize(let size):
            state.size = size
        case .tick(let now):
            state.now = now
        case .models(let models):
            effects = modelsChanged(models, &state)
        }
        return effects + followUp(&state) + keepDraft(&state)
    }

    // MARK: - Keys by screen

    private static func keyPressed(_ key: KeyPress, _ state: inout ChatState) -> [ChatEffect] {
        switch state.models.session.presentation.screen {
        case .login: return loginKey(key, &state)
        case .loading: return []
        case .usernameSelection:
            switch key.key {
            case .enter:
                let name = state.username.text.trimmingCharacters(in: .whitespaces)
                return name.isEmpty ? [] : [.submitUsername(name)]
            case .escape: return [.cancelOnboarding]
            default:
                type(key, into: &state.username, singleLine: true)
                return []
            }
        case .permanentError:
            return key.key == .enter || key.key == .escape ? [.dismissError] : []
        case .client: return clientKey(key, &state)
        }
    }

    /// Types a printable key into a field, or applies a readline key to it.
    private static func type(_ key: KeyPress, into field: inout Composer, singleLine: Bool) {
        if case .character(let character) = key.key, key.modifiers.isEmpty {
            field.insert(String(character))
        } else if !(singleLine && (key.key == .up || key.key == .down)) {
            _ = field.apply(key)
        }
    }

    private static func loginKey(_ key: KeyPress, _ state: inout ChatState) -> [ChatEffect] {
        let signIn = state.models.signIn
        var fields: [ChatState.LoginForm.Field] = []
        if !signIn.accounts.isEmpty { fields.append(.account) }
        fields += [.email, .password]
        if signIn.secondFactor != nil { fields.append(.code) }
        let index = fields.firstIndex(of: state.login.focus) ?? 0
        let onAccounts = state.login.focus == .account
        switch (key.key, key.modifiers) {
        case (.tab, []):
            state.login.focus = fields[(index + 1) % fields.count]
        case (.tab, .shift):
            state.login.focus = fields[(index + fields.count - 1) % fields.count]
        case (.down, []) where !onAccounts:
            state.login.focus = fields[(index + 1) % fields.count]
        case (.up, []) where !onAccounts:
            state.login.focus = fields[(index + fields.count - 1) % fields.count]
        case (.up, []):
            state.login.account = max(0, state.login.account - 1)
        case (.down, []):
            state.login.account = min(signIn.accounts.count - 1, state.login.account + 1)
        case (.enter, _):
            return submitLogin(&state)
        default:
            if case .character = key.key, key.modifiers.isEmpty, state.login.focus == .account {
                // Printable keys always type: on the list, into the picked account's password.
                state.login.focus = .password
            }
            switch state.login.focus {
            case .account: break
            case .email: type(key, into: &state.login.email, singleLine: true)
            case .password: type(key, into: &state.login.password, singleLine: true)
            case .code: type(key, into: &state.login.code, singleLine: true)
            }
        }
        return []
    }

    private static func submitLogin(_ state: inout ChatState) -> [ChatEffect] {
        let signIn = state.models.signIn
        guard !signIn.isSigningIn else { return [] }
        if signIn.secondFactor != nil {
            let code = state.login.code.text.trimmingCharacters(in: .whitespaces)
            guard !code.isEmpty else {
                state.login.focus = .code
                return []
            }
            state.login.code.clear()
            return [.submitCode(code)]
        }
        let password = state.login.password.text
        let email = state.login.email.text.trimmingCharacters(in: .whitespaces)
        let account = signIn.accounts.indices.contains(state.login.account) ? signIn.accounts[state.login.account] : nil
        if state.login.focus == .account || (state.login.focus == .email && email.isEmpty && account == nil) {
            state.login.focus = account == nil ? .email : .password
            if password.isEmpty { return [] }
        }
        guard !password.isEmpty else {
            state.login.focus = .password
            return []
        }
        if email.isEmpty, let account {
            state.login.password.clear()
            return [.signInStored(account: account.id, password: password)]
        }
        guard !email.isEmpty else {
            state.login.focus = .email
            return []
        }
        state.login.password.clear()
        return [.signIn(email: email, password: password)]
    }

    private static func clientKey(_ key: KeyPress, _ state: inout ChatState) -> [ChatEffect] {
        let alt = key.modifiers == .alt
        let control = key.modifiers == .control
        switch key.key {
        case .escape:
            if state.overlay != nil {
                state.overlay = nil
            } else if state.confirmingDeletion != nil {
                state.confirmingDeletion = nil
            } else if state.compose != .message {
                endCompose(&state)
            } else if state.selection != nil {
                state.selection = nil
            } else if state.replyTo != nil {
                state.replyTo = nil
            } else {
                state.scroll = .bottom
            }
            return []
        case .function(1):
            state.overlay = state.overlay == .help ? nil : .help
            return []
        case .function(2):
            state.overlay = state.overlay == .lastFailure ? nil : .lastFailure
            return []
        case .function(3):
            state.showsMembers.toggle()
            return [.showMembers(server: state.showsMembers ? state.openChat?.serverID : nil)]
        case .function(5):
            let session = state.models.session.state
            return session == .disconnected || session == .offline ? [.connectNow] : []
        case .function(7):
            guard let entry = failedActionOfSelection(state) ?? failedEntry(state) ?? lastFailedAction(state) else {
                return []
            }
            return [.resend(nonce: entry.nonce)]
        case .function(8):
            guard let entry = failedActionOfSelection(state) ?? selectedOrFailedEntry(state) ?? lastFailedAction(state)
            else { return [] }
            if state.selection == "p:\(entry.nonce)" { state.selection = nil }
            return [.discard(nonce: entry.nonce)]
        case .function(10):
            return [.logOut]
        case .pageUp:
            state.jumpingToFirstUnread = false
            return scroll(&state, by: -pageHeight(state))
        case .pageDown:
            state.jumpingToFirstUnread = false
            return scroll(&state, by: pageHeight(state))
        case .character("o") where control:
            beginAttach(&state)
            return []
        case .character("j") where alt:
            return jumpToFirstUnread(&state)
        case .up where alt, .down where alt:
            return moveChat(by: key.key == .up ? -1 : 1, &state)
        case .character("n") where control:
            return nextUnread(&state)
        case .up where control, .down where control:
            select(by: key.key == .up ? -1 : 1, &state)
            return []
        case .character("e") where alt:
            beginEdit(&state)
            return []
        case .character("d") where alt:
            if let message = selectedMessage(state) {
                endCompose(&state)
                state.confirmingDeletion = message.id
            }
            return []
        case .character("a") where alt:
            beginReaction(remove: false, &state)
            return []
        case .character("u") where alt:
            beginReaction(remove: true, &state)
            return []
        case .tab where isReacting(state):
            let count = max(1, reactionChoices(state).count)
            state.reactionPick = (state.reactionPick + (key.modifiers == .shift ? count - 1 : 1)) % count
            return []
        case .character("r") where alt:
            guard let channel = state.channel else { return [] }
            let selected = state.selection.flatMap { id in channel.messages.first { "m:\($0.id)" == id } }
            let target = selected ?? channel.messages.last { $0.author != state.models.currentUserID }
            state.replyTo = target?.id
            state.selection = nil
            return []
        case .enter where key.modifiers.contains(.alt):
            state.composer.insert("\n")
            return []
        case .enter:
            if let message = state.confirmingDeletion, let channel = state.openChannel {
                state.confirmingDeletion = nil
                state.selection = nil
                return [.delete(channel: channel, message: message)]
            }
            switch state.compose {
            case .message: return send(&state)
            case .edit(let message): return saveEdit(of: message, &state)
            case .reaction(let message, let remove): return sendReaction(to: message, remove: remove, &state)
            case .attach: return sendAttachment(&state)
            }
        default:
            break
        }
        if state.overlay != nil {
            // An overlay takes `?` to close; other printable keys still type, beneath it.
            if key == .character("?") {
                state.overlay = nil
                return []
            }
        }
        if key == .character("?"), state.composer.isEmpty {
            state.overlay = .help
            return []
        }
        if case .character(let character) = key.key, key.modifiers.isEmpty {
            state.composer.insert(String(character))
            return state.compose == .attach ? [] : typed(&state)
        }
        // Editing keys (arrows, Backspace, Home…) change the composer and send nothing.
        _ = state.composer.apply(key)
        return []
    }

    private static func pasted(_ text: String, _ state: inout ChatState) -> [ChatEffect] {
        let normalized = text.replacing("\r\n", with: "\n").replacing("\r", with: "\n")
        let line = normalized.replacing("\n", with: " ")
        switch state.models.session.presentation.screen {
        case .client:
            state.composer.insert(normalized)
            // A path pasted at the attach prompt is no message being typed, as a path typed is not.
            return state.compose == .attach ? [] : typed(&state)
        case .login:
            switch state.login.focus {
            case .account, .password:
                state.login.focus = .password
                state.login.password.insert(line)
            case .email: state.login.email.insert(line)
            case .code: state.login.code.insert(line)
            }
        case .usernameSelection: state.username.insert(line)
        case .loading, .permanentError: break
        }
        return []
    }

    /// The user typed into the composer: the channel is told, at most once per ``typingInterval``.
    private static func typed(_ state: inout ChatState) -> [ChatEffect] {
        guard let channel = state.openChannel, state.models.session.state == .connected else { return [] }
        if let sent = state.typingSent, state.now.timeIntervalSince(sent) < typingInterval { return [] }
        state.typingSent = state.now
        return [.typing(channel: channel)]
    }

    private static func send(_ state: inout ChatState) -> [ChatEffect] {
        let text = state.composer.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let channel = state.openChannel, !text.isEmpty else { return [] }
        let reply = state.replyTo
        state.composer.clear()
        state.replyTo = nil
        state.scroll = .bottom
        state.typingSent = nil
        return [.send(channel: channel, text: text, replyTo: reply)]
    }

    private static func clicked(row: Int, column: Int, _ state: inout ChatState) -> [ChatEffect] {
        guard state.models.session.presentation.screen == .client, state.overlay == nil else { return [] }
        let layout = ClientLayout(state)
        guard layout.list.columns.contains(column),
            let entry = ClientScreen.listEntries(state, layout: layout).first(where: { $0.row == row })
        else { return [] }
        return open(entry.chat.id, &state)
    }

    // MARK: - Chats

    private static func open(_ channel: String, _ state: inout ChatState) -> [ChatEffect] {
        guard channel != state.openChannel else { return [] }
        state.openChannel = channel
        state.scroll = .bottom
        state.selection = nil
        // The composer holds the new channel's draft once its values arrive; the last one's is kept.
        state.compose = .message
        state.composerAside = nil
        state.confirmingDeletion = nil
        state.composer.clear()
        state.draftChannel = nil
        state.keptDraft = ""
        state.replyTo = nil
        state.jumpingToFirstUnread = false
        state.newestSeen = nil
        state.typingSent = nil
        var effects: [ChatEffect] = [.open(channel: channel)]
        if state.showsMembers { effects.append(.showMembers(server: state.openChat?.serverID)) }
        return effects
    }

    private static func moveChat(by step: Int, _ state: inout ChatState) -> [ChatEffect] {
        let chats = state.models.chats
        guard !chats.isEmpty else { return [] }
        let current = state.openChannel.flatMap { id in chats.firstIndex { $0.id == id } }
        let next = current.map { min(chats.count - 1, max(0, $0 + step)) } ?? 0
        return open(chats[next].id, &state)
    }

    private static func nextUnread(_ state: inout ChatState) -> [ChatEffect] {
        let chats = state.models.chats
        let current = state.openChannel.flatMap { id in chats.firstIndex { $0.id == id } } ?? -1
        let order = chats.indices.map { (current + 1 + $0) % chats.count }
        guard let next = order.first(where: { chats[$0].isUnread && chats[$0].id != state.openChannel }) else {
            return []
        }
        return open(chats[next].id, &state)
    }

    /// The chat a client opens first: the most recently active with a message, else the first server's first
    /// channel (the chats come most recent first).
    public static func firstChat(_ chats: [Chat]) -> Chat? {
        chats.first { $0.lastMessage != nil } ?? chats.first { $0.serverID != nil } ?? chats.first
    }

    // MARK: - The timeline

    private static func pageHeight(_ state: ChatState) -> Int {
        max(1, ClientLayout(state).timelineRows.count - 1)
    }

    private static func timeline(_ state: ChatState, channel: ChannelView) -> Timeline {
        let layout = ClientLayout(state)
        return Timeline(
            channel: channel, width: layout.channelColumns.count - 1, currentUserID: state.models.currentUserID,
            timeZone: state.timeZone, selection: state.selection)
    }

    private static func scroll(_ state: inout ChatState, by rows: Int) -> [ChatEffect] {
        guard let channel = state.channel else { return [] }
        let height = ClientLayout(state).timelineRows.count
        let timeline = timeline(state, channel: channel)
        let before = timeline.window(height: height, position: state.scroll)
        state.scroll = timeline.scrolled(state.scroll, by: rows, height: height)
        guard rows < 0 else { return newerWanted(state, channel: channel, timeline: timeline, height: height) }
        // Scrolling up at the top, or with a gap on screen, loads the page before (the newest gap first).
        let after = timeline.window(height: height, position: state.scroll)
        let gapShown = after.visibleItems.contains { index in
            if case .gap = timeline.items[index].kind { return true }
            return false
        }
        let wantsOlder = (before.isAtTop || after.isAtTop || gapShown) && !channel.isLoadingOlder
        guard wantsOlder, !channel.reachedStart || !channel.gaps.isEmpty else { return [] }
        return [.loadOlder(channel: channel.id)]
    }

    /// Scrolling down from a jump: with the island's newest message (or the bottom) on screen, the page after it
    /// loads, until the island joins the newest messages.
    private static func newerWanted(
        _ state: ChatState, channel: ChannelView, timeline: Timeline, height: Int
    ) -> [ChatEffect] {
        guard let last = channel.islandLast, !channel.isLoadingNewer else { return [] }
        let window = timeline.window(height: height, position: state.scroll)
        let lastShown = timeline.index(ofItem: "m:\(last)").map { window.visibleItems.contains($0) } ?? false
        guard lastShown || window.isAtBottom else { return [] }
        return [.loadNewer(channel: channel.id)]
    }

    /// Alt-J: the model jumps to the first unread message; the timeline scrolls to it once it is shown.
    private static func jumpToFirstUnread(_ state: inout ChatState) -> [ChatEffect] {
        guard let channel = state.channel else { return [] }
        state.selection = nil
        state.jumpingToFirstUnread = true
        scrollToFirstUnread(channel, &state)
        return [.jumpToFirstUnread(channel: channel.id)]
    }

    /// After Alt-J: the first unread message, once shown, is put near the top of the timeline (the unread divider
    /// above it).
    private static func scrollToFirstUnread(_ channel: ChannelView, _ state: inout ChatState) {
        guard state.jumpingToFirstUnread, let first = channel.firstUnread,
            channel.messages.contains(where: { $0.id == first })
        else { return }
        state.jumpingToFirstUnread = false
        state.scroll = .anchored(item: "m:\(first)", line: -2)
    }

    /// Selects the message or pending send above (-1) or below (1) the selection, among those on screen first.
    private static func select(by step: Int, _ state: inout ChatState) {
        guard let channel = state.channel else { return }
        let timeline = timeline(state, channel: channel)
        let selectable = timeline.items.filter { item in
            switch item.kind {
            case .message, .pending: true
            default: false
            }
        }.map(\.id)
        guard !selectable.isEmpty else { return }
        guard let current = state.selection, let index = selectable.firstIndex(of: current) else {
            state.selection = step < 0 ? selectable.last : nil
            return
        }
        let next = index + step
        state.selection = next >= selectable.count ? nil : selectable[max(0, next)]
        // Keep the selection on screen.
        if let selection = state.selection, let item = timeline.index(ofItem: selection) {
            let height = ClientLayout(state).timelineRows.count
            let window = timeline.window(height: height, position: state.scroll)
            if !window.visibleItems.contains(item) {
                let anchor = timeline.items[...item].last { $0.isAnchor }?.id ?? selection
                state.scroll = .anchored(item: anchor, line: 0)
            }
        }
    }

    private static func failedEntry(_ state: ChatState) -> OutboxEntry? {
        guard let channel = state.channel else { return nil }
        if let selected = channel.pending.first(where: { "p:\($0.nonce)" == state.selection }),
            case .failed = selected.state
        {
            return selected
        }
        return channel.pending.last { if case .failed = $0.state { true } else { false } }
    }

    private static func selectedOrFailedEntry(_ state: ChatState) -> OutboxEntry? {
        guard let channel = state.channel else { return nil }
        if let selected = channel.pending.first(where: { "p:\($0.nonce)" == state.selection }) {
            switch selected.state {
            case .queued, .failed: return selected
            case .sending, .sent: return nil
            }
        }
        return failedEntry(state)
    }

    // MARK: - The models

    private static func modelsChanged(_ models: ChatModels, _ state: inout ChatState) -> [ChatEffect] {
        let previous = state.models
        state.models = models
        var effects: [ChatEffect] = []
        // A new login form after the session leaves the client (a logout): the fields start empty but the email
        // (and the demo world's password, which its login screen says is filled in).
        if previous.session.presentation.screen != .login, models.session.presentation.screen == .login {
            state.login.password = Composer(state.loginPassword)
            state.login.code.clear()
            state.login.focus = models.signIn.accounts.isEmpty || !state.login.email.isEmpty ? .email : .account
            state.openChannel = nil
            state.firstChatIsProvisional = false
            state.overlay = nil
            state.acknowledged = [:]
        }
        if models.signIn.secondFactor != nil, previous.signIn.secondFactor == nil { state.login.focus = .code }
        if state.login.account >= models.signIn.accounts.count { state.login.account = 0 }
        // At start the most recently active chat opens, so messages show at once. Ready may not know the last
        // messages yet (stoatchat commits `last_message_id` seconds late): a chat picked without one is replaced
        // by the first chat whose last message becomes known, unless the person has acted meanwhile.
        if models.session.presentation.screen == .client, let first = firstChat(models.chats) {
            if state.openChannel == nil {
                effects += open(first.id, &state)
                state.firstChatIsProvisional = first.lastMessage == nil
            } else if state.firstChatIsProvisional, first.lastMessage != nil {
                state.firstChatIsProvisional = false
                if first.id != state.openChannel { effects += open(first.id, &state) }
            }
        }
        if let selection = state.selection, let channel = state.channel,
            !channel.messages.contains(where: { "m:\($0.id)" == selection }),
            !channel.pending.contains(where: { "p:\($0.nonce)" == selection })
        {
            state.selection = nil
        }
        if let channel = state.channel {
            // A message acted on that is gone ends the action.
            let exists = { (id: String) in channel.messages.contains { $0.id == id } }
            if let message = state.confirmingDeletion, !exists(message) { state.confirmingDeletion = nil }
            switch state.compose {
            case .edit(let message), .reaction(let message, _):
                if !exists(message) { endCompose(&state) }
            case .message, .attach: break
            }
            scrollToFirstUnread(channel, &state)
            restoreDraft(channel, previous: previous.channel, &state)
        }
        return effects
    }

    /// After every event: the composer's text kept as the open channel's draft, when it changed.
    private static func keepDraft(_ state: inout ChatState) -> [ChatEffect] {
        guard state.compose == .message, let channel = state.draftChannel, channel == state.openChannel,
            state.models.session.presentation.screen == .client, state.composer.text != state.keptDraft
        else { return [] }
        state.keptDraft = state.composer.text
        return [.keepDraft(channel: channel, text: state.keptDraft)]
    }

    /// The open channel's draft into the composer: when the channel's values first arrive (unless something was
    /// typed meanwhile, which becomes the draft), and when the library's draft changes while the composer is empty
    /// (the store's drafts read at sign-in).
    private static func restoreDraft(_ channel: ChannelView, previous: ChannelView?, _ state: inout ChatState) {
        if state.draftChannel != channel.id {
            state.draftChannel = channel.id
            state.keptDraft = channel.draft
            if state.compose == .message, state.composer.isEmpty { state.composer = Composer(channel.draft) }
        } else if channel.draft != state.keptDraft, previous?.draft != channel.draft, state.compose == .message,
            state.composer.isEmpty
        {
            state.keptDraft = channel.draft
            state.composer = Composer(channel.draft)
        }
    }

    // MARK: - Acting on messages

    /// The selected message, if the selection is one.
    private static func selectedMessage(_ state: ChatState) -> Message? {
        guard let channel = state.channel, let selection = state.selection, selection.hasPrefix("m:") else {
            return nil
        }
        return channel.messages.first { "m:\($0.id)" == selection }
    }

    /// Alt-E: the composer takes the selected message's text (the user's newest message when none is selected);
    /// what was typed is put aside until the edit ends.
    private static func beginEdit(_ state: inout ChatState) {
        guard let channel = state.channel, let user = state.models.currentUserID else { return }
        let target = state.selection == nil ? channel.messages.last { $0.author == user } : selectedMessage(state)
        guard let message = target, message.author == user else { return }
        endCompose(&state)
        state.confirmingDeletion = nil
        state.composerAside = state.composer
        state.composer = Composer(message.content ?? "")
        state.compose = .edit(message: message.id)
        state.selection = "m:\(message.id)"
    }

    /// Alt-A (or Alt-U): the composer takes an emoji for the selected message (the newest when none is selected):
    /// typed, or picked with Tab.
    private static func beginReaction(remove: Bool, _ state: inout ChatState) {
        guard let channel = state.channel else { return }
        guard let message = state.selection == nil ? channel.messages.last : selectedMessage(state) else { return }
        if remove, ownReactions(on: message, state).isEmpty { return }
        endCompose(&state)
        state.confirmingDeletion = nil
        state.composerAside = state.composer
        state.composer = Composer()
        state.compose = .reaction(message: message.id, remove: remove)
        state.reactionPick = 0
        state.selection = "m:\(message.id)"
    }

    /// Ctrl-O: the composer becomes a prompt for a file's path; what was typed is put aside, to be sent with the
    /// file (Enter) or given back (Esc).
    private static func beginAttach(_ state: inout ChatState) {
        guard state.channel != nil, state.compose != .attach else { return }
        endCompose(&state)
        state.confirmingDeletion = nil
        state.composerAside = state.composer
        state.composer = Composer()
        state.compose = .attach
    }

    /// Enter at the attach prompt: the file is sent with the text put aside (or none); the draft is spent.
    private static func sendAttachment(_ state: inout ChatState) -> [ChatEffect] {
        let path = state.composer.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let channel = state.openChannel, !path.isEmpty else { return [] }
        let text = (state.composerAside?.text ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        state.compose = .message
        state.composerAside = nil
        state.composer.clear()
        state.replyTo = nil
        state.scroll = .bottom
        state.typingSent = nil
        return [.attach(channel: channel, text: text, path: path)]
    }

    /// Ends an edit or a reaction: the composer gets back what was typed before.
    private static func endCompose(_ state: inout ChatState) {
        guard state.compose != .message else { return }
        state.compose = .message
        state.composer = state.composerAside ?? Composer()
        state.composerAside = nil
        state.reactionPick = 0
    }

    private static func isReacting(_ state: ChatState) -> Bool {
        if case .reaction = state.compose { return true }
        return false
    }

    /// The emoji the picker offers: the common ones to react, the user's own reactions to take one back.
    static func reactionChoices(_ state: ChatState) -> [String] {
        guard case .reaction(let id, let remove) = state.compose else { return [] }
        guard remove else { return ChatState.reactionChoices }
        guard let message = state.channel?.messages.first(where: { $0.id == id }) else { return [] }
        return ownReactions(on: message, state)
    }

    private static func ownReactions(on message: Message, _ state: ChatState) -> [String] {
        guard let user = state.models.currentUserID else { return [] }
        return (message.reactions ?? [:]).filter { $0.value.contains(user) }.keys.sorted()
    }

    private static func saveEdit(of message: String, _ state: inout ChatState) -> [ChatEffect] {
        let text = state.composer.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let channel = state.openChannel, !text.isEmpty else { return [] }
        let unchanged = state.channel?.messages.first { $0.id == message }?.content == text
        endCompose(&state)
        state.selection = nil
        return unchanged ? [] : [.edit(channel: channel, message: message, text: text)]
    }

    private static func sendReaction(to message: String, remove: Bool, _ state: inout ChatState) -> [ChatEffect] {
        let typed = state.composer.text.trimmingCharacters(in: .whitespacesAndNewlines)
        let choices = reactionChoices(state)
        let picked = choices.indices.contains(state.reactionPick) ? choices[state.reactionPick] : ""
        let emoji = typed.isEmpty ? picked : typed
        guard let channel = state.openChannel, !emoji.isEmpty else { return [] }
        endCompose(&state)
        state.selection = nil
        return [
            remove
                ? .unreact(channel: channel, message: message, emoji: emoji)
                : .react(channel: channel, message: message, emoji: emoji)
        ]
    }

    /// The failed action on the selected message, if any.
    private static func failedActionOfSelection(_ state: ChatState) -> OutboxEntry? {
        guard let channel = state.channel, let selection = state.selection else { return nil }
        return channel.failedActions.last { "m:\($0.target ?? "")" == selection }
    }

    private static func lastFailedAction(_ state: ChatState) -> OutboxEntry? {
        state.channel?.failedActions.last
    }

    /// After every event: what the open channel's window shows decides the "new messages below" hint and the
    /// acknowledgement of its newest message.
    private static func followUp(_ state: inout ChatState) -> [ChatEffect] {
        guard state.models.session.presentation.screen == .client, let channel = state.channel,
            state.size.columns >= ClientLayout.minimum.columns, state.size.rows >= ClientLayout.minimum.rows,
            let newest = channel.messages.last
        else { return [] }
        let height = ClientLayout(state).timelineRows.count
        // Counted from the bottom, where a new message is read: the frame lays out the window, not this.
        guard timeline(state, channel: channel).showsNewestMessage(height: height, position: state.scroll)
        else { return [] }
        if state.newestSeen.map({ newest.id > $0 }) ?? true { state.newestSeen = newest.id }
        guard state.models.session.state == .connected, state.acknowledged[channel.id] != newest.id,
            let chat = state.openChat, chat.isUnread || chat.mentionCount > 0
        else { return [] }
        state.acknowledged[channel.id] = newest.id
        return [.ack(channel: channel.id, message: newest.id)]
    }
}
