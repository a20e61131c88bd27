import LifelineCore
import LifelineTesting
import Testing

/// The lifecycle's extension "A short connection keeps the failure count": a connection that ends within the
/// stability window of CONNECTED continues the count it started from.
@Suite("Short connections keep the failure count")
struct SessionMachineStabilityTests {
    let dropped = SessionFailure.temporary(.socketDropped)

    /// A story connected after `failures` failed attempts.
    func connected(after failures: Int) -> Story {
        let story = Story(in: .connecting)
        for _ in 0..<failures {
            story.ended(dropped)
            story.send(.retry)
        }
        story.send(.socketConnected)
        return story
    }

    @Test("a connection that ends within the window continues from the count before it, plus one")
    func shortConnectionContinues() {
        let story = connected(after: 2)
        #expect(story.machine.failures == 0, "CONNECTED still sets the count to 0, as the specification says")
        #expect(story.machine.failuresBeforeConnected == 2)
        let output = story.ended(dropped, connectedFor: .seconds(29))
        #expect(output.transitions.map(\.failures) == [3])
        #expect(output.actions.contains(retryTimer(id: 3, failures: 3, delay: .seconds(7))))
        #expect(story.machine.failures == 3)
    }

    @Test("a connection that lasted the window starts the count again from 1")
    func stableConnectionResets() {
        let story = connected(after: 2)
        let output = story.ended(dropped, connectedFor: .seconds(30))
        #expect(output.transitions.map(\.failures) == [1])
        #expect(output.actions.contains(retryTimer(id: 3, failures: 1, delay: .seconds(1))))
    }

    @Test("told the time, the machine measures a connection's age from its own record of CONNECTED")
    func ageFromTheMachinesRecord() {
        for (endedAt, count) in [(Duration.seconds(129), 3), (.seconds(130), 1)] {
            let story = Story(in: .connecting)
            for _ in 0..<2 {
                story.ended(dropped)
                story.send(.retry)
            }
            let generation = story.machine.liveGeneration ?? 0
            let ready = story.machine.connectionReady(generation: generation, at: .seconds(100), using: &story.random)
            #expect(ready.transitions.map(\.to) == [.connected])
            #expect(story.machine.connectedAt == .seconds(100))
            #expect(story.machine.connectedFor(at: .seconds(110)) == .seconds(10))
            let output = story.machine.connectionEnded(
                dropped, generation: generation, connectedFor: story.machine.connectedFor(at: endedAt),
                using: &story.random)
            #expect(output.transitions.map(\.failures) == [count], "ended at \(endedAt)")
            #expect(story.machine.connectedAt == nil, "forgotten on leaving CONNECTED")
            #expect(story.machine.connectedFor(at: endedAt) == nil)
        }
    }

    @Test("a superseded connection's ready report records nothing, and a delivery deadline is aged the same way")
    func ageOfStaleAndTimers() {
        let story = connected(after: 2)
        let live = story.machine.liveGeneration ?? 0
        #expect(story.machine.connectionReady(generation: live &+ 5, at: .seconds(1), using: &story.random) == .ignored)
        #expect(story.machine.connectedAt == nil, "the story connected without saying when")
        for (firedAt, count) in [(Duration.seconds(60), 3), (.seconds(90), 1)] {
            let story = Story(in: .connecting)
            for _ in 0..<2 {
                story.ended(dropped)
                story.send(.retry)
            }
            let generation = story.machine.liveGeneration ?? 0
            _ = story.machine.connectionReady(
                generation: generation, at: .seconds(50), using: &story.random)
            let watch = story.machine.deliveryExpected("k", generation: generation, using: &story.random)
            guard case .armTimer(let timer)? = watch.actions.first else {
                Issue.record("no delivery timer: \(watch)")
                return
            }
            let age = story.machine.connectedFor(at: firedAt)
            let fired = story.machine.timerFired(timer.id, connectedFor: age, using: &story.random)
            #expect(fired.transitions.map(\.failures) == [count], "fired at \(firedAt), CONNECTED at 50 s")
        }
    }

    @Test("an end of unknown age (the event API) keeps the specification's count")
    func unknownAgeResets() {
        let story = connected(after: 2)
        #expect(story.ended(dropped).transitions.map(\.failures) == [1])
        let again = connected(after: 2)
        #expect(again.send(.temporaryFailure(.socketDropped)).transitions.map(\.failures) == [1])
    }

    @Test("a server that drops every connection right after Ready meets the formula's growing delays")
    func flappingServerBacksOff() {
        let story = Story(in: .connecting)
        var delays: [Duration] = []
        var polling: [Bool] = []
        for _ in 0..<8 {
            story.send(.socketConnected)
            let output = story.ended(dropped, connectedFor: .milliseconds(50))
            for case .armTimer(let timer) in output.actions { delays.append(timer.delay) }
            polling.append(output.actions.contains(.startHealthPolling))
            story.send(.retry)
        }
        #expect(delays == [1, 3, 7, 15, 31, 63, 127, 255].map { Duration.seconds($0) })
        #expect(polling == [false, false] + Array(repeating: true, count: 6), "from 3, again after each CONNECTED")
    }

    @Test("a permanent end in CONNECTED is a drop, and keeps the count when short")
    func permanentEndInConnected() {
        let story = connected(after: 1)
        let output = story.ended(.permanent(.invalidSession), connectedFor: .seconds(1))
        #expect(output.transitions.map(\.failures) == [2])
    }

    @Test("the age of a connection that never reached CONNECTED changes nothing")
    func ageOutsideConnected() {
        let story = Story(in: .connecting)
        story.ended(dropped)
        story.send(.retry)
        #expect(story.ended(dropped, connectedFor: .seconds(1)).transitions.map(\.failures) == [2])
    }

    @Test("the window is the machine's: a shortened one, as the runtime sets with its heartbeat")
    func customWindow() {
        var machine = SessionMachine(retryPolicy: exactPolicy, stabilityWindow: .seconds(2))
        var random = SeededRandomNumberGenerator(seed: 1)
        #expect(machine.stabilityWindow == .seconds(2))
        #expect(SessionMachine().stabilityWindow == .seconds(30), "one heartbeat interval by default")
        _ = machine.handle(.loginCached(credentials), using: &random)
        _ = machine.connectionEnded(dropped, generation: 1, using: &random)
        _ = machine.handle(.retry, using: &random)
        _ = machine.connectionReady(generation: 2, using: &random)
        let short = machine.connectionEnded(dropped, generation: 2, connectedFor: .seconds(1), using: &random)
        #expect(short.transitions.map(\.failures) == [2])
        _ = machine.handle(.retry, using: &random)
        _ = machine.connectionReady(generation: 3, using: &random)
        let long = machine.connectionEnded(dropped, generation: 3, connectedFor: .seconds(2), using: &random)
        #expect(long.transitions.map(\.failures) == [1])
    }

    @Test("a live connection's run returning is its end without a reason; a superseded one's changes nothing")
    func connectionReturned() {
        let story = connected(after: 0)
        let live = story.machine.liveGeneration ?? 0
        #expect(story.machine.connectionReturned(generation: live + 1, using: &story.random) == .ignored)
        #expect(story.machine.state == .connected)
        let output = story.machine.connectionReturned(generation: live, using: &story.random)
        #expect(output.transitions.map(\.to) == [.disconnected])
        #expect(output.transitions.first?.cause?.code == .temporary(.socketDropped))
        #expect(output.transitions.first?.cause?.message == "the connection ended without a reason")
        #expect(!output.actions.contains(.closeConnection(generation: live)), "it ended by itself")
        #expect(story.machine.connectionReturned(generation: live, using: &story.random) == .ignored)
    }
}
