import LifelineCore
import LifelineTesting
import Testing

/// The machine owns the replay's timers: a pending play's timeout, a failed play's retry, the renewal of the
/// subscriptions — armed and cancelled as ``SessionTimer``s, fired back through `timerFired`.
@Suite("The machine's replay timers")
struct SessionMachineReplayTimerTests {
    /// A machine connected with one recorded subscription in flight, that play, and the renewal timer armed.
    static func connectedWithPlay(
        renewal: Duration? = nil
    ) throws -> (SessionMachine, SeededRandomNumberGenerator, ReplayPlan.Play, renewal: SessionTimer?) {
        var machine = SessionMachine(
            retryPolicy: exactPolicy, replayTimeout: .seconds(10), subscriptionRenewal: renewal)
        var random = SeededRandomNumberGenerator(seed: 1)
        let connecting = machine.handle(.loginCached(credentials), using: &random)
        machine.tokens(for: connecting)
        _ = machine.requested(SignificantEvent(.subscribe, "server-1"))
        let ready = machine.connectionReady(generation: 1, using: &random)
        machine.tokens(for: ready)
        let play = try #require(
            ready.actions.compactMap { if case .replay(.play(let play)) = $0 { play } else { nil } }.first)
        let armed = ready.actions.compactMap { if case .armTimer(let timer) = $0 { timer } else { nil } }
        return (machine, random, play, armed.first { $0.purpose == .renewal })
    }

    @Test("a pending play's timeout is the machine's timer: firing fails the play, its retry timer plays it again")
    func playTimeoutAndRetry() throws {
        var (machine, random, play, _) = try Self.connectedWithPlay()
        let pending = machine.playPending(play.id)
        guard case .armTimer(let timeout)? = pending.actions.first, pending.actions.count == 1 else {
            Issue.record("no timeout armed: \(pending)")
            return
        }
        #expect(timeout.purpose == .playTimeout(play: play.id) && timeout.delay == .seconds(10))
        #expect(machine.playPending(play.id) == .ignored, "one timeout per play")

        let timedOut = machine.timerFired(timeout.id, using: &random)
        guard case .armTimer(let retry)? = timedOut.actions.first else {
            Issue.record("no retry armed: \(timedOut)")
            return
        }
        #expect(retry.purpose == .playRetry(play: play.id) && retry.delay == .seconds(1))
        #expect(machine.timerFired(timeout.id, using: &random) == .ignored, "a timeout fires once")

        let again = machine.timerFired(retry.id, using: &random)
        guard case .replay(.play(let second))? = again.actions.first, again.actions.count == 1 else {
            Issue.record("not played again: \(again)")
            return
        }
        #expect(second.id == play.id && second.event == play.event && second.attempt == 2)
    }

    @Test("an answered play cancels its timeout; one answered at once had none to cancel")
    func answeredPlays() throws {
        var (machine, _, play, _) = try Self.connectedWithPlay()
        let pending = machine.playPending(play.id)
        machine.tokens(for: pending)
        guard case .armTimer(let timer)? = pending.actions.first else {
            Issue.record("no timeout armed")
            return
        }
        #expect(machine.playAnswered(play.id, succeeded: true).actions == [.cancelTimer(id: timer.id)])

        var (atOnce, _, other, _) = try Self.connectedWithPlay()
        #expect(atOnce.playAnswered(other.id, succeeded: true) == .updated(actions: []))
    }

    @Test("leaving CONNECTED cancels the replay's timers and the renewal")
    func leavingCancels() throws {
        var (machine, random, play, armed) = try Self.connectedWithPlay(renewal: .seconds(600))
        let pending = machine.playPending(play.id)
        machine.tokens(for: pending)
        guard case .armTimer(let timeout)? = pending.actions.first else {
            Issue.record("no timeout armed")
            return
        }
        let renewal = try #require(armed).id
        let dropped = machine.connectionEnded(.temporary(.socketDropped), generation: 1, using: &random)
        #expect(dropped.actions.contains(.cancelTimer(id: timeout.id)))
        #expect(dropped.actions.contains(.cancelTimer(id: renewal)))
        #expect(machine.timerFired(timeout.id, using: &random) == .ignored)
        #expect(machine.timerFired(renewal, using: &random) == .ignored)
    }

    @Test("the renewal is armed on CONNECTED, and when it fires it plays the subscriptions again and arms the next")
    func renewal() throws {
        var (machine, random, play, armed) = try Self.connectedWithPlay(renewal: .seconds(600))
        let first = try #require(armed)
        #expect(first.delay == .seconds(600))
        _ = machine.playAnswered(play.id, succeeded: true)
        let fired = machine.timerFired(first.id, using: &random)
        guard case .armTimer(let next)? = fired.actions.first else {
            Issue.record("no next renewal: \(fired)")
            return
        }
        #expect(next.purpose == .renewal && next.delay == .seconds(600) && next.id != first.id)
        #expect(fired.actions.dropFirst().contains { if case .replay(.play) = $0 { true } else { false } })
        #expect(machine.timerFired(first.id, using: &random) == .ignored, "the renewal before is gone")
    }

    @Test("without a health service the failure count never starts polling")
    func noHealthService() {
        var machine = SessionMachine(retryPolicy: exactPolicy, healthThreshold: 1, pollsHealth: false)
        var random = SeededRandomNumberGenerator(seed: 1)
        _ = machine.handle(.loginCached(credentials), using: &random)
        let failed = machine.connectionEnded(.temporary(.socketDropped), generation: 1, using: &random)
        #expect(failed.transitions.map(\.to) == [.disconnected])
        #expect(!failed.actions.contains(.startHealthPolling))
        #expect(!machine.isPollingHealth)
    }
}
