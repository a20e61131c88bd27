import Lifeline
import LifelineCore
import LifelineTesting
import Synchronization
import Testing

/// The device's wall clock, as a value a test can change.
final class SettableWallClock: Sendable {
    private let value: Mutex<WallClockTime>

    init(_ time: WallClockTime) {
        value = Mutex(time)
    }

    var now: WallClockTime { value.withLock { $0 } }
    func jump(by duration: Duration) { value.withLock { $0 = $0.advanced(by: duration) } }
}

/// An operation list on a test clock, a scripted source and a wall clock the test sets, running in a task.
final class ListHarness: Sendable {
    /// 2024-11-14T22:13:20Z: the server's clock at the test clock's zero, unless skewed.
    static let epoch = WallClockTime(secondsSince1970: 1_731_622_400 as Int64)

    let clock = TestClock()
    let source: ScriptedOperationSource<Op>
    let list: OperationList<Op>
    /// The device's wall clock: the server's, unless a test moves it.
    let wall = SettableWallClock(ListHarness.epoch)
    private let runner: Task<Void, Never>

    init(recheck: ExpiryRecheckPolicy = .standard) {
        source = ScriptedOperationSource(clock: clock)
        list = OperationList(
            source: source, clock: clock, wallClock: { [wall] in wall.now },
            configuration: .init(recheck: recheck))
        let list = list
        runner = Task { await list.run() }
    }

    /// What a server whose clock is `skew` off answers now: `operations` expiring `expiresIn` from now
    /// on its clock, with its `Date` header (or none).
    func listing(
        _ operations: [(id: Int, expiresIn: Duration)], skew: Duration = .zero, dateHeader: Bool = true
    ) -> OperationListing<Op> {
        let serverNow = Self.epoch.advanced(by: skew + clock.now.offset)
        return OperationListing(
            operations.map { .init(Op(id: $0.id), expires: serverNow.advanced(by: $0.expiresIn)) },
            serverTime: dateHeader ? serverNow : nil, roundTrip: .milliseconds(120))
    }

    /// The listing for operations whose expiry on the server's clock is fixed: `expiresAt` after the
    /// test clock's zero.
    func listing(expiringAt operations: [(id: Int, at: Duration)]) -> OperationListing<Op> {
        OperationListing(
            operations.map { .init(Op(id: $0.id), expires: Self.epoch.advanced(by: $0.at)) },
            serverTime: Self.epoch.advanced(by: clock.now.offset), roundTrip: .milliseconds(120))
    }

    /// Answers the next fetch and waits until the list has applied it.
    @discardableResult
    func answerNext(_ listing: OperationListing<Op>) async -> ScriptedFetch<Op> {
        let fetch = await source.nextFetch()
        // Subscribed once the fetch has started: every earlier refresh's event was published before it.
        var events = list.events.makeAsyncIterator()
        fetch.answer(listing)
        while let event = await events.next() {
            if case .refreshed = event { break }
        }
        return fetch
    }

    /// The current states, by id.
    var states: [Int: ListedOperation<Op>.State] {
        Dictionary(uniqueKeysWithValues: list.operations.map { ($0.operation.id, $0.state) })
    }

    func stop() async {
        runner.cancel()
        await runner.value
    }
}

@Suite("The operation list", .hangBound)
struct OperationListTests {
    @Test(
        "a server clock two hours ahead or behind fires at the same moment as an unskewed one",
        arguments: [-7_200, 0, 7_200] as [Int64])
    func serverSkew(skewSeconds: Int64) async throws {
        let harness = ListHarness()
        var events = harness.list.events.makeAsyncIterator()
        await harness.answerNext(harness.listing([(1, .seconds(30))], skew: .seconds(skewSeconds)))
        #expect(await harness.clock.nextSleep() == .at(30))
        #expect(harness.list.operations.first?.deadline == .seconds(30))
        harness.clock.advance(to: .at(30))
        #expect(await harness.source.nextFetch().startedAt == .at(30), "refreshed when it expired")
        while let event = await events.next() {
            if case .expired(let operations) = event {
                #expect(operations == [Op(id: 1)])
                break
            }
        }
        await harness.stop()
    }

    @Test(
        "a jump of the device's wall clock after the list arrived moves no expiry",
        arguments: [true, false], [-3_600, 3_600] as [Int64])
    func wallClockJump(dateHeader: Bool, jumpSeconds: Int64) async throws {
        let harness = ListHarness()
        await harness.answerNext(harness.listing([(1, .seconds(30)), (2, .seconds(90))], dateHeader: dateHeader))
        #expect(await harness.clock.nextSleep() == .at(30))
        harness.wall.jump(by: .seconds(jumpSeconds))
        // A refresh that fails after the jump leaves the deadlines where they were.
        harness.list.refresh()
        await harness.source.nextFetch().fail(CancellationError())
        harness.clock.advance(to: .at(29))
        #expect(harness.clock.pendingDeadlines == [.at(30)])
        #expect(harness.list.operations.map(\.deadline) == [.seconds(30), .seconds(90)])
        #expect(harness.states == [1: .pending, 2: .pending])
        harness.clock.advance(to: .at(30))
        let fetch = await harness.source.nextFetch()
        #expect(fetch.number == 3 && fetch.startedAt == .at(30))
        #expect(harness.states == [1: .expiredAwaitingRefresh, 2: .pending])
        await harness.stop()
    }

    @Test("an expired operation stays listed, marked, until a refresh no longer returns it")
    func expiredStaysListed() async throws {
        let harness = ListHarness()
        var lists = harness.list.lists.makeAsyncIterator()
        await harness.answerNext(harness.listing([(1, .seconds(10)), (2, .seconds(60))]))
        harness.clock.advance(to: await harness.clock.nextSleep())
        let fetch = await harness.source.nextFetch()
        var shown = try #require(await lists.next())
        while shown.map(\.state) != [.expiredAwaitingRefresh, .pending] { shown = try #require(await lists.next()) }
        #expect(shown.map(\.operation.id) == [1, 2], "still listed while the refresh is in flight")
        #expect(harness.list.operations.count == 2)
        fetch.answer(harness.listing([(2, .seconds(50))]))
        while shown.count != 1 { shown = try #require(await lists.next()) }
        #expect(shown.map(\.operation.id) == [2])
        #expect(harness.states == [2: .pending])
        await harness.stop()
    }

    @Test("a refresh that still returns an expired operation checks again after 1, 2, 4, 8, 8 s — never at once")
    func recheckBacksOff() async throws {
        let harness = ListHarness(recheck: ExpiryRecheckPolicy(initial: .seconds(1), ceiling: .seconds(8)))
        let lingering = harness.listing(expiringAt: [(1, .seconds(10))])
        await harness.answerNext(lingering)
        harness.clock.advance(to: await harness.clock.nextSleep())
        var waits: [Duration] = []
        for round in 0..<5 {
            // The server still lists it, with the same expiry, although its clock has passed it.
            let fetch = await harness.answerNext(harness.listing(expiringAt: [(1, .seconds(10))]))
            #expect(fetch.number == round + 2)
            #expect(harness.states == [1: .expiredAwaitingRefresh])
            let answered = harness.clock.now
            let recheck = await harness.clock.nextSleep()
            waits.append(answered.duration(to: recheck))
            harness.clock.advance(to: recheck.advanced(by: .milliseconds(-1)))
            #expect(harness.source.fetches == round + 2, "no refresh before the delay")
            harness.clock.advance(to: recheck)
        }
        #expect(waits == [1, 2, 4, 8, 8].map { Duration.seconds($0) })
        await harness.answerNext(harness.listing([]))
        #expect(harness.list.operations.isEmpty)
        #expect(harness.clock.pendingSleeps == 0)
        _ = lingering
        await harness.stop()
    }

    @Test("an operation listed already past its expiry is checked again after the first delay")
    func listedAlreadyExpired() async throws {
        let harness = ListHarness()
        await harness.answerNext(harness.listing([(1, .seconds(-5)), (2, .seconds(20))]))
        #expect(harness.states == [1: .expiredAwaitingRefresh, 2: .pending])
        #expect(await harness.clock.nextSleep() == .at(1))
        await harness.stop()
    }

    @Test("refreshes that pile up while one is in flight become one more refresh, and never overlap")
    func refreshesCoalesce() async throws {
        let harness = ListHarness()
        let first = await harness.source.nextFetch()
        for _ in 0..<5 { harness.list.refresh() }
        for id in 0..<3 { harness.list.operationFinished(id) }
        first.answer(harness.listing([(1, .seconds(30))]))
        await harness.answerNext(harness.listing([(1, .seconds(30))]))
        // Nothing else was asked for: the next refresh is the one the expiry starts.
        #expect(await harness.clock.nextSleep() == .at(30))
        harness.clock.advance(to: .at(30))
        let fetch = await harness.source.nextFetch()
        #expect(fetch.number == 3 && fetch.startedAt == .at(30))
        #expect(harness.source.mostInFlight == 1)
        await harness.stop()
    }

    @Test("a push OperationFinished refreshes the list; the operation goes only when the server drops it")
    func pushRefreshes() async throws {
        let harness = ListHarness()
        await harness.answerNext(harness.listing([(1, .seconds(300)), (2, .seconds(300))]))
        harness.list.operationFinished(1)
        #expect(harness.states == [1: .pending, 2: .pending])
        let fetch = await harness.answerNext(harness.listing([(2, .seconds(300))]))
        #expect(fetch.number == 2 && fetch.startedAt == .at(0))
        #expect(harness.states == [2: .pending])
        await harness.stop()
    }

    @Test("a refresh that fails after an expiry is tried again after the re-check delay")
    func failedRefreshRetried() async throws {
        let harness = ListHarness()
        await harness.answerNext(harness.listing([(1, .seconds(10))]))
        harness.clock.advance(to: await harness.clock.nextSleep())
        await harness.source.nextFetch().fail(CancellationError())
        #expect(await harness.clock.nextSleep() == .at(11))
        harness.clock.advance(to: .at(11))
        await harness.source.nextFetch().fail(CancellationError())
        #expect(await harness.clock.nextSleep() == .at(13))
        #expect(harness.states == [1: .expiredAwaitingRefresh])
        await harness.stop()
    }

    @Test("when run() ends, the timer is stopped and the streams finish")
    func runEnds() async throws {
        let harness = ListHarness()
        let lists = harness.list.lists
        await harness.answerNext(harness.listing([(1, .seconds(10))]))
        _ = await harness.clock.nextSleep()
        await harness.stop()
        #expect(harness.clock.pendingSleeps == 0)
        var count = 0
        for await _ in lists { count += 1 }
        #expect(count >= 1)
    }
}
