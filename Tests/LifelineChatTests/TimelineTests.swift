import Foundation
import LifelineChat
import LifelineStoatStore
import LifelineTerminal
import Testing

@Suite("The timeline's items: a view of the channel's messages with the markers placed among them")
struct TimelineTests {
    typealias F = ChatFixtures

    static let messages = (0..<12).map {
        F.message(Double($0 * 60 - 1_000), $0 % 3 == 0 ? "you" : "ada", "m\($0)", serial: $0)
    }

    @Test("gaps, the unread divider and the catch-up marker stand where the history says, pending sends last")
    func order() throws {
        let messages = Self.messages
        let gaps = [
            HistoryGap(after: messages[1].id, before: messages[2].id),
            HistoryGap(after: messages[6].id, before: messages[8].id),
            // Past the newest message: a gap at the end.
            HistoryGap(after: messages[11].id, before: F.ulid(5_000)),
        ]
        // Read up to message 2; message 3 is the user's own, so the divider stands before message 4.
        let channel = F.channel(
            messages, gaps: gaps, pending: [F.entry("N1", "later", .queued(retryAfter: nil))],
            catchUp: ChatCatchUp(messages: 3, oldestFound: messages[8].id), lastRead: messages[2].id)
        let timeline = Timeline(channel: channel, width: 60, currentUserID: F.me, timeZone: F.utc)
        var expected = ["top"]
        for (index, message) in messages.enumerated() {
            if index == 2 { expected.append("g:\(messages[1].id)") }
            if index == 4 { expected.append("unread") }
            if index == 8 { expected += ["g:\(messages[6].id)", "caught-up"] }
            expected.append("m:\(message.id)")
        }
        expected += ["g:\(messages[11].id)", "p:N1"]
        #expect(timeline.items.map(\.id) == expected)
        for (index, id) in expected.enumerated() { #expect(timeline.index(ofItem: id) == index, "\(id)") }
        #expect(timeline.index(ofItem: "m:NO-SUCH-MESSAGE") == nil)
        #expect(timeline.newestMessageIndex == expected.firstIndex(of: "m:\(messages[11].id)"))
        let message = try #require(timeline.items.first { $0.id == "m:\(messages[5].id)" })
        guard case .message(let shown) = message.kind else { throw TimelineTestError() }
        #expect(shown == messages[5])
    }

    @Test(
        "a catch-up that found nothing (the first connection's, of a chat just loaded) marks nothing; no unread message, no divider"
    )
    func emptyCatchUp() throws {
        let messages = Self.messages
        let channel = F.channel(
            messages, catchUp: ChatCatchUp(messages: 0), lastRead: messages[11].id)
        let timeline = Timeline(channel: channel, width: 60, currentUserID: F.me, timeZone: F.utc)
        #expect(timeline.items.map(\.id) == ["top"] + messages.map { "m:\($0.id)" })
        var state = F.state(.connected, channel: channel)
        state.size = F.large
        #expect(!ChatScreen.render(state, size: F.large).description.contains("caught up"))
        // One that brought a message marks it, above it.
        let found = Timeline(
            channel: F.channel(messages, catchUp: ChatCatchUp(messages: 1, oldestFound: messages[11].id)), width: 60,
            currentUserID: F.me, timeZone: F.utc)
        let marker = try #require(found.items.firstIndex { $0.id == "caught-up" })
        #expect(found.items[marker + 1].id == "m:\(messages[11].id)")
        #expect(found.rows(of: marker).flatMap { $0.map(\.text) }.joined().contains("caught up: 1 message"))
    }

    @Test("a message's rows are laid out again when it is edited, though its id and the width are the same")
    func editedMessageIsLaidOutAgain() {
        var messages = Self.messages
        let before = Timeline(channel: F.channel(messages), width: 60, currentUserID: F.me, timeZone: F.utc)
        let last = before.items.count - 1
        #expect(before.rows(of: last).flatMap { $0.map(\.text) }.joined().contains("m11"))
        messages[11].content = "m11, edited"
        messages[11].edited = F.now
        let after = Timeline(channel: F.channel(messages), width: 60, currentUserID: F.me, timeZone: F.utc)
        let text = after.rows(of: last).flatMap { $0.map(\.text) }.joined()
        #expect(text.contains("m11, edited") && text.contains("(edited)"))
    }

    @Test("whether the newest message is on screen, counted from the bottom, is the window's answer")
    func newestShown() {
        let messages = Self.messages
        let pending = (0..<4).map { F.entry("N\($0)", "pending \($0)", .sending) }
        for count in 0...pending.count {
            for gapAtEnd in [false, true] {
                let gaps = gapAtEnd ? [HistoryGap(after: messages[11].id, before: F.ulid(5_000))] : []
                let channel = F.channel(messages, gaps: gaps, pending: Array(pending.prefix(count)))
                let timeline = Timeline(channel: channel, width: 40, currentUserID: F.me, timeZone: F.utc)
                let newest = timeline.newestMessageIndex!
                for height in 0...12 {
                    for position in [ChatState.ScrollPosition.bottom, .anchored(item: "m:\(messages[9].id)", line: 0)] {
                        let window = timeline.window(height: height, position: position)
                        #expect(
                            timeline.showsNewestMessage(height: height, position: position)
                                == window.visibleItems.contains(newest),
                            "\(count) pending, gap \(gapAtEnd), height \(height), \(position)")
                    }
                }
            }
        }
        #expect(
            !Timeline(channel: F.channel([]), width: 40, currentUserID: F.me, timeZone: F.utc)
                .showsNewestMessage(height: 5, position: .bottom))
    }
}

struct TimelineTestError: Error {}
