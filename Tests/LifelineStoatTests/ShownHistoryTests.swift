import Foundation
import LifelineStoat
import Testing

@Suite("A channel's shown history: the cache's newest messages and the pages loaded by scrolling")
struct ShownHistoryTests {
    static let channel = "CHANNEL"

    /// Ids that sort as ULIDs do: `M0010` < `M0011`.
    static func id(_ number: Int) -> String { "01JX" + String(format: "%022d", number) }

    static func message(_ number: Int, _ text: String? = nil) -> Message {
        Message(id: id(number), channel: channel, author: "A", content: text ?? "m\(number)")
    }

    static func history(_ numbers: ClosedRange<Int>, gaps: [HistoryGap] = [], stale: Bool = false) -> ChannelHistory {
        ChannelHistory(channelID: channel, messages: numbers.map { message($0) }, isStale: stale, gaps: gaps)
    }

    @Test("pages loaded by scrolling stay shown when new messages push them out of the cache's bound")
    func olderPagesStay() {
        var shown = ShownHistory(Self.history(11...15))
        #expect(shown.nextPage == Self.id(11))
        shown.olderPage((6...10).map { Self.message($0) }, before: Self.id(11), limit: 5)
        #expect(shown.messages.map(\.id) == (6...15).map(Self.id))
        // The cache keeps its newest 5: 16 and 17 arrive, 11 and 12 leave the cache, not the screen.
        shown.update(Self.history(13...17))
        #expect(shown.messages.map(\.id) == (6...17).map(Self.id))
        #expect(shown.nextPage == Self.id(6))
    }

    @Test("a gap the cache forgot once its bound moved past it stays shown until a page fills it")
    func forgottenGapStays() {
        let gap = HistoryGap(after: Self.id(12), before: Self.id(20))
        var shown = ShownHistory(
            ChannelHistory(
                channelID: Self.channel, messages: [10, 11, 12, 20, 21].map { Self.message($0) }, isStale: false,
                gaps: [gap]))
        // The cache moved on: its oldest is 21 now, and it trimmed the gap below it.
        shown.update(Self.history(21...25))
        #expect(shown.messages.map(\.id) == ([10, 11, 12] + Array(20...25)).map(Self.id))
        #expect(shown.gaps == [gap])
        // Scrolling back fills the newest gap first: the page before 20 covers 13…19, a short page ends the gap.
        #expect(shown.nextPage == Self.id(20))
        shown.olderPage((13...19).map { Self.message($0) }, before: Self.id(20), limit: 50)
        #expect(shown.gaps.isEmpty)
        #expect(shown.messages.map(\.id) == (10...25).map(Self.id))
        #expect(!shown.reachedStart)
    }

    @Test("a full page inside a gap shrinks it from above")
    func fullPageShrinksGap() {
        let gap = HistoryGap(after: Self.id(2), before: Self.id(30))
        var shown = ShownHistory(
            ChannelHistory(
                channelID: Self.channel, messages: [1, 2, 30, 31].map { Self.message($0) }, isStale: false, gaps: [gap])
        )
        shown.olderPage((25...29).map { Self.message($0) }, before: Self.id(30), limit: 5)
        #expect(shown.gaps.count == 1)
        #expect(shown.gaps.first?.after == Self.id(2))
        #expect(shown.gaps.first.map { $0.before <= Self.id(25) } == true)
        #expect(shown.nextPage == shown.gaps.first?.before)
    }

    @Test("a short page before the oldest message shown means the channel's start is shown")
    func reachedStart() {
        var shown = ShownHistory(Self.history(5...9))
        shown.olderPage((1...4).map { Self.message($0) }, before: Self.id(5), limit: 50)
        #expect(shown.reachedStart)
        #expect(shown.messages.first?.id == Self.id(1))
    }

    @Test("edits and deletions of messages below the cache's range follow the message events")
    func eventsBelowTheCache() {
        var shown = ShownHistory(Self.history(11...15))
        shown.olderPage((6...10).map { Self.message($0) }, before: Self.id(11), limit: 5)
        shown.update(Self.history(13...17))
        shown.apply(.deleted(id: Self.id(7), channel: Self.channel, origin: .live))
        shown.apply(
            .updated(
                MessageChange(
                    id: Self.id(8), channel: Self.channel, data: PartialMessage(content: "edited"), message: nil,
                    origin: .live)))
        // Another channel's events change nothing.
        shown.apply(.deleted(id: Self.id(9), channel: "OTHER", origin: .live))
        #expect(!shown.messages.contains { $0.id == Self.id(7) })
        #expect(shown.messages.first { $0.id == Self.id(8) }?.content == "edited")
        #expect(shown.messages.contains { $0.id == Self.id(9) })
    }

    @Test("the cache's range is the cache's: a message it deleted leaves the screen, its staleness shows")
    func cacheRange() {
        var shown = ShownHistory(Self.history(1...5))
        shown.update(
            ChannelHistory(
                channelID: Self.channel, messages: [1, 2, 4, 5].map { Self.message($0) }, isStale: true))
        #expect(shown.messages.map(\.id) == [1, 2, 4, 5].map(Self.id))
        #expect(shown.isStale)
    }
}
