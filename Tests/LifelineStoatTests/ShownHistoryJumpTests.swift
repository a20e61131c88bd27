import Foundation
import LifelineStoat
import Testing

@Suite("A jump's page joins the shown history as an island, its gaps recorded on either side")
struct ShownHistoryJumpTests {
    static let channel = ShownHistoryTests.channel
    static func id(_ number: Int) -> String { ShownHistoryTests.id(number) }
    static func message(_ number: Int) -> Message { ShownHistoryTests.message(number) }
    static func history(_ numbers: ClosedRange<Int>, gaps: [HistoryGap] = []) -> ChannelHistory {
        ShownHistoryTests.history(numbers, gaps: gaps)
    }

    /// A page of the messages `numbers`, covering from just below its first (or the start) through its last (or
    /// the present).
    static func page(
        _ numbers: ClosedRange<Int>, fromStart: Bool = false, toPresent: Bool = false, target: Int? = nil
    ) -> HistoryPage {
        HistoryPage(
            channelID: channel, messages: numbers.map { message($0) },
            from: fromStart ? nil : ULID.predecessor(of: id(numbers.lowerBound)),
            through: toPresent ? nil : id(numbers.upperBound), target: target.map(id))
    }

    /// An after-page: the messages `numbers`, covering from `after` (exclusive).
    static func after(_ after: Int, _ numbers: ClosedRange<Int>, toPresent: Bool) -> HistoryPage {
        HistoryPage(
            channelID: channel, messages: numbers.map { message($0) }, from: id(after),
            through: toPresent ? nil : id(numbers.upperBound))
    }

    @Test("a jump below everything shown is an island with a gap above it; pages after it fill the gap until it joins")
    func islandBelow() {
        var shown = ShownHistory(Self.history(40...45))
        shown.insert(Self.page(5...9, target: 7))
        #expect(shown.messages.map(\.id) == (Array(5...9) + Array(40...45)).map(Self.id))
        #expect(shown.gaps == [HistoryGap(after: Self.id(9), before: Self.id(40))])
        #expect(
            shown.island
                == HistoryIsland(
                    target: Self.id(7), first: Self.id(5), last: Self.id(9), gapBelow: nil,
                    gapAbove: HistoryGap(after: Self.id(9), before: Self.id(40))))
        #expect(shown.nextNewerPage == Self.id(9))
        #expect(!shown.reachedStart)

        // A message arrives live: it joins the newest messages; the island and its gap stay as they were.
        shown.update(Self.history(40...46))
        #expect(shown.messages.last?.id == Self.id(46))
        #expect(shown.island?.last == Self.id(9))
        #expect(shown.island?.gapAbove == HistoryGap(after: Self.id(9), before: Self.id(40)))

        // Scrolling down: a full page after the island shrinks the gap from below.
        shown.insert(Self.after(9, 10...20, toPresent: false))
        #expect(shown.island?.last == Self.id(20))
        #expect(shown.gaps == [HistoryGap(after: Self.id(20), before: Self.id(40))])
        #expect(shown.nextNewerPage == Self.id(20))
        // A short page reaches the newest messages: the gap is gone, the island joined the rest.
        shown.insert(Self.after(20, 21...39, toPresent: true))
        #expect(shown.gaps.isEmpty)
        #expect(shown.island == nil)
        #expect(shown.nextNewerPage == nil)
        #expect(shown.messages.map(\.id) == (5...46).map(Self.id))
    }

    @Test("a jump into a gap splits it: a gap on each side of the island")
    func islandInsideAGap() {
        let gap = HistoryGap(after: Self.id(2), before: Self.id(30))
        var shown = ShownHistory(
            ChannelHistory(
                channelID: Self.channel, messages: [1, 2, 30, 31].map { Self.message($0) }, isStale: false, gaps: [gap])
        )
        shown.insert(Self.page(10...14, target: 12))
        #expect(
            shown.gaps == [
                HistoryGap(after: Self.id(2), before: Self.id(10)), HistoryGap(after: Self.id(14), before: Self.id(30)),
            ])
        #expect(shown.island?.gapBelow == HistoryGap(after: Self.id(2), before: Self.id(10)))
        #expect(shown.island?.gapAbove == HistoryGap(after: Self.id(14), before: Self.id(30)))
        #expect(shown.island?.first == Self.id(10))
        #expect(shown.island?.last == Self.id(14))
    }

    @Test("an island with nothing newer shown stays open above; newer messages showing later make that a gap")
    func openAbove() {
        // The cache had nothing yet (never loaded): the jump's page is all that is shown.
        var shown = ShownHistory(ChannelHistory(channelID: Self.channel))
        shown.insert(Self.page(5...9, fromStart: true, target: 5))
        #expect(shown.reachedStart)
        #expect(shown.gaps.isEmpty)
        #expect(
            shown.island
                == HistoryIsland(target: Self.id(5), first: Self.id(5), last: Self.id(9), gapBelow: nil, gapAbove: nil))
        // The cache's newest page comes: what lies between is a recorded gap, never a silent hole.
        shown.update(Self.history(40...45))
        #expect(shown.gaps == [HistoryGap(after: Self.id(9), before: Self.id(40))])
        #expect(shown.island?.gapAbove == HistoryGap(after: Self.id(9), before: Self.id(40)))
    }

    @Test("a page reaching the newest messages joins them at once: no island")
    func reachesPresent() {
        var shown = ShownHistory(Self.history(40...45))
        shown.insert(Self.page(30...45, toPresent: true, target: 35))
        #expect(shown.gaps.isEmpty)
        #expect(shown.island == nil)
        #expect(shown.messages.map(\.id) == (30...45).map(Self.id))
    }

    @Test("the cache's range growing down into the island's gap ends the gap there; a gap ending at its oldest stays")
    func cacheGrowsIntoTheGap() {
        var shown = ShownHistory(Self.history(40...45))
        shown.insert(Self.page(5...9, target: 7))
        // The cache paged back (a page before its oldest message): its range starts at 30 now.
        shown.update(Self.history(30...45))
        #expect(shown.gaps == [HistoryGap(after: Self.id(9), before: Self.id(30))])
        // The cache moves on without reaching the gap: the gap stays, also when its end is the cache's oldest.
        shown.update(Self.history(30...46))
        #expect(shown.gaps == [HistoryGap(after: Self.id(9), before: Self.id(30))])
    }
}
