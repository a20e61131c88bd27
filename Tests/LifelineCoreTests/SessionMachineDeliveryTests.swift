import LifelineCore
import LifelineTesting
import Testing

/// A delivery deadline without jitter, so that stories state exact delays.
let exactDelivery = try! DeliveryWatchPolicy(deadline: .seconds(15), jitter: 0)

extension Story {
    /// A story in CONNECTED whose machine watches deliveries with `policy`.
    convenience init(connectedWatching policy: DeliveryWatchPolicy, seed: UInt64 = 1) {
        self.init()
        machine = SessionMachine(retryPolicy: exactPolicy, deliveryWatchPolicy: policy)
        random = SeededRandomNumberGenerator(seed: seed)
        for event in path(to: .connected) { send(event) }
    }

    /// Reports that the server stored something connection `generation` must deliver.
    @discardableResult
    func expected(_ key: String, generation: UInt64? = nil) -> SessionMachine.Output {
        noting(machine.deliveryExpected(key, generation: generation ?? machine.liveGeneration ?? 0, using: &random))
    }

    /// Reports that the socket delivered `key`.
    @discardableResult
    func seen(_ key: String) -> SessionMachine.Output { machine.deliverySeen(key) }
}

@Suite("The delivery deadline: a deaf socket noticed")
struct SessionMachineDeliveryTests {
    @Test("a send's message expected on the live socket arms the deadline; its event seen cancels it")
    func expectedThenSeen() {
        let story = Story(connectedWatching: exactDelivery)
        let armed = story.expected("nonce-1")
        #expect(
            armed == .updated(actions: [.armTimer(SessionTimer(id: 1, purpose: .deliveryWatch, delay: .seconds(15)))]))
        #expect(story.machine.watchedDelivery == "nonce-1")
        #expect(story.seen("nonce-1") == .updated(actions: [.cancelTimer(id: 1)]))
        #expect(story.machine.watchedDelivery == nil)
        #expect(story.machine.state == .connected)
        #expect(story.machine.failures == 0)
        // The firing that raced the cancellation changes nothing.
        #expect(story.fired(1) == .ignored)
        #expect(story.machine.state == .connected)
    }

    @Test("a deadline that passes is TEMPORARY_FAILURE deliveryStalled: the deaf socket closed, the retry armed")
    func deadlinePasses() {
        let story = Story(connectedWatching: exactDelivery)
        story.expected("nonce-1")
        let output = story.fired(1)
        #expect(
            output.transitions
                == [
                    SessionTransition(
                        from: .connected, event: .temporaryFailure, to: .disconnected, failures: 1,
                        cause: .temporary(
                            TemporaryFailureCause(
                                code: .deliveryStalled,
                                message:
                                    "the socket delivered no event for a message the server stored, within 15.0 seconds"
                            )))
                ])
        #expect(
            output.actions == [.closeConnection(generation: 1), retryTimer(id: 2, failures: 1, delay: .seconds(1))])
        #expect(story.machine.watchedDelivery == nil)
        // The event arriving late from the closed socket changes nothing.
        #expect(story.seen("nonce-1") == .ignored)
        // The reconnect is a fresh connection, which may be watched again.
        story.fired(2)
        _ = story.machine.connectionReady(generation: 2, using: &story.random)
        #expect(story.machine.state == .connected)
        #expect(story.expected("nonce-2").actions.count == 1)
    }

    @Test(
        "leaving CONNECTED on any edge cancels the deadline before closing the connection",
        arguments: [SessionEvent.temporaryFailure(.socketDropped), .logout(external: false), .logout(external: true)])
    func leavingCancels(event: SessionEvent) {
        let story = Story(connectedWatching: exactDelivery)
        story.expected("nonce-1")
        let output = story.send(event)
        #expect(output.actions.prefix(2) == [.cancelTimer(id: 1), .closeConnection(generation: 1)])
        #expect(story.machine.watchedDelivery == nil)
        #expect(story.fired(1) == .ignored)
    }

    @Test("one delivery is watched at a time; a second one, or one seen that is not awaited, changes nothing")
    func oneAtATime() {
        let story = Story(connectedWatching: exactDelivery)
        story.expected("first")
        #expect(story.expected("second") == .ignored)
        #expect(story.seen("second") == .ignored)
        #expect(story.machine.watchedDelivery == "first")
        #expect(story.seen("first").actions == [.cancelTimer(id: 1)])
        #expect(
            story.expected("third").actions == [
                .armTimer(SessionTimer(id: 2, purpose: .deliveryWatch, delay: .seconds(15)))
            ])
    }

    @Test("a delivery is watched only on the connection that is CONNECTED now")
    func onlyTheLiveConnection() {
        let story = Story(connectedWatching: exactDelivery)
        // A send that started on a connection since replaced: its event may have gone to the old socket.
        #expect(story.expected("old", generation: 0) == .ignored)
        story.send(.temporaryFailure(.socketDropped))
        for state in [SessionState.disconnected] {
            #expect(story.machine.state == state)
            #expect(story.expected("offline", generation: 1) == .ignored)
        }
        story.send(.retry)
        #expect(story.machine.state == .reconnecting)
        #expect(story.expected("reconnecting", generation: 2) == .ignored)
        #expect(story.machine.watchedDelivery == nil)
        for state in SessionState.allCases where state != .connected {
            let other = Story(in: state)
            #expect(other.expected("x") == .ignored, "\(state)")
        }
    }

    @Test("the deadline is jittered by the injected generator: the same seed draws the same delay, within ±20 %")
    func jitter() throws {
        var delays: Set<Duration> = []
        for seed in UInt64(1)...200 {
            let story = Story(connectedWatching: .standard, seed: seed)
            guard case .armTimer(let timer) = story.expected("k").actions.first else {
                Issue.record("no timer for seed \(seed)")
                return
            }
            #expect(timer.delay >= .seconds(12) && timer.delay < .seconds(18))
            let again = Story(connectedWatching: .standard, seed: seed)
            #expect(again.expected("k").actions == [.armTimer(timer)])
            delays.insert(timer.delay)
        }
        #expect(delays.count > 150, "spread, so a lagging bus does not reconnect every client at once")
    }

    @Test("a disabled watch arms nothing")
    func disabled() {
        let story = Story(connectedWatching: .disabled)
        #expect(story.expected("k") == .ignored)
        #expect(story.machine.watchedDelivery == nil)
    }

    @Test("the watch leaves the failure count alone: only its firing counts, once, as any TEMPORARY_FAILURE")
    func failuresUntouched() {
        let story = Story(connectedWatching: exactDelivery)
        story.expected("k")
        story.seen("k")
        story.expected("j")
        #expect(story.machine.failures == 0)
        story.fired(2)
        #expect(story.machine.failures == 1)
        #expect(story.machine.state == .disconnected)
    }

    @Test("a server that stays deaf meets growing retry delays: a deadline within the stability window keeps the count")
    func deafServerKeepsTheCount() {
        let story = Story(connectedWatching: exactDelivery)
        var failures: [Int] = []
        for _ in 1...3 {
            let generation = story.machine.liveGeneration ?? 0
            story.expected("nonce-\(generation)")
            let watch = story.lastArmedTimer
            failures += story.fired(watch, connectedFor: .seconds(16)).transitions.map(\.failures)
            // The retry, then the next connection that accepts and stays deaf.
            story.fired(story.lastArmedTimer)
            _ = story.machine.connectionReady(generation: story.machine.liveGeneration ?? 0, using: &story.random)
        }
        #expect(failures == [1, 2, 3])
        // A connection that lasted past the window starts again from 1.
        story.expected("late")
        #expect(story.fired(story.lastArmedTimer, connectedFor: .seconds(31)).transitions.map(\.failures) == [1])
    }

    @Test("a deadline that is not positive, or a jitter outside 0..<1, is refused")
    func validation() throws {
        #expect(throws: ConfigurationError.self) { try DeliveryWatchPolicy(deadline: .zero) }
        #expect(throws: ConfigurationError.self) { try DeliveryWatchPolicy(deadline: .seconds(-1)) }
        #expect(throws: ConfigurationError.self) { try DeliveryWatchPolicy(jitter: 1) }
        #expect(throws: ConfigurationError.self) { try DeliveryWatchPolicy(jitter: -0.1) }
        let defaults = try DeliveryWatchPolicy()
        #expect(DeliveryWatchPolicy.standard == defaults)
        #expect(!DeliveryWatchPolicy.disabled.isEnabled)
    }
}
