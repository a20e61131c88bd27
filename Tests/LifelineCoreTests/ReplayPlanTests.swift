import LifelineCore
import LifelineTesting
import Testing

@Suite("The replay plan")
struct ReplayPlanTests {
    let a = SignificantEvent(.subscribe, "A")
    let b = SignificantEvent(.subscribe, "B")
    let c = SignificantEvent(.subscribe, "C")

    /// The events of the `.play` actions, in order.
    func plays(_ actions: [ReplayAction]) -> [SignificantEvent] {
        actions.compactMap { if case .play(let play) = $0 { play.event } else { nil } }
    }

    func ids(_ actions: [ReplayAction]) -> [UInt64] {
        actions.compactMap { if case .play(let play) = $0 { play.id } else { nil } }
    }

    @Test("while disconnected nothing is played; on CONNECTED the waiting events play in order, one after another")
    func sequentialOrder() {
        var plan = ReplayPlan()
        #expect(plan.requested(a) == [])
        #expect(plan.requested(b) == [])
        var next = plan.connected()
        #expect(plays(next) == [a], "one at a time")
        next = plan.played(ids(next)[0])
        #expect(plays(next) == [b], "the next only after the previous succeeded")
        next = plan.played(ids(next)[0])
        #expect(plays(next) == [])
        #expect(plan.record == [a, b])
    }

    @Test("a reconnect replays the record in order, flagged as replays, and never records them again")
    func replaysAreNotRecordedAgain() {
        var plan = ReplayPlan()
        _ = plan.connected()
        for event in [a, b] { _ = plan.played(ids(plan.requested(event))[0]) }
        for _ in 1...3 {
            _ = plan.disconnected()
            var next = plan.connected()
            var played: [SignificantEvent] = []
            while let play = next.compactMap({ if case .play(let p) = $0 { p } else { nil } }).first {
                #expect(play.isReplay)
                played.append(play.event)
                next = plan.played(play.id)
            }
            #expect(played == [a, b], "each once per connection")
            #expect(plan.record == [a, b])
        }
    }

    @Test("an unsubscribe before a reconnect removes the record, so it is not replayed")
    func unsubscribeNotReplayed() {
        var plan = ReplayPlan()
        _ = plan.connected()
        for event in [a, b] { _ = plan.played(ids(plan.requested(event))[0]) }
        _ = plan.disconnected()
        #expect(plan.requested(SignificantEvent(.unsubscribe, "A"), playable: false) == [])
        #expect(plays(plan.connected()) == [b])
        #expect(plan.record == [b])
    }

    @Test("a new subscription during a replay is played once, after the replays, and recorded")
    func newDuringReplay() {
        var plan = ReplayPlan()
        _ = plan.connected()
        for event in [a, b] { _ = plan.played(ids(plan.requested(event))[0]) }
        _ = plan.disconnected()
        var next = plan.connected()  // replaying a
        #expect(plan.requested(c) == [], "queued behind the replay")
        #expect(plan.requested(c) == [], "asked twice, queued once")
        var played: [SignificantEvent] = []
        while let id = ids(next).first {
            played += plays(next)
            next = plan.played(id)
        }
        #expect(played == [a, b, c])
        #expect(plan.record == [a, b, c])
    }

    @Test("a failing play is retried after 1 s, then 2 s, up to the limit, then surfaced, and the queue moves on")
    func retryLimit() throws {
        var plan = ReplayPlan(retryLimit: 3, retryDelay: .seconds(1))
        _ = plan.requested(a)
        _ = plan.requested(b)
        var next = plan.connected()
        for attempt in 1...3 {
            let play = try #require(next.compactMap { if case .play(let p) = $0 { p } else { nil } }.first)
            #expect(play.event == a && play.attempt == attempt)
            next = plan.failed(play.id)
            if attempt < 3 {
                let delay: Duration = attempt == 1 ? .seconds(1) : .seconds(2)
                #expect(next == [.cancelTimeout(play.id), .armRetry(play.id, after: delay)], "backs off; b waits")
                #expect(plan.retryTimerFired(play.id + 1_000) == [], "an unknown retry changes nothing")
                next = plan.retryTimerFired(play.id)
            }
        }
        #expect(next.contains(.surface(a, attempts: 3)))
        #expect(plays(next) == [b])
        #expect(plan.failures == [a])
        #expect(plan.record == [a], "recorded all the same, to be tried at the next connection")
    }

    @Test("a new event that runs out of attempts is played at the next connection, and its failure ends then")
    func failedNewEventIsRetriedAtTheNextConnection() throws {
        var plan = ReplayPlan(retryLimit: 1, retryDelay: .seconds(1))
        _ = plan.connected()
        let first = try #require(ids(plan.requested(a)).first)
        #expect(plan.failed(first).contains(.surface(a, attempts: 1)))
        #expect(plan.record == [a])
        _ = plan.disconnected()
        let next = plan.connected()
        #expect(plays(next) == [a], "tried again, once")
        _ = plan.played(try #require(ids(next).first))
        #expect(plan.failures.isEmpty)
        #expect(plan.record == [a], "recorded once")
    }

    @Test(
        "a replay that runs out of attempts stays recorded, is tried again at the next connection, and is reported until it succeeds"
    )
    func failedReplayIsKept() throws {
        var plan = ReplayPlan(retryLimit: 2, retryDelay: .seconds(1))
        _ = plan.connected()
        for event in [a, b] { _ = plan.played(ids(plan.requested(event))[0]) }
        _ = plan.disconnected()
        var next = plan.connected()
        var play = try #require(ids(next).first)
        next = plan.failed(play)
        next = plan.retryTimerFired(play)
        play = try #require(ids(next).first)
        next = plan.failed(play)
        #expect(next.contains(.surface(a, attempts: 2)))
        #expect(plan.failures == [a])
        #expect(plan.record == [a, b], "kept for the next connection")
        _ = plan.played(try #require(ids(next).first))  // b
        _ = plan.disconnected()
        next = plan.connected()
        #expect(plays(next) == [a], "tried again")
        #expect(plan.failures == [a], "still reported until it succeeds")
        _ = plan.played(try #require(ids(next).first))
        #expect(plan.failures.isEmpty)
    }

    @Test("a disconnection cancels the retry a failed play waits for")
    func disconnectionCancelsRetry() throws {
        var plan = ReplayPlan()
        _ = plan.requested(a)
        let play = try #require(ids(plan.connected()).first)
        _ = plan.failed(play)
        #expect(plan.disconnected() == [.cancelRetry(play)])
        #expect(plan.retryTimerFired(play) == [], "a late firing changes nothing")
        #expect(plays(plan.connected()) == [a], "the new event waited for the next connection")
    }

    @Test("an unsubscribe while its replay is in flight wins: the finished replay is not recorded again")
    func unsubscribeDuringReplay() {
        var plan = ReplayPlan()
        _ = plan.connected()
        _ = plan.played(ids(plan.requested(a))[0])
        _ = plan.disconnected()
        let replay = ids(plan.connected())[0]
        _ = plan.requested(SignificantEvent(.unsubscribe, "A"), playable: false)
        _ = plan.played(replay)
        #expect(plan.record.isEmpty)
    }

    @Test("a late answer for a play that was abandoned changes nothing")
    func lateAnswer() {
        var plan = ReplayPlan()
        _ = plan.requested(a)
        let id = ids(plan.connected())[0]
        _ = plan.disconnected()
        #expect(plan.played(id) == [])
        #expect(plan.record.isEmpty)
        #expect(plays(plan.connected()) == [a], "the new event waited for the next connection")
    }

    @Test("pipelined mode sends every queued play at once")
    func pipelined() {
        var plan = ReplayPlan(mode: .pipelined)
        for event in [a, b, c] { _ = plan.requested(event) }
        #expect(plays(plan.connected()) == [a, b, c])
    }

    @Test("a replay of 1 000 answered in any order keeps the plays in flight in order, and each answered once")
    func manyInFlightAnsweredInAnyOrder() {
        var random = SeededRandomNumberGenerator(seed: 20_261_125)
        let events = (0..<1_000).map { SignificantEvent(.subscribe, "channel \($0)") }
        var plan = ReplayPlan(mode: .pipelined)
        _ = plan.connected()
        for event in events { _ = plan.played(ids(plan.requested(event))[0]) }
        _ = plan.disconnected()
        let sent = plan.connected()
        #expect(plays(sent) == events, "the whole record at once, in order")
        var waiting = ids(sent)
        // Mostly in order (as a socket answers), with some answers early: the front is skipped and compacted,
        // an answer inside the list removes it there.
        while !waiting.isEmpty {
            let index = random.next() % 4 == 0 ? Int(random.next() % UInt64(waiting.count)) : 0
            let id = waiting.remove(at: index)
            #expect(plan.played(id) == [.cancelTimeout(id)])
            #expect(plan.played(id) == [], "a second answer is late")
            #expect(plan.inFlight.map(\.id) == waiting)
        }
        #expect(plan.record == events, "replays are not recorded again")
        _ = plan.disconnected()
        #expect(plays(plan.connected()) == events)
    }

    @Test("renewal plays recorded subscriptions again, at most the limit, without recording them twice")
    func renewal() {
        var plan = ReplayPlan(mode: .pipelined)
        _ = plan.connected()
        for event in [a, b, c] { _ = plan.played(ids(plan.requested(event))[0]) }
        let renewed = plan.renew(.subscribe, limit: 2)
        #expect(plays(renewed) == [a, b])
        for id in ids(renewed) { _ = plan.played(id) }
        #expect(plan.record == [a, b, c])
    }

    @Test("the user's own typing is played once when connected, never recorded, never replayed, never queued")
    func typing() {
        var plan = ReplayPlan()
        let typing = SignificantEvent(.beginTyping, "C1")
        #expect(plan.requested(typing) == [], "dropped while disconnected")
        #expect(plays(plan.connected()) == [])
        let begin = plan.requested(typing)
        #expect(plays(begin) == [typing])
        _ = plan.played(ids(begin)[0])
        #expect(plan.record.isEmpty, "a typing indicator lives seconds: not recorded")
        let end = plan.requested(SignificantEvent(.endTyping, "C1"))
        #expect(plays(end) == [SignificantEvent(.endTyping, "C1")])
        #expect(plan.failed(ids(end)[0]) == [.cancelTimeout(ids(end)[0])], "not retried")
        _ = plan.disconnected()
        #expect(plays(plan.connected()) == [], "nothing to replay")
    }
}
