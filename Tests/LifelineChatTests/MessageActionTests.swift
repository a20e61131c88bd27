import Foundation
import LifelineChat
import LifelineStoatStore
import LifelineTerminal
import Testing

/// Acting on a selected message (edit, delete, react, unreact), the actions the server has not confirmed drawn on
/// their messages, and the draft kept per channel.
@Suite("Chat message actions and drafts")
struct MessageActionTests {
    typealias F = ChatFixtures

    /// The user's message in the fixtures' conversation.
    static let mine = F.conversation[3]
    /// Ada's last message.
    static let adas = F.conversation[2]

    static func type(_ text: String, _ state: inout ChatState) -> [ChatEffect] {
        text.flatMap { ChatReducer.reduce(&state, .key(.character($0))) }
    }

    /// Selects the message `above` messages up from the newest with Ctrl-↑.
    static func select(_ above: Int, _ state: inout ChatState) {
        for _ in 0...above { _ = ChatReducer.reduce(&state, .key(KeyPress(.up, modifiers: .control))) }
    }

    /// A state whose composer follows the channel's draft: the channel's values arrived once.
    static func drafting(_ draft: String = "", channel: ChannelView = F.channel()) -> ChatState {
        var state = F.state(.connected)
        var models = state.models
        var view = channel
        view.draft = draft
        models.channel = view
        _ = ChatReducer.reduce(&state, .models(models))
        return state
    }

    @Test("Alt-E puts the user's selected message in the composer, Enter saves the edit, Esc gives back the draft")
    func edit() {
        var state = Self.drafting("half a thought")
        Self.select(1, &state)
        #expect(state.selection == "m:\(Self.mine.id)")
        _ = ChatReducer.reduce(&state, .key(.alt("e")))
        #expect(state.compose == .edit(message: Self.mine.id))
        #expect(state.composer.text == Self.mine.content)
        // Esc: the draft is back, nothing sent, and the draft is not overwritten by the edit's text.
        #expect(ChatReducer.reduce(&state, .key(KeyPress(.escape))).isEmpty)
        #expect(state.compose == .message && state.composer.text == "half a thought")
        // Again, changed, and saved with Enter.
        _ = ChatReducer.reduce(&state, .key(.alt("e")))
        let typed = Self.type(" (really)", &state)
        #expect(!typed.contains { if case .keepDraft = $0 { true } else { false } })
        let effects = ChatReducer.reduce(&state, .key(KeyPress(.enter)))
        #expect(
            effects == [.edit(channel: F.channelID, message: Self.mine.id, text: Self.mine.content! + " (really)")])
        #expect(state.compose == .message && state.composer.text == "half a thought")
        // Another's message cannot be edited; with nothing selected Alt-E takes the user's newest message.
        state.selection = "m:\(Self.adas.id)"
        _ = ChatReducer.reduce(&state, .key(.alt("e")))
        #expect(state.compose == .message)
        state.selection = nil
        _ = ChatReducer.reduce(&state, .key(.alt("e")))
        #expect(state.compose == .edit(message: Self.mine.id))
    }

    @Test("Alt-D asks to confirm the deletion: Enter deletes the message, Esc keeps it")
    func delete() {
        var state = Self.drafting()
        Self.select(2, &state)
        _ = ChatReducer.reduce(&state, .key(.alt("d")))
        #expect(state.confirmingDeletion == Self.adas.id)
        #expect(ChatScreen.render(state, size: F.small).description.contains("Delete the selected message?"))
        #expect(ChatReducer.reduce(&state, .key(KeyPress(.escape))).isEmpty)
        #expect(state.confirmingDeletion == nil && state.selection == "m:\(Self.adas.id)")
        _ = ChatReducer.reduce(&state, .key(.alt("d")))
        #expect(
            ChatReducer.reduce(&state, .key(KeyPress(.enter))) == [.delete(channel: F.channelID, message: Self.adas.id)]
        )
        #expect(state.confirmingDeletion == nil)
        // Printable keys still type while the question shows.
        Self.select(0, &state)
        _ = ChatReducer.reduce(&state, .key(.alt("d")))
        _ = Self.type("y", &state)
        #expect(state.composer.text == "y" && state.confirmingDeletion != nil)
    }

    @Test("Alt-A reacts with the emoji picked with Tab or typed; Alt-U takes back one of the user's own reactions")
    func react() {
        var messages = F.conversation
        messages[2].reactions = ["🎉": [F.me], "👀": [F.people["grace"]!]]
        var state = Self.drafting(channel: F.channel(messages))
        Self.select(2, &state)
        _ = ChatReducer.reduce(&state, .key(.alt("a")))
        #expect(state.compose == .reaction(message: Self.adas.id, remove: false))
        _ = ChatReducer.reduce(&state, .key(KeyPress(.tab)))
        _ = ChatReducer.reduce(&state, .key(KeyPress(.tab)))
        #expect(
            ChatReducer.reduce(&state, .key(KeyPress(.enter)))
                == [.react(channel: F.channelID, message: Self.adas.id, emoji: ChatState.reactionChoices[2])])
        // Typed: the text is the emoji.
        Self.select(2, &state)
        _ = ChatReducer.reduce(&state, .key(.alt("a")))
        _ = Self.type("🦀", &state)
        #expect(
            ChatReducer.reduce(&state, .key(KeyPress(.enter)))
                == [.react(channel: F.channelID, message: Self.adas.id, emoji: "🦀")])
        // Alt-U offers the user's own reactions only.
        Self.select(2, &state)
        _ = ChatReducer.reduce(&state, .key(.alt("u")))
        #expect(state.compose == .reaction(message: Self.adas.id, remove: true))
        #expect(
            ChatReducer.reduce(&state, .key(KeyPress(.enter)))
                == [.unreact(channel: F.channelID, message: Self.adas.id, emoji: "🎉")])
        // A message without the user's reaction: nothing to take back.
        Self.select(1, &state)
        _ = ChatReducer.reduce(&state, .key(.alt("u")))
        #expect(state.compose == .message)
    }

    @Test("F7 and F8 try a failed action on the selected message again, or dismiss it")
    func failedAction() {
        let refused = OutboxEntry(
            nonce: "A1", channel: F.channelID, message: OutgoingMessage(content: "new"),
            state: .failed(OutboxEntry.Failure(code: .api(.missingPermission), message: "not allowed")), kind: .edit,
            target: Self.adas.id)
        var view = F.channel()
        view.actions = [refused]
        var state = Self.drafting(channel: view)
        Self.select(2, &state)
        #expect(ChatReducer.reduce(&state, .key(KeyPress(.function(7)))) == [.resend(nonce: "A1")])
        #expect(ChatReducer.reduce(&state, .key(KeyPress(.function(8)))) == [.discard(nonce: "A1")])
    }

    @Test("the composer holds each channel's draft: kept at each change, restored on return and at sign-in")
    func drafts() {
        var state = Self.drafting("from last time")
        #expect(state.composer.text == "from last time")
        let typed = Self.type("!", &state)
        #expect(typed.contains(.keepDraft(channel: F.channelID, text: "from last time!")))
        // Another chat: the composer is its draft's (empty until its values arrive); the first's was kept.
        let other = F.chats()[1].id
        _ = ChatReducer.reduce(&state, .key(KeyPress(.down, modifiers: .alt)))
        #expect(state.openChannel == other && state.composer.isEmpty)
        var models = state.models
        models.channel = ChannelView(id: other, draft: "elsewhere")
        _ = ChatReducer.reduce(&state, .models(models))
        #expect(state.composer.text == "elsewhere")
        // Sending clears it.
        let sent = ChatReducer.reduce(&state, .key(KeyPress(.enter)))
        #expect(sent.contains(.send(channel: other, text: "elsewhere", replyTo: nil)))
        #expect(sent.contains(.keepDraft(channel: other, text: "")))
        // A draft the store gives later (read at sign-in) fills the empty composer.
        models.channel = ChannelView(id: other, draft: "restored")
        _ = ChatReducer.reduce(&state, .models(models))
        #expect(state.composer.text == "restored")
    }

    // MARK: - Screens

    @Test("a selected message shows the keys that act on it", arguments: ChatScreenSnapshotTests.sizes)
    func selectedScreen(size: TerminalSize) {
        var state = F.state(.connected, size: size)
        Self.select(1, &state)
        expectSnapshot(ChatScreen.render(state, size: size), "action-selected-\(ChatScreenSnapshotTests.name(size))")
    }

    @Test("the edit in the composer, the deletion's question, the reaction picker")
    func modeScreens() {
        var state = Self.drafting("a draft")
        Self.select(1, &state)
        _ = ChatReducer.reduce(&state, .key(.alt("e")))
        expectSnapshot(ChatScreen.render(state, size: F.small), "action-editing-80x24")
        _ = ChatReducer.reduce(&state, .key(KeyPress(.escape)))
        _ = ChatReducer.reduce(&state, .key(.alt("d")))
        expectSnapshot(ChatScreen.render(state, size: F.small), "action-delete-confirm-80x24")
        _ = ChatReducer.reduce(&state, .key(KeyPress(.escape)))
        _ = ChatReducer.reduce(&state, .key(.alt("a")))
        _ = ChatReducer.reduce(&state, .key(KeyPress(.tab)))
        expectSnapshot(ChatScreen.render(state, size: F.small), "action-react-picker-80x24")
    }

    @Test("actions not confirmed show on their messages: the edit, the deletion, a reaction; a refused one its reason")
    func pendingScreen() {
        var messages = F.conversation
        messages[3].content = "it did: edited while offline"
        messages[4].reactions = ["👍": [F.me]]
        let pending = [
            OutboxEntry(
                nonce: "A1", channel: F.channelID, message: OutgoingMessage(content: "it did: edited while offline"),
                state: .queued(retryAfter: nil), kind: .edit, target: messages[3].id),
            OutboxEntry(
                nonce: "A2", channel: F.channelID, message: OutgoingMessage(content: nil), state: .sending,
                kind: .delete,
                target: messages[1].id),
            OutboxEntry(
                nonce: "A3", channel: F.channelID, message: OutgoingMessage(content: nil),
                state: .queued(retryAfter: nil),
                kind: .react, target: messages[4].id, emoji: "👍"),
            OutboxEntry(
                nonce: "A4", channel: F.channelID, message: OutgoingMessage(content: nil),
                state: .failed(OutboxEntry.Failure(code: .api(.missingPermission), message: "not allowed here")),
                kind: .delete, target: messages[0].id),
        ]
        var view = F.channel(messages)
        view.actions = pending
        let state = F.state(.connected, size: F.large, channel: view)
        let grid = ChatScreen.render(state, size: F.large)
        expectSnapshot(grid, "action-pending-200x60")
        let text = grid.description
        #expect(text.contains("edited while offline (editing…)"))
        #expect(text.contains("(deleting…)"))
        #expect(text.contains("👍 1…"))
        #expect(text.contains("✗ not deleted: not allowed here · F7 again · F8 dismiss"))
        // The deleted message's text is struck out.
        let row = (0..<grid.size.rows).first { grid.text(row: $0).contains("morning! the build") }
        #expect(row != nil)
        if let row {
            let struck = (0..<grid.size.columns).contains { grid[row, $0].style.attributes.contains(.strikethrough) }
            #expect(struck)
        }
    }

    @Test("the help lists the keys that act on a message")
    func help() {
        var state = F.state(.connected, size: F.large)
        state.overlay = .help
        let text = ChatScreen.render(state, size: F.large).description
        for line in [
            "Alt-E            edit your selected message", "Alt-D            delete the selected message",
            "Alt-A Alt-U      react to the selected message", "F7 F8            send a failed message or action again",
        ] {
            #expect(text.contains(line), "\(line) not in the help")
        }
    }
}
