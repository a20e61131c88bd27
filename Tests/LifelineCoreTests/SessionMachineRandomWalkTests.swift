import LifelineCore
import LifelineTesting
import Testing

@Suite("Random walks through the machine")
struct SessionMachineRandomWalkTests {
    /// Any event, with random payloads, plus the runtime's reports — connection ends, session checks,
    /// timers, network changes, account lookups, health answers — each about a live or a stale id.
    static func randomStep(
        _ machine: inout SessionMachine, _ random: inout SeededRandomNumberGenerator, tickets: UInt64,
        replayTimers: [UInt64], fired: inout UInt64?, age: inout Duration?, ended: inout UInt64?
    ) -> SessionMachine.Output? {
        let anyTicket = UInt64.random(in: 0...(tickets + 1), using: &random)
        // A play the plan waits for (in flight or for its retry), or one it does not.
        let plays = machine.replay.inFlight.map(\.id) + machine.replay.waiting.map(\.id)
        let anyPlay = Bool.random(using: &random) ? plays.randomElement(using: &random) ?? 0 : 0
        switch Int.random(in: 0..<30, using: &random) {
        case 0: return machine.networkChanged(isOnline: Bool.random(using: &random), using: &random)
        case 1:
            return machine.accountStandingReceived(
                AccountStanding.allCases.randomElement(using: &random), lookup: anyTicket)
        case 2:
            return machine.userIdentified("u\(Int.random(in: 0..<2, using: &random))")
        case 3, 4:
            let generation = Bool.random(using: &random) ? machine.liveGeneration ?? 0 : machine.generation &- 1
            let ends: [SessionFailure] = [
                .temporary(.socketDropped), .permanent(.invalidSession), .loggedOut,
                .permanent(PermanentFailureReason(code: .authenticationFailed, message: "InvalidToken")),
            ]
            // The connection's age in CONNECTED: unknown, within the 30 s window, or beyond it.
            age = [nil, .seconds(1), .seconds(29), .seconds(30), .seconds(600)].randomElement(using: &random)!
            ended = generation
            return machine.connectionEnded(
                ends.randomElement(using: &random)!, generation: generation, connectedFor: age, using: &random)
        case 5, 6:
            let answers: [Result<SessionCheck, any Error>] = [
                .success(.invalid), .success(.invalid), .success(.valid), .failure(ScriptedError(message: "down")),
            ]
            return machine.sessionChecked(answers.randomElement(using: &random)!, check: anyTicket, using: &random)
        case 7, 8:
            fired = anyTicket
            return machine.timerFired(anyTicket, using: &random)
        case 9:
            return machine.connectionReady(generation: machine.liveGeneration ?? 0, using: &random)
        case 10:
            return machine.loginFailed(
                LoginFailure(code: LoginFailure.Code(rawValue: "Disabled"), message: "disabled"), userID: "user-1")
        case 11, 12:
            // A send's message expected on the live connection, or on a superseded one.
            let generation = Bool.random(using: &random) ? machine.liveGeneration ?? 0 : machine.generation &- 1
            return machine.deliveryExpected(
                "k\(Int.random(in: 0..<3, using: &random))", generation: generation, using: &random)
        case 13:
            // A delivery seen, or the answer to a check of the socket made on waking (live or stale, answered or not).
            if Bool.random(using: &random) {
                return machine.socketChecked(check: anyTicket, answered: Bool.random(using: &random), using: &random)
            }
            return machine.deliverySeen("k\(Int.random(in: 0..<3, using: &random))")
        case 14:
            // The app asks for a subscription, its opposite, or typing; the plan is the machine's sub-machine.
            let kind = [SignificantEvent.Kind.subscribe, .subscribe, .unsubscribe, .beginTyping]
                .randomElement(using: &random)!
            let event = SignificantEvent(kind, "s\(Int.random(in: 0..<3, using: &random))")
            return machine.requested(event, playable: kind != .unsubscribe)
        case 15:
            return machine.playAnswered(anyPlay, succeeded: Bool.random(using: &random))
        case 16:
            // A play's answer awaited (its timeout armed), or one of the replay's timers fires: a play's timeout or
            // retry, the renewal.
            if Bool.random(using: &random) { return machine.playPending(anyPlay) }
            fired = replayTimers.randomElement(using: &random) ?? anyTicket
            return machine.timerFired(fired ?? 0, using: &random)
        case 17:
            return machine.renew(.subscribe, limit: 5)
        case 18:
            // A health poll answered (with or without an alert, an interval or none) or failed, live or stale.
            if Bool.random(using: &random) { return machine.healthPollFailed(poll: anyTicket) }
            return machine.healthAnswered(
                poll: anyTicket, alert: Bool.random(using: &random) ? OutageAlert(text: "outage") : nil,
                pollInterval: [nil, .zero, .seconds(30), .seconds(Int64.max)].randomElement(using: &random)!)
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
    func invariantsHold() async {
        for seed in UInt64(1)...3_000 {
            // Yields now and then: a CPU-bound loop holds one of the cooperative pool's threads (two on a 2-core machine), and
            // the in-process servers of every other test wait for them (HowLifelineIsBuilt.md: "The tests").
            await Task.yield()
            var random = SeededRandomNumberGenerator(seed: seed)
            var machine = SessionMachine(
                retryPolicy: .spec, sessionCheckPolicy: .standard, subscriptionRenewal: .seconds(600))
            var timers: [UInt64: SessionTimer.Purpose] = [:]
            var tickets: UInt64 = 0
            var polling = false
            var live: Set<UInt64> = []
            var lastGeneration: UInt64 = 0
            // The count the live connection entered CONNECTED with.
            var countBeforeConnected = 0
            // The plays sent and not yet answered, as far as the walk has seen.
            var sentPlays: Set<UInt64> = []
            for step in 0..<200 {
                let before = machine.state
                let failuresBefore = machine.failures
                var fired: UInt64?
                var age: Duration?
                var ended: UInt64?
                let replayTimers = timers.filter { $0.value.isReplayTimer }.map(\.key)
                guard
                    let output = Self.randomStep(
                        &machine, &random, tickets: tickets, replayTimers: replayTimers, fired: &fired, age: &age,
                        ended: &ended)
                else { continue }
                // The walk hands over a token for every timer armed and connection made, as the runtime does.
                machine.tokens(for: output)
                // A replay timer that fired is gone, whether or not the plan still waited for its play.
                if let fired, timers[fired]?.isReplayTimer == true { timers[fired] = nil }

                let context = "seed \(seed), step \(step), \(before) → \(machine.state)"
                // A live connection that reported its own end has ended: the machine does not ask to close it.
                if let ended, output != .ignored, live.contains(ended) {
                    #expect(!output.actions.contains(.closeConnection(generation: ended)), "\(context)")
                    live.remove(ended)
                }
                var state = before
                for transition in output.transitions {
                    #expect(transition.from == state, "\(context)")
                    #expect(
                        SessionTransitionTable.target(from: transition.from, on: transition.event) == transition.to,
                        "\(context)")
                    #expect(
                        (transition.cause != nil)
                            == (transition.event == .temporaryFailure || transition.event == .permanentFailure),
                        "a failure carries its cause: \(context)")
                    if transition.to == .connected {
                        countBeforeConnected = failuresBefore
                        #expect(transition.failures == 0, "CONNECTED sets the count to 0: \(context)")
                    }
                    if transition.from == .connected && transition.to == .disconnected {
                        // A connection shorter than the window continues the count it started from.
                        let short = age.map { $0 < .seconds(30) } ?? false
                        #expect(
                            transition.failures == (short ? countBeforeConnected : 0) + 1,
                            "short: \(short), before: \(countBeforeConnected): \(context)")
                    } else if transition.to == .disconnected {
                        #expect(transition.failures == failuresBefore + 1, "\(context)")
                    }
                    state = transition.to
                }
                #expect(state == machine.state, "\(context)")
                for action in output.actions {
                    switch action {
                    case .armTimer(let timer):
                        #expect(timers[timer.id] == nil && timer.id > tickets, "ids only grow: \(context)")
                        tickets = max(tickets, timer.id)
                        #expect(timer.delay > .zero, "\(context)")
                        if case .retry(let failures) = timer.purpose {
                            #expect(failures == machine.failures, "\(context)")
                        }
                        timers[timer.id] = timer.purpose
                    case .cancelTimer(let token):
                        #expect(
                            timers.removeValue(forKey: token.id) != nil || token.id == fired,
                            "cancelled an unarmed timer: \(context)")
                    case .checkSocket(let g, let check):
                        #expect(machine.state == .connected && live == [g], "a check off the live socket: \(context)")
                        #expect(check > tickets, "ids only grow: \(context)")
                        tickets = check
                    case .checkSession(_, let check), .fetchAccountStanding(_, let check):
                        #expect(check > tickets, "ids only grow: \(context)")
                        tickets = check
                    case .connect(_, let g), .authenticate(_, let g):
                        #expect(live.isEmpty, "a second connection while \(live) is live: \(context)")
                        #expect(g > lastGeneration, "generations only grow: \(context)")
                        lastGeneration = g
                        live.insert(g)
                    case .closeConnection(let token):
                        let closed = live.remove(token.generation)
                        #expect(closed != nil, "closed \(token.generation), live \(live): \(context)")
                    case .startHealthPolling:
                        #expect(!polling && machine.failures >= 3, "\(context)")
                        polling = true
                    case .stopHealthPolling:
                        #expect(polling, "\(context)")
                        polling = false
                    case .pollHealth:
                        #expect(polling && machine.isPollingHealth, "a poll while not polling: \(context)")
                    case .replaySignificantEvents(let g):
                        #expect(live == [g], "replay on a connection that is not live: \(context)")
                    case .replay(.play(let play)):
                        #expect(machine.state == .connected && live.count == 1, "a play off CONNECTED: \(context)")
                        #expect(sentPlays.insert(play.id).inserted, "a play sent twice: \(context)")
                    case .replay(.cancelTimeout), .replay(.armRetry), .replay(.cancelRetry):
                        Issue.record("the plan's timers reach the runtime as the machine's: \(context)")
                    case .replay(.surface), .replay(.unsupported):
                        break
                    case .invalidateCaches, .endSession, .dispose:
                        break
                    }
                }
                // Every play waiting for its retry has its retry timer armed, a play's timeout is armed only while the
                // plan waits for its answer, and the renewal exactly while CONNECTED.
                let inFlight = Set(machine.replay.inFlight.map(\.id))
                sentPlays.formIntersection(inFlight)
                let playTimeouts = timers.values.compactMap { if case .playTimeout(let p) = $0 { p } else { nil } }
                let playRetries = timers.values.compactMap { if case .playRetry(let p) = $0 { p } else { nil } }
                #expect(Set(playTimeouts).isSubset(of: inFlight), "play timeouts: \(context)")
                #expect(playTimeouts.count == Set(playTimeouts).count, "one timeout per play: \(context)")
                #expect(playRetries.sorted() == machine.replay.waiting.map(\.id).sorted(), "play retries: \(context)")
                #expect(
                    timers.values.count { $0 == .renewal } == (machine.state == .connected ? 1 : 0),
                    "the renewal armed exactly in CONNECTED: \(context)")
                #expect(
                    machine.replay.isConnected == (machine.state == .connected),
                    "the plan plays in CONNECTED: \(context)")
                // A timer that fired and was acted on is gone.
                if let fired, output != .ignored { timers[fired] = nil }
                if machine.state == .connected {
                    #expect(machine.failures == 0, "\(context)")
                    #expect(machine.failuresBeforeConnected == countBeforeConnected, "\(context)")
                }
                let retryTimers = timers.values.filter { if case .retry = $0 { true } else { false } }
                #expect(
                    (retryTimers.count == 1) == (machine.state == .disconnected),
                    "a retry timer armed exactly in DISCONNECTED: \(context)")
                #expect(retryTimers.count <= 1, "\(context)")
                #expect(machine.isRetryTimerArmed == (machine.state == .disconnected), "\(context)")
                #expect(
                    machine.retryTimerID.flatMap { timers[$0] }.map { if case .retry = $0 { true } else { false } }
                        == (machine.state == .disconnected ? true : nil),
                    "the retry timer's id names the armed retry timer: \(context)")
                let deliveryTimers = timers.values.filter { $0 == .deliveryWatch }
                #expect(
                    deliveryTimers.count == (machine.watchedDelivery == nil ? 0 : 1),
                    "a delivery timer armed exactly while a delivery is watched: \(context)")
                if machine.watchedDelivery != nil {
                    #expect(machine.state == .connected, "a delivery is watched only in CONNECTED: \(context)")
                }
                #expect(live.count <= 1, "\(context)")
                #expect(live.first == machine.liveGeneration, "\(context)")
                // The machine holds the token of every timer armed and not yet fired or cancelled, and of the live
                // connection only.
                #expect(Set(machine.timerTokens.keys) == Set(timers.keys), "timer tokens: \(context)")
                #expect(machine.liveConnection?.generation == live.first, "the live connection's token: \(context)")
                if machine.isConfirmingSession {
                    #expect(live.isEmpty, "no connection while confirming: \(context)")
                    #expect([.loggingIn, .connecting, .reconnecting].contains(machine.state), "\(context)")
                }
                #expect(polling == machine.isPollingHealth, "\(context)")
                let healthTimers = timers.values.filter { $0 == .healthPoll }
                #expect(
                    healthTimers.count <= (polling ? 1 : 0), "one health timer at most, only while polling: \(context)")
                #expect(machine.presentation.banner != nil || machine.state == .connected || !machine.state.isLoggedIn)
            }
        }
    }
}

extension SessionTimer.Purpose {
    /// Whether the timer is one of the replay's (a play's timeout or retry, the renewal).
    fileprivate var isReplayTimer: Bool {
        switch self {
        case .playTimeout, .playRetry, .renewal: true
        case .retry, .sessionCheck, .deliveryWatch, .healthPoll, .socketCheck: false
        }
    }
}
