import Foundation
import LifelineChat
import LifelineCore
import LifelineStoatStore
import LifelineTerminal
import Testing

@Suite("The incremental frame builder")
struct ChatFrameBuilderTests {
    /// A small seeded generator (SplitMix64), so a failing walk repeats.
    struct Random: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let texts = [
        "short", "a line that says a little more than the short one does, in more words",
        "日本語のメッセージ、全角で二列ずつ", "👍🏽 👨‍👩‍👧‍👦 ok",
        "a long message that wraps over two or three rows of the timeline, as long messages in a busy channel do, "
            + "with enough words to make the layout work for its living",
    ]

    /// One random change to the state, of the kinds a session makes: messages arriving (most often), scrolling,
    /// typing, the composer, unread marks, the connection's state and alert, an overlay, the member list, the open
    /// chat, the size.
    static func step(_ state: inout ChatState, serial: inout Int, using random: inout Random) {
        var models = state.models
        switch Int.random(in: 0..<20, using: &random) {
        case 0..<8:
            serial += 1
            let message = ChatFixtures.message(
                Double(serial), ["ada", "grace", "you"][serial % 3],
                texts[Int.random(in: 0..<texts.count, using: &random)],
                serial: serial)
            models.channel?.messages.append(message)
            models.channel?.authorNames[message.id] = ["ada", "grace", "you"][serial % 3]
            if let index = models.chats.firstIndex(where: { $0.id == ChatFixtures.channelID }) {
                models.chats[index].lastMessage = message
            }
        case 8:
            let messages = models.channel?.messages ?? []
            if !messages.isEmpty, Bool.random(using: &random) {
                let message = messages[Int.random(in: 0..<messages.count, using: &random)]
                state.scroll = .anchored(item: "m:\(message.id)", line: Int.random(in: -3...3, using: &random))
            } else {
                state.scroll = .bottom
            }
        case 9: models.channel?.typing = Bool.random(using: &random) ? ["ada"] : []
        case 10: state.composer = Composer(Bool.random(using: &random) ? "" : texts[serial % texts.count])
        case 11:
            let index = Int.random(in: 1..<models.chats.count, using: &random)
            models.chats[index].isUnread.toggle()
            models.chats[index].mentionCount = Int.random(in: 0...2, using: &random)
        case 12:
            let session: SessionState = [.connected, .disconnected, .reconnecting, .offline].randomElement(
                using: &random)!
            models.session = ChatFixtures.snapshot(session, failures: session == .connected ? 0 : 1)
            models.retryDate = session == .disconnected ? state.now.addingTimeInterval(4) : nil
        case 13:
            models.session.presentation.outageAlert =
                models.session.presentation.outageAlert == nil ? OutageAlert(text: "The events service is down") : nil
        case 14: state.overlay = state.overlay == nil ? .help : nil
        case 15: state.showsMembers.toggle()
        case 16:
            state.openChannel =
                state.openChannel == ChatFixtures.channelID ? models.chats[1].id : ChatFixtures.channelID
        case 17:
            state.size = Bool.random(using: &random) ? ChatFixtures.large : ChatFixtures.small
        case 18:
            let messages = models.channel?.messages ?? []
            state.selection = messages.isEmpty ? nil : "m:\(messages[messages.count / 2].id)"
        default:
            models.channel?.isStale.toggle()
            state.now = state.now.addingTimeInterval(1)
        }
        state.models = models
    }

    @Test("over random sessions each frame equals the frame drawn whole")
    func equalsTheWholeFrame() async {
        var random = Random(state: 0xF4A3E)
        var moves = 0
        defer { #expect(moves > 20, "the timeline moved in \(moves) frames") }
        for walk in 0..<6 {
            var state = ChatFixtures.state(.connected, size: ChatFixtures.large)
            var serial = 0
            var builder = ChatFrameBuilder()
            var previous: Grid?
            for step in 0..<120 {
                // Two frames drawn per step: the cooperative pool is given back between steps, since the in-process
                // servers of every other test wait for it (HowLifelineIsBuilt.md: "The tests").
                await Task.yield()
                Self.step(&state, serial: &serial, using: &random)
                let built = builder.render(state, size: state.size)
                let whole = ChatScreen.render(state, size: state.size)
                #expect(built == whole, "walk \(walk), step \(step):\n\(built)\n---\n\(whole)")
                if built != whole { return }
                // What the builder says changed is true of the frame, from the frame it built before.
                if let changes = builder.changes {
                    #expect(changes.base == previous, "walk \(walk), step \(step)")
                    #expect(changes.describe(built), "walk \(walk), step \(step): rows \(changes.rows)")
                    if changes.move != nil { moves += 1 }
                }
                previous = built
            }
        }
    }

    @Test(
        """
        the timeline's window kept across frames follows edits, renamed authors, replies, dropped messages, gaps, the \
        unread divider and pending sends: each frame equals the frame drawn whole
        """)
    func keptWindowFollowsChanges() {
        var random = Random(state: 0xB0771)
        var state = ChatFixtures.state(.connected, size: ChatFixtures.large)
        var serial = 0
        var messages = (0..<120).map { index in
            ChatFixtures.message(Double(index), index % 2 == 0 ? "ada" : "grace", Self.texts[index % 5], serial: index)
        }
        serial = 200
        state.models.channel?.messages = messages
        state.models.channel?.authorNames = ChatFixtures.names(messages)
        var builder = ChatFrameBuilder()
        for step in 0..<400 {
            var channel = state.models.channel!
            let recent = messages.count - 1 - Int.random(in: 0..<min(messages.count, 25), using: &random)
            switch Int.random(in: 0..<12, using: &random) {
            case 0..<4:
                serial += 1
                let replies = Bool.random(using: &random) ? [messages[recent].id] : nil
                let message = ChatFixtures.message(
                    Double(serial), serial % 2 == 0 ? "ada" : "grace", Self.texts[serial % 5], serial: serial,
                    replies: replies)
                messages.append(message)
                channel.authorNames[message.id] = serial % 2 == 0 ? "ada" : "grace"
            case 4:
                // A message on screen edited (a reply to it quotes the new text).
                messages[recent].content = "edited at step \(step)"
                messages[recent].edited = ChatFixtures.now
            case 5: channel.authorNames[messages[recent].id] = "renamed \(step)"
            case 6: messages.removeFirst(Int.random(in: 1...3, using: &random))
            case 7: messages.remove(at: recent)
            case 8:
                channel.gaps =
                    channel.gaps.isEmpty ? [HistoryGap(after: messages[recent].id, before: messages[recent].id)] : []
            case 9: channel.lastRead = channel.lastRead == nil ? messages[recent].id : nil
            case 10:
                channel.pending =
                    channel.pending.isEmpty ? [ChatFixtures.entry("n\(step)", "on its way", .sending)] : []
            default:
                state.scroll =
                    state.scroll == .bottom ? .anchored(item: "m:\(messages[recent].id)", line: 0) : .bottom
            }
            channel.messages = messages
            state.models.channel = channel
            let built = builder.render(state, size: state.size)
            let whole = ChatScreen.render(state, size: state.size)
            #expect(built == whole, "step \(step):\n\(built)\n---\n\(whole)")
            if built != whole { return }
        }
    }

    @Test("a message arriving in a channel at its bottom moves the timeline's rows: the same frame as drawn whole")
    func incomingMessage() throws {
        var state = ChatFixtures.state(.connected, size: ChatFixtures.large)
        let messages = (0..<200).map { index in
            ChatFixtures.message(Double(index), index % 2 == 0 ? "ada" : "grace", Self.texts[index % 5], serial: index)
        }
        state.models.channel?.messages = messages
        state.models.channel?.authorNames = ChatFixtures.names(messages)
        var builder = ChatFrameBuilder()
        let before = builder.render(state, size: state.size)
        let message = ChatFixtures.message(300, "ada", "the newest message", serial: 300)
        state.models.channel?.messages.append(message)
        state.models.channel?.authorNames[message.id] = "ada"
        let after = builder.render(state, size: state.size)
        #expect(after == ChatScreen.render(state, size: state.size))
        #expect(after.description.contains("the newest message"))
        #expect(after != before)
        // The changes: the timeline's rows moved up by the message's row, that row drawn, nothing else.
        let changes = try #require(builder.changes)
        let layout = ClientLayout(state)
        #expect(changes.move == FrameChanges.Move(rows: layout.timelineRows, columns: layout.channelColumns, shift: 1))
        #expect(changes.rows == [layout.timelineRows.upperBound - 1])
        #expect(changes.describe(after))
        // Rendered with them, the terminal scrolls the timeline: the same bytes as a renderer that compares every
        // cell and finds the move itself.
        var trusting = Renderer(showing: before)
        var searching = Renderer(showing: before)
        var withChanges: [UInt8] = []
        var without: [UInt8] = []
        trusting.render(after, changes: changes, into: &withChanges)
        searching.render(after, into: &without)
        #expect(String(decoding: withChanges, as: UTF8.self).contains("S\u{1B}[r"))
        #expect(withChanges == without)
    }
}
