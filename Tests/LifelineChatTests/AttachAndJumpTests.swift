import Foundation
import LifelineChat
import LifelineStoatStore
import LifelineTerminal
import Testing

/// Attaching a file by its path (Ctrl-O) and jumping to the first unread message (Alt-J).
@Suite("Chat attachments and the jump to the first unread")
struct AttachAndJumpTests {
    typealias F = ChatFixtures

    static func type(_ text: String, _ state: inout ChatState) -> [ChatEffect] {
        text.flatMap { ChatReducer.reduce(&state, .key(.character($0))) }
    }

    static func file(_ name: String, size: Int64 = 40_000) -> OutboxEntry.PendingFile {
        OutboxEntry.PendingFile(path: "/tmp/\(name)", filename: name, size: size, sha256: "00")
    }

    /// A send with a file, uploading, and one the file server refused.
    static let sends = [
        OutboxEntry(
            nonce: "N1", channel: F.channelID, message: OutgoingMessage(content: "the plan"), state: .sending,
            files: [file("plan.pdf")], progress: StoatFileServer.Progress(sent: 17_000, total: 40_000)),
        OutboxEntry(
            nonce: "N2", channel: F.channelID, message: OutgoingMessage(content: nil),
            state: .failed(OutboxEntry.Failure(code: .api(.fileTooLarge), message: "the file is too large")),
            files: [file("movie.mkv", size: 90_000_000)]),
    ]

    /// A channel jumped to its first unread message: a stretch of older messages (the island), a gap, the newest.
    static func jumped(firstUnread: Bool = true, loadingNewer: Bool = false) -> ChannelView {
        let island = (0..<12).map { number in
            F.message(
                -90_000 + Double(number) * 60, number % 2 == 0 ? "ada" : "grace", "older message number \(number)",
                serial: 100 + number)
        }
        let messages = island + F.conversation
        var view = F.channel(
            messages, gaps: [HistoryGap(after: island[11].id, before: F.conversation[0].id)], lastRead: island[3].id)
        view.firstUnread = firstUnread ? island[4].id : nil
        view.islandLast = island[11].id
        view.isLoadingNewer = loadingNewer
        return view
    }

    static func models(_ state: ChatState, _ channel: ChannelView) -> ChatModels {
        var models = state.models
        models.channel = channel
        return models
    }

    @Test(
        "Ctrl-O asks for a path, typed or pasted without a typing indicator; Enter sends the file with the draft put aside, Esc gives the draft back"
    )
    func attachKeys() {
        var state = F.state(.connected)
        _ = Self.type("see this", &state)
        _ = ChatReducer.reduce(&state, .key(.control("o")))
        #expect(state.compose == .attach)
        #expect(state.composer.isEmpty)
        // Esc: the draft is back, nothing sent.
        #expect(ChatReducer.reduce(&state, .key(KeyPress(.escape))).isEmpty)
        #expect(state.compose == .message && state.composer.text == "see this")
        // Again: the path typed sends no typing indicator; Enter sends the file with the draft.
        _ = ChatReducer.reduce(&state, .key(.control("o")))
        #expect(Self.type("~/plan.pdf", &state).isEmpty)
        let effects = ChatReducer.reduce(&state, .key(KeyPress(.enter)))
        #expect(effects.first == .attach(channel: F.channelID, text: "see this", path: "~/plan.pdf"))
        #expect(state.compose == .message && state.composer.isEmpty)
        // With no draft, the file alone; an empty path sends nothing.
        _ = ChatReducer.reduce(&state, .key(.control("o")))
        #expect(ChatReducer.reduce(&state, .key(KeyPress(.enter))).isEmpty)
        #expect(state.compose == .attach)
        _ = Self.type("/tmp/a b.txt", &state)
        #expect(
            ChatReducer.reduce(&state, .key(KeyPress(.enter))).first
                == .attach(channel: F.channelID, text: "", path: "/tmp/a b.txt"))
        // A pasted path sends no typing indicator either; the line end a copy brings is not part of it.
        _ = ChatReducer.reduce(&state, .key(.control("o")))
        #expect(ChatReducer.reduce(&state, .paste("~/pasted file.pdf\n")).isEmpty)
        #expect(
            ChatReducer.reduce(&state, .key(KeyPress(.enter))).first
                == .attach(channel: F.channelID, text: "", path: "~/pasted file.pdf"))
    }

    @Test("the attach prompt replaces the composer's prompt")
    func attachPrompt() {
        var state = F.state(.connected)
        _ = Self.type("see this", &state)
        _ = ChatReducer.reduce(&state, .key(.control("o")))
        _ = Self.type("~/plan.pdf", &state)
        let grid = ChatScreen.render(state, size: F.small)
        expectSnapshot(grid, "attach-prompt-80x24")
        #expect(grid.description.contains("attach: ~/plan.pdf"))
        #expect(grid.description.contains("Attach a file"))
        // The cursor follows the path, after the prompt.
        let row = ChatScreen.cursor(state, size: F.small)?.row ?? 0
        let line = grid.description.split(separator: "\n", omittingEmptySubsequences: false)[row]
        #expect(line.contains("attach: ~/plan.pdf"))
    }

    @Test("a pending send with a file shows its name and the upload's percent; a refused one its reason")
    func pendingFiles() {
        let state = F.state(.connected, channel: F.channel(pending: Self.sends))
        let grid = ChatScreen.render(state, size: F.small)
        expectSnapshot(grid, "attach-pending-80x24")
        let text = grid.description
        #expect(text.contains("📎 plan.pdf · uploading 42%"))
        #expect(text.contains("📎 movie.mkv"))
        #expect(text.contains("the file is too large"))
    }

    @Test("Alt-J jumps: the timeline scrolls to the first unread message once shown, with the island's gap row")
    func jump() {
        var state = F.state(.connected, channel: F.channel())
        let effects = ChatReducer.reduce(&state, .key(.alt("j")))
        #expect(effects.contains(.jumpToFirstUnread(channel: F.channelID)))
        #expect(state.jumpingToFirstUnread)
        // The jump's page arrives: the first unread message is on screen, the gap below the newest too.
        let channel = Self.jumped()
        _ = ChatReducer.reduce(&state, .models(Self.models(state, channel)))
        #expect(state.scroll == .anchored(item: "m:\(channel.firstUnread!)", line: -2))
        #expect(!state.jumpingToFirstUnread)
        let grid = ChatScreen.render(state, size: F.small)
        expectSnapshot(grid, "jump-first-unread-80x24")
        #expect(grid.description.contains("older message number 4"))
        #expect(grid.description.contains("new messages"))
        // PgDn goes down the island; at its end it loads the newer page (not while one loads).
        var loads = 0
        for _ in 0..<6 {
            let effects = ChatReducer.reduce(&state, .key(KeyPress(.pageDown)))
            loads += effects.filter { $0 == .loadNewer(channel: F.channelID) }.count
        }
        #expect(loads > 0)
        #expect(ChatScreen.render(state, size: F.small).description.contains("history not loaded here"))
        _ = ChatReducer.reduce(&state, .models(Self.models(state, Self.jumped(loadingNewer: true))))
        #expect(!ChatReducer.reduce(&state, .key(KeyPress(.pageDown))).contains(.loadNewer(channel: F.channelID)))
    }

    @Test("Alt-J with the first unread already shown scrolls at once; the help lists Ctrl-O and Alt-J")
    func jumpShownAndHelp() {
        var state = F.state(.connected, channel: Self.jumped())
        _ = ChatReducer.reduce(&state, .key(.alt("j")))
        #expect(state.scroll == .anchored(item: "m:\(Self.jumped().firstUnread!)", line: -2))
        // Without a stretch jumped to, PgDn at the bottom loads nothing newer.
        var plain = F.state(.connected)
        #expect(!ChatReducer.reduce(&plain, .key(KeyPress(.pageDown))).contains(.loadNewer(channel: F.channelID)))
        _ = ChatReducer.reduce(&state, .key(KeyPress(.function(1))))
        let help = ChatScreen.render(state, size: F.large).description
        #expect(help.contains("Ctrl-O") && help.contains("attach a file by its path"))
        #expect(help.contains("Alt-J") && help.contains("jump to the first unread message"))
    }
}
