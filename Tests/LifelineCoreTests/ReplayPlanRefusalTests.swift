import LifelineCore
import Testing

/// The replay plan's rule "A kind the server refuses is not played again": Stoat's new events server closes
/// the connection with 1007 after a `Subscribe`, which it does not take.
@Suite("A kind the server refuses")
struct ReplayPlanRefusalTests {
    let a = SignificantEvent(.subscribe, "A")
    let b = SignificantEvent(.subscribe, "B")
    let c = SignificantEvent(.subscribe, "C")
    let refused = SessionFailure.temporary(TemporaryFailureCause(code: .frameRefused, message: "closed with 1007"))
    let dropped = SessionFailure.temporary(.socketDropped)

    func plays(_ actions: [ReplayAction]) -> [ReplayPlan.Play] {
        actions.compactMap { if case .play(let play) = $0 { play } else { nil } }
    }

    /// Plays everything the actions start, and what follows, until nothing is left to play.
    func playAll(_ plan: inout ReplayPlan, _ actions: [ReplayAction]) -> [SignificantEvent] {
        var played: [SignificantEvent] = []
        var next = plays(actions)
        while let play = next.first {
            played.append(play.event)
            next = Array(next.dropFirst()) + plays(plan.played(play.id))
        }
        return played
    }

    @Test("a refusal after a Subscribe stops subscriptions for the session, says so once, and plays the rest")
    func refusedSubscribe() throws {
        var plan = ReplayPlan()
        for event in [a, b] { _ = plan.requested(event) }
        // The first play is written (success is the frame written), then the server closes with 1007.
        let first = plays(plan.connected())
        #expect(first.map(\.event) == [a])
        let second = plays(plan.played(try #require(first.first).id))
        #expect(plan.lastPlayed == b, "the next play went out before the close came")
        #expect(
            plan.disconnected(after: refused)
                == [.cancelTimeout(try #require(second.first).id), .unsupported(.subscribe, events: [a, b])])
        #expect(plan.unsupportedKinds == [.subscribe])
        #expect(plan.unsupportedEvents == [a, b], "both recorded as asked, neither played again")
        #expect(plan.record == [a, b])
    }

    @Test("the refusal's actions: the play in flight abandoned, and one report with the recorded events")
    func refusalActions() throws {
        var plan = ReplayPlan()
        _ = plan.connected()
        _ = plan.played(try #require(plays(plan.requested(a)).first).id)
        let inFlight = try #require(plays(plan.requested(b)).first)
        #expect(
            plan.disconnected(after: refused)
                == [.cancelTimeout(inFlight.id), .unsupported(.subscribe, events: [a, b])])
        #expect(plays(plan.connected()).isEmpty, "the reconnect plays no subscription")
        #expect(plan.disconnected(after: refused) == [], "told once: a later refusal blames nothing new")
    }

    @Test("after the refusal, typing still plays, and a new subscription is recorded, not played, and reported")
    func afterRefusal() throws {
        var plan = ReplayPlan()
        _ = plan.requested(a)
        _ = plan.played(try #require(plays(plan.connected()).first).id)
        _ = plan.disconnected(after: refused)
        #expect(plays(plan.connected()).isEmpty)
        let typing = SignificantEvent(.beginTyping, "C1")
        #expect(plays(plan.requested(typing)).map(\.event) == [typing])
        #expect(plan.requested(c) == [.unsupported(.subscribe, events: [c])])
        #expect(plan.requested(c) == [], "asked twice, recorded once")
        #expect(plan.unsupportedEvents == [a, c])
        #expect(plan.renew(.subscribe, limit: 5) == [], "not renewed either")
    }

    @Test("an unsubscribe removes an unsupported subscription")
    func unsubscribeUnsupported() throws {
        var plan = ReplayPlan()
        _ = plan.requested(a)
        _ = plan.played(try #require(plays(plan.connected()).first).id)
        _ = plan.disconnected(after: refused)
        _ = plan.requested(SignificantEvent(.unsubscribe, "A"), playable: false)
        #expect(plan.unsupportedEvents.isEmpty)
        #expect(plan.record.isEmpty)
    }

    @Test("a refusal after no play on that connection blames nothing")
    func refusalWithoutPlay() throws {
        var plan = ReplayPlan()
        _ = plan.requested(a)
        _ = plan.played(try #require(plays(plan.connected()).first).id)
        _ = plan.disconnected(after: dropped)
        _ = plan.played(try #require(plays(plan.connected()).first).id)
        _ = plan.disconnected()
        // A connection on which nothing was played yet.
        var empty = ReplayPlan()
        _ = empty.connected()
        #expect(empty.disconnected(after: refused) == [])
        #expect(empty.unsupportedKinds.isEmpty)
        #expect(plan.unsupportedKinds.isEmpty, "other ends are not refusals")
        let replays = plan.connected()
        #expect(playAll(&plan, replays) == [a], "still replayed")
    }

    @Test("a refusal right after the user's typing refuses typing, and subscriptions keep replaying")
    func refusedTyping() throws {
        var plan = ReplayPlan()
        _ = plan.requested(a)
        _ = plan.played(try #require(plays(plan.connected()).first).id)
        let typing = SignificantEvent(.beginTyping, "C1")
        _ = plan.played(try #require(plays(plan.requested(typing)).first).id)
        #expect(plan.disconnected(after: refused) == [.unsupported(.beginTyping, events: [])])
        let replays = plan.connected()
        #expect(playAll(&plan, replays) == [a])
        #expect(plan.requested(typing) == [], "typing is no longer played")
    }

    @Test("reset forgets the refused kinds with the rest")
    func resetForgets() throws {
        var plan = ReplayPlan()
        _ = plan.requested(a)
        _ = plan.played(try #require(plays(plan.connected()).first).id)
        _ = plan.disconnected(after: refused)
        _ = plan.reset()
        #expect(plan.unsupportedKinds.isEmpty)
        _ = plan.requested(b)
        let next = plan.connected()
        #expect(playAll(&plan, next) == [b])
    }
}
