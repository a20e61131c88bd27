import LifelineCore
import LifelineTesting
import Testing

@Suite("Random walks through the machine")
struct SessionMachineRandomWalkTests {
    /// Any event, with random payloads, plus network changes, account lookups and health answers.
    static func randomStep(
        _ machine: inout SessionMachine, _ random: inout SeededRandomNumberGenerator
    ) -> SessionMachine.Output? {
        switch Int.random(in: 0..<20, using: &random) {
        case 0: return machine.networkChanged(isOnline: Bool.random(using: &random), using: &random)
        case 1:
            machine.accountStandingReceived(AccountStanding.allCases.randomElement(using: &random))
            return nil
        case 2:
            machine.healthAlertReceived(Bool.random(using: &random) ? OutageAlert(text: "outage") : nil)
            return nil
        default:
            let kind = SessionEvent.Kind.allCases.randomElement(using: &random)!
            let event: SessionEvent =
                switch kind {
                case .logout: .logout(external: Bool.random(using: &random))
                case .loginCached, .loginUncached:
                    Bool.random(using: &random) ? sample(kind) : .loginCached(SessionCredentials(token: "other"))
                default: sample(kind)
                }
            return machine.handle(event, using: &random)
        }
    }

    @Test("thousands of seeded walks keep the lifecycle's invariants")
    func invariantsHold() {
        for seed in UInt64(1)...3_000 {
            var random = SeededRandomNumberGenerator(seed: seed)
            var machine = SessionMachine(retryPolicy: .spec)
            var timerArmed = false
            var polling = false
            var live: Set<UInt64> = []
            var lastGeneration: UInt64 = 0
            for step in 0..<200 {
                let before = machine.state
                guard let output = Self.randomStep(&machine, &random) else { continue }
                let context = "seed \(seed), step \(step), \(before) → \(machine.state)"
                var state = before
                for transition in output.transitions {
                    #expect(transition.from == state, "\(context)")
                    #expect(
                        SessionTransitionTable.target(from: transition.from, on: transition.event) == transition.to,
                        "\(context)")
                    state = transition.to
                }
                #expect(state == machine.state, "\(context)")
                for action in output.actions {
                    switch action {
                    case .armRetryTimer(let delay, let failures):
                        #expect(!timerArmed, "armed twice: \(context)")
                        #expect(failures == machine.failures && delay > .zero, "\(context)")
                        timerArmed = true
                    case .cancelRetryTimer:
                        #expect(timerArmed, "cancelled an unarmed timer: \(context)")
                        timerArmed = false
                    case .connect(_, let g), .authenticate(_, let g):
                        #expect(live.isEmpty, "a second connection while \(live) is live: \(context)")
                        #expect(g > lastGeneration, "generations only grow: \(context)")
                        lastGeneration = g
                        live.insert(g)
                    case .closeConnection(let g):
                        let closed = live.remove(g)
                        #expect(closed != nil, "closed \(g), live \(live): \(context)")
                    case .startHealthPolling:
                        #expect(!polling && machine.failures >= 3, "\(context)")
                        polling = true
                    case .stopHealthPolling:
                        #expect(polling, "\(context)")
                        polling = false
                    case .replaySignificantEvents(let g):
                        #expect(live == [g], "replay on a connection that is not live: \(context)")
                    case .invalidateCaches, .fetchAccountStanding, .endSession, .dispose:
                        break
                    }
                }
                if machine.state == .connected { #expect(machine.failures == 0, "\(context)") }
                #expect(
                    timerArmed == (machine.state == .disconnected), "timer armed exactly in DISCONNECTED: \(context)")
                #expect(machine.isRetryTimerArmed == timerArmed, "\(context)")
                #expect(live.count <= 1, "\(context)")
                #expect(live.first == machine.liveGeneration, "\(context)")
                #expect(polling == machine.isPollingHealth, "\(context)")
                #expect(machine.presentation.banner != nil || machine.state == .connected || !machine.state.isLoggedIn)
            }
        }
    }
}
