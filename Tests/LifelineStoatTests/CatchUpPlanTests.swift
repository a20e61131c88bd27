import Foundation
import Testing

@testable import LifelineStoat

/// The catch-up's decisions, as stories: the chats a plan fetches and in which order, the request each needs,
/// and what each page means.
@Suite("The catch-up plan")
struct CatchUpPlanTests {
    static let channel = Ids.ulid(1_000, 7)

    /// A page of `count` messages of `channel` from `start` on (one a second), ascending.
    static func messages(_ times: ClosedRange<Int64>, in channel: String = channel) -> [Message] {
        times.map { Message(id: Ids.ulid($0 * 1_000), channel: channel, author: "A", content: "\($0)") }
    }

    static func chat(
        _ id: String, last: Int64?, cursor: CatchUpPlan.Cursor, open: Bool = false, activity: Double
    ) -> CatchUpPlan.Chat {
        CatchUpPlan.Chat(
            id: id, serverLast: last.map { Ids.ulid($0 * 1_000) }, cursor: cursor, isOpen: open,
            lastActivity: Date(timeIntervalSince1970: activity))
    }

    @Test(
        "Order: the open channel, then the first screen by recency, then the rest; chats with nothing newer off the first screen need no request"
    )
    func order() {
        let policy = CatchUpPolicy(firstScreen: 2)
        let known = { (time: Int64) in CatchUpPlan.Cursor.message(Ids.ulid(time * 1_000)) }
        let plan = CatchUpPlan(
            chats: [
                Self.chat("a-old-newer", last: 20, cursor: known(10), activity: 1),
                Self.chat("b-open", last: 10, cursor: known(10), open: true, activity: 2),
                Self.chat("c-top-same", last: 10, cursor: known(10), activity: 9),
                Self.chat("d-top-newer", last: 30, cursor: known(10), activity: 8),
                Self.chat("e-quiet", last: 10, cursor: known(10), activity: 3),
                Self.chat("f-never-held", last: 5, cursor: .unknown, activity: 4),
                Self.chat("g-empty", last: nil, cursor: .unknown, activity: 5),
                Self.chat("h-was-empty", last: 6, cursor: .start(Ids.ulid(1)), activity: 0),
            ], policy: policy)
        #expect(plan.order == ["b-open", "c-top-same", "d-top-newer", "f-never-held", "a-old-newer", "h-was-empty"])
        #expect(Set(plan.wholeWithoutFetch) == ["e-quiet", "g-empty"])
    }

    @Test(
        "Newer messages: from just below the newest cached ones to re-verify, page by page, until a short page; the cursor follows"
    )
    func forward() throws {
        var plan = CatchUpPlan(
            chats: [Self.chat(Self.channel, last: 30, cursor: .message(Ids.ulid(12_000)), activity: 1)],
            policy: CatchUpPolicy(pageSize: 5, verifiedMessages: 2, firstScreen: 0))
        let cached = Self.messages(8...12).map(\.id)
        let first = plan.start(Self.channel, cachedIDs: cached)
        #expect(first == .after(ULID.predecessor(of: cached[3])!, limit: 5))
        // The page holds the two cached messages to re-verify (12 was deleted) and three new ones.
        var page = Self.messages(11...11) + Self.messages(13...16)
        var outcome = try plan.received(page, for: Self.channel)
        #expect(outcome.verified.map(\.id) == [cached[3]])
        #expect(outcome.deleted == [cached[4]])
        #expect(outcome.added.map(\.id) == Self.messages(13...16).map(\.id))
        #expect(outcome.next == .after(page.last!.id, limit: 5))
        #expect(outcome.cursor == page.last!.id)
        #expect(plan.cursor(of: Self.channel) == page.last!.id)
        // A short page: the end.
        page = Self.messages(17...18)
        outcome = try plan.received(page, for: Self.channel)
        #expect(outcome.added == page)
        #expect(outcome.deleted.isEmpty)
        #expect(outcome.isDone)
        #expect(outcome.cursor == nil)
        #expect(outcome.gap == nil)
        #expect(outcome.from == Self.messages(16...16)[0].id)
        #expect(outcome.through == nil)
    }

    @Test("Past the page budget: the newest page, and a gap between what was paged and it")
    func budget() throws {
        var plan = CatchUpPlan(
            chats: [Self.chat(Self.channel, last: 100, cursor: .message(Ids.ulid(10_000)), activity: 1)],
            policy: CatchUpPolicy(pagesPerChat: 2, pageSize: 5, verifiedMessages: 0, firstScreen: 0))
        #expect(plan.start(Self.channel, cachedIDs: [Ids.ulid(10_000)]) == .after(Ids.ulid(10_000), limit: 5))
        var outcome = try plan.received(Self.messages(11...15), for: Self.channel)
        #expect(outcome.next == .after(Ids.ulid(15_000), limit: 5))
        outcome = try plan.received(Self.messages(16...20), for: Self.channel)
        #expect(outcome.next == .latest(limit: 5))
        #expect(outcome.cursor == Ids.ulid(20_000))
        // The newest page, newest first as the server sends it.
        outcome = try plan.received(Self.messages(96...100).reversed(), for: Self.channel)
        #expect(outcome.added.map(\.id) == Self.messages(96...100).map(\.id))
        #expect(outcome.gap == HistoryGap(after: Ids.ulid(20_000), before: Ids.ulid(96_000)))
        #expect(outcome.isDone)
        #expect(outcome.cursor == nil)
    }

    @Test("The newest page after the budget overlapping what was paged leaves no gap")
    func budgetOverlap() throws {
        var plan = CatchUpPlan(
            chats: [Self.chat(Self.channel, last: 22, cursor: .message(Ids.ulid(10_000)), activity: 1)],
            policy: CatchUpPolicy(pagesPerChat: 1, pageSize: 5, verifiedMessages: 0, firstScreen: 0))
        _ = plan.start(Self.channel, cachedIDs: [])
        _ = try plan.received(Self.messages(11...15), for: Self.channel)
        let outcome = try plan.received(Self.messages(18...22).reversed(), for: Self.channel)
        #expect(outcome.gap == HistoryGap(after: Ids.ulid(15_000), before: Ids.ulid(18_000)))
        var overlapping = CatchUpPlan(
            chats: [Self.chat(Self.channel, last: 19, cursor: .message(Ids.ulid(10_000)), activity: 1)],
            policy: CatchUpPolicy(pagesPerChat: 1, pageSize: 5, verifiedMessages: 0, firstScreen: 0))
        _ = overlapping.start(Self.channel, cachedIDs: [])
        _ = try overlapping.received(Self.messages(11...15), for: Self.channel)
        let overlap = try overlapping.received(Self.messages(15...19).reversed(), for: Self.channel)
        #expect(overlap.gap == nil)
        #expect(overlap.added.map(\.id) == Self.messages(16...19).map(\.id))
    }

    @Test(
        "The first screen's chats ask for their newest page first: shown at once, then forward pages fill in below it and it is added after them"
    )
    func newestFirst() throws {
        var plan = CatchUpPlan(
            chats: [Self.chat(Self.channel, last: 30, cursor: .message(Ids.ulid(10_000)), activity: 1)],
            policy: CatchUpPolicy(pageSize: 5, verifiedMessages: 1))
        #expect(plan.start(Self.channel, cachedIDs: Self.messages(9...10).map(\.id)) == .latest(limit: 5))
        // The newest five (26–30), newest first: the chat shows 30 at once; nothing is added yet.
        var outcome = try plan.received(Self.messages(26...30).reversed(), for: Self.channel)
        #expect(outcome.preview?.id == Ids.ulid(30_000))
        #expect(outcome.added.isEmpty)
        let start = ULID.predecessor(of: Ids.ulid(10_000))!
        #expect(outcome.next == .after(start, limit: 5))
        #expect(outcome.cursor == Ids.ulid(10_000))
        // Forward from just below 10 (re-verified): 10–14, then 15–19, 20–24, then 25–29 reaches the newest page.
        outcome = try plan.received(Self.messages(10...14), for: Self.channel)
        #expect(outcome.verified.map(\.id) == [Ids.ulid(10_000)])
        #expect(outcome.added.map(\.content) == ["11", "12", "13", "14"])
        for range in [15...19, 20...24] as [ClosedRange<Int64>] {
            outcome = try plan.received(Self.messages(range), for: Self.channel)
            #expect(outcome.added == Self.messages(range))
        }
        outcome = try plan.received(Self.messages(25...29), for: Self.channel)
        #expect(outcome.added.map(\.content) == ["25", "26", "27", "28", "29", "30"])
        #expect(outcome.isDone)
        #expect(outcome.gap == nil)
        // A small backlog: the newest page reaches below the cursor and is the whole catch-up.
        var small = CatchUpPlan(
            chats: [Self.chat(Self.channel, last: 12, cursor: .message(Ids.ulid(10_000)), activity: 1)],
            policy: CatchUpPolicy(pageSize: 5, verifiedMessages: 1))
        _ = small.start(Self.channel, cachedIDs: Self.messages(8...10).map(\.id))
        let whole = try small.received(Self.messages(8...12).reversed(), for: Self.channel)
        #expect(whole.isDone)
        #expect(whole.verified.map(\.id) == [Ids.ulid(10_000)])
        #expect(whole.added.map(\.content) == ["11", "12"])
    }

    @Test("Newest first with a budget: pages below it until the budget, then a gap below it")
    func newestFirstBudget() throws {
        var plan = CatchUpPlan(
            chats: [Self.chat(Self.channel, last: 100, cursor: .message(Ids.ulid(10_000)), activity: 1)],
            policy: CatchUpPolicy(pagesPerChat: 2, pageSize: 5, verifiedMessages: 0))
        #expect(plan.start(Self.channel, cachedIDs: [Ids.ulid(10_000)]) == .latest(limit: 5))
        _ = try plan.received(Self.messages(96...100).reversed(), for: Self.channel)
        let outcome = try plan.received(Self.messages(11...15), for: Self.channel)
        #expect(outcome.added.map(\.content) == ["11", "12", "13", "14", "15", "96", "97", "98", "99", "100"])
        #expect(outcome.gap == HistoryGap(after: Ids.ulid(15_000), before: Ids.ulid(96_000)))
        #expect(outcome.isDone)
    }

    @Test("An open channel re-verifies its whole cached history, even with nothing newer")
    func openChannel() throws {
        var plan = CatchUpPlan(
            chats: [Self.chat(Self.channel, last: 12, cursor: .message(Ids.ulid(12_000)), open: true, activity: 1)],
            policy: CatchUpPolicy(verifiedMessages: 1))
        #expect(plan.order == [Self.channel])
        let cached = Self.messages(1...12).map(\.id)
        #expect(plan.start(Self.channel, cachedIDs: cached) == .after(ULID.predecessor(of: cached[0])!, limit: 100))
        let outcome = try plan.received(Self.messages(1...12).filter { $0.id != cached[5] }, for: Self.channel)
        #expect(outcome.deleted == [cached[5]])
        #expect(outcome.verified.count == 11)
        #expect(outcome.added.isEmpty)
        #expect(outcome.isDone)
    }

    @Test(
        "A chat the cache never held gets its newest page, marked as not necessarily missed; one known empty pages from its creation"
    )
    func unknownAndEmpty() throws {
        var plan = CatchUpPlan(
            chats: [
                Self.chat("unknown", last: 3, cursor: .unknown, activity: 2),
                Self.chat(Self.channel, last: 3, cursor: .start(Self.channel), activity: 1),
            ], policy: .standard)
        #expect(plan.start("unknown", cachedIDs: []) == .latest(limit: 100))
        let newest = try plan.received(Self.messages(1...3, in: "unknown").reversed(), for: "unknown")
        #expect(newest.fromUnknownCursor)
        #expect(newest.added.map(\.content) == ["1", "2", "3"])
        #expect(newest.isDone)
        #expect(plan.start(Self.channel, cachedIDs: []) == .after(ULID.floor(of: Self.channel)!, limit: 100))
        let all = try plan.received(Self.messages(1...3), for: Self.channel)
        #expect(!all.fromUnknownCursor)
        #expect(all.added.count == 3)
    }

    @Test(
        "A page that is not what was asked is refused with a typed error, and the plan is as it was: the page may be asked again",
        arguments: [
            ("out of order", [2, 1] as [Int64], CatchUpPlanTests.channel),
            ("before its start", [5, 6], CatchUpPlanTests.channel),
            ("of another channel", [11, 12], "OTHER"),
            ("longer than asked", Array(11...16), CatchUpPlanTests.channel),
        ])
    func refused(_ label: String, _ times: [Int64], _ channel: String) throws {
        var plan = CatchUpPlan(
            chats: [Self.chat(Self.channel, last: 20, cursor: .message(Ids.ulid(10_000)), activity: 1)],
            policy: CatchUpPolicy(pageSize: 5, verifiedMessages: 0, firstScreen: 0))
        _ = plan.start(Self.channel, cachedIDs: [Ids.ulid(10_000)])
        let page = times.map { Message(id: Ids.ulid($0 * 1_000), channel: channel, author: "A") }
        #expect(throws: StoatClientError.self, "\(label)") { try plan.received(page, for: Self.channel) }
        do {
            _ = try plan.received(page, for: Self.channel)
        } catch {
            #expect(error.code == .unexpectedPage)
        }
        #expect(plan.cursor(of: Self.channel) == Ids.ulid(10_000))
        let good = try plan.received(Self.messages(11...13), for: Self.channel)
        #expect(good.added.count == 3)
    }

    @Test("A stored cursor wins over what the cache holds: an interrupted catch-up resumes where it stopped")
    func resume() {
        var plan = CatchUpPlan(
            chats: [Self.chat(Self.channel, last: 50, cursor: .message(Ids.ulid(20_000)), activity: 1)],
            policy: CatchUpPolicy(verifiedMessages: 0, firstScreen: 0))
        // Live messages (40, 41) sit above the cursor in the cache; they are not where it resumes.
        let cached = [Ids.ulid(19_000), Ids.ulid(20_000), Ids.ulid(40_000), Ids.ulid(41_000)]
        #expect(plan.start(Self.channel, cachedIDs: cached) == .after(Ids.ulid(20_000), limit: 100))
    }

    @Test(
        "After a failed fetch: a chat gone or unreadable ends quietly, a malformed or refused page gives it up, the network and the server's 5xx try again",
        arguments: [
            (StoatAPIError.Code.notFound, 404 as Int?, CatchUpEngine.Disposition.quiet),
            (.unknownChannel, 404, .quiet), (.missingPermission, 403, .quiet),
            (.malformedResponse, 200, .giveUp), (.failedValidation, 400, .giveUp),
            (.internalError, 500, .retry), (.network, nil, .retry), (.timeout, nil, .retry),
            (.rateLimited, 429, .retry), (.invalidSession, 401, .retry),
        ])
    func disposition(_ code: StoatAPIError.Code, _ status: Int?, _ expected: CatchUpEngine.Disposition) {
        let error = StoatAPIError(code: code, message: "test", status: status)
        #expect(CatchUpEngine.disposition(of: error) == expected)
    }

    @Test("A page of older messages out of order, out of range, of another channel or too long is refused")
    func olderPages() throws {
        let before = Ids.ulid(50_000)
        let good = Self.messages(40...44).reversed().map { $0 }
        try StoatClient.checkOlderPage(good, channel: Self.channel, before: before, limit: 5)
        let bad: [(String, [Message], Int)] = [
            ("out of order", Self.messages(40...44), 5),
            ("not before", Self.messages(48...52).reversed(), 5),
            ("of another channel", Self.messages(40...41, in: "OTHER").reversed(), 5),
            ("too long", good, 4),
        ]
        for (label, page, limit) in bad {
            #expect(throws: StoatClientError.self, "\(label)") {
                try StoatClient.checkOlderPage(page, channel: Self.channel, before: before, limit: limit)
            }
        }
    }
}
