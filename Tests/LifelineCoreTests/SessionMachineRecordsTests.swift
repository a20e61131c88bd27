import LifelineCore
import LifelineTesting
import Testing

/// What the machine records for the runtime to report, so the runtime keeps no record of its own: the last
/// error a snapshot shows, and when the run of attempts that led to CONNECTED began.
@Suite("The machine's records: the last error and the time to CONNECTED")
struct SessionMachineRecordsTests {
    struct Refusal: Error {}

    /// The code of the failure the machine recorded as the last error, or `nil`.
    func lastFailureCode(_ machine: SessionMachine) -> String? {
        guard case .failure(let failure)? = machine.lastError else { return nil }
        switch failure {
        case .temporary(let cause): return "temporary \(cause.code.rawValue)"
        case .permanent(let reason): return "permanent \(reason.code.rawValue)"
        case .loggedOut: return "loggedOut"
        }
    }

    @Test("a failure is the last error through DISCONNECTED and RECONNECTING, until SOCKET_CONNECTED clears it")
    func failureUntilConnected() {
        let story = Story(in: .connecting)
        #expect(story.machine.lastError == nil)
        story.ended(.temporary(.socketDropped))
        #expect(lastFailureCode(story.machine) == "temporary socketDropped")
        story.send(.retry)
        #expect(story.machine.state == .reconnecting)
        #expect(lastFailureCode(story.machine) == "temporary socketDropped", "kept while reconnecting")
        story.send(.socketConnected)
        #expect(story.machine.lastError == nil)
    }

    @Test("PERMANENT_FAILURE's reason stays the last error through DISMISS, DISPOSE and READY, until a new login")
    func permanentUntilLogin() {
        let story = Story(in: .connecting, sessionCheck: .none)
        story.ended(.permanent(.invalidSession))
        #expect(story.machine.state == .error)
        #expect(lastFailureCode(story.machine) == "permanent invalidSession")
        story.send(.dismiss)
        story.send(.ready)
        #expect(story.machine.state == .ready)
        #expect(lastFailureCode(story.machine) == "permanent invalidSession", "the login screen can say why")
        story.send(.loginUncached(credentials))
        #expect(story.machine.lastError == nil)
    }

    @Test("the server's logout is the last error; the user's own is not")
    func logouts() {
        let external = Story(in: .connected)
        external.ended(.loggedOut)
        #expect(external.machine.state == .dispose)
        #expect(lastFailureCode(external.machine) == "loggedOut")
        let own = Story(in: .connected)
        own.send(.logout(external: false))
        #expect(own.machine.state == .dispose)
        #expect(own.machine.lastError == nil)
    }

    @Test("a refused onboarding is the last error, in ONBOARDING, until the next login clears it")
    func onboardingRefused() {
        let story = Story(in: .onboarding)
        story.machine.onboardingRefused(Refusal(), message: "the username is taken")
        guard case .onboardingRefused(let message, let cause)? = story.machine.lastError else {
            Issue.record("no refusal recorded: \(String(describing: story.machine.lastError))")
            return
        }
        #expect(message == "the username is taken")
        #expect(cause is Refusal)
        #expect(story.machine.state == .onboarding)
        story.send(.cancel)
        story.send(.ready)
        story.send(.loginCached(credentials))
        #expect(story.machine.lastError == nil)
    }

    @Test("the time to CONNECTED runs from the first attempt, through failures and retries, to CONNECTED")
    func timeToConnectedThroughRetries() throws {
        let story = Story()
        story.send(.loginCached(credentials))
        let started = story.machine.connectionStarted(generation: story.machine.liveGeneration ?? 0, at: .seconds(10))
        #expect(started != .ignored)
        story.ended(.temporary(.socketDropped))
        story.send(.retry)
        // RECONNECTING's attempt keeps the run's start.
        story.machine.connectionStarted(generation: story.machine.liveGeneration ?? 0, at: .seconds(13))
        #expect(story.machine.connectingSince == .seconds(10))
        let generation = try #require(story.machine.liveGeneration)
        let ready = story.machine.connectionReady(generation: generation, at: .seconds(15), using: &story.random)
        #expect(ready.transitions.map(\.to) == [.connected])
        #expect(story.machine.timeToConnected == .seconds(5))
        // Leaving CONNECTED ends the run: the next one starts with the next attempt.
        story.ended(.temporary(.socketDropped))
        #expect(story.machine.connectingSince == nil)
        #expect(story.machine.timeToConnected == nil)
        story.send(.retry)
        story.machine.connectionStarted(generation: story.machine.liveGeneration ?? 0, at: .seconds(40))
        let again = try #require(story.machine.liveGeneration)
        _ = story.machine.connectionReady(generation: again, at: .seconds(42), using: &story.random)
        #expect(story.machine.timeToConnected == .seconds(2))
    }

    @Test("LOGGING_IN starts a new run (after onboarding); a superseded start is not recorded; DISPOSE forgets")
    func loggingInRestarts() {
        let story = Story()
        story.send(.loginUncached(credentials))
        let first = story.machine.liveGeneration ?? 0
        let recorded = story.machine.connectionStarted(generation: first, at: .seconds(1))
        let superseded = story.machine.connectionStarted(generation: first + 1, at: .seconds(2))
        #expect(recorded != .ignored)
        #expect(superseded == .ignored, "not the live one")
        #expect(story.machine.connectingSince == .seconds(1))
        // The user takes minutes to choose a name: the time to CONNECTED starts again with the new attempt.
        story.send(.noUser)
        story.send(.userCreated)
        #expect(story.machine.state == .loggingIn)
        story.machine.connectionStarted(generation: story.machine.liveGeneration ?? 0, at: .seconds(300))
        #expect(story.machine.connectingSince == .seconds(300))
        story.send(.permanentFailure(.invalidSession))
        #expect(story.machine.state == .error)
        #expect(story.machine.connectingSince == .seconds(300), "ERROR keeps it until DISPOSE")
        story.send(.dismiss)
        #expect(story.machine.connectingSince == nil)
    }
}

/// Health polling as the machine's timers: the machine asks for each poll, hears its answer, and arms the wait
/// before the next; the runtime keeps no polling loop of its own.
@Suite("Health polling as the machine's timers")
struct SessionMachineHealthPollingTests {
    let alert = OutageAlert(text: "Stoat is having trouble")

    /// A story in DISCONNECTED at the health threshold, and the poll its entry asked for.
    func polling() -> (Story, UInt64) {
        let story = Story(in: .connecting)
        var poll: UInt64?
        for failure in 1...3 {
            let output = story.ended(.temporary(.socketDropped))
            for case .pollHealth(let asked) in output.actions { poll = asked }
            if failure < 3 { story.send(.retry) }
        }
        return (story, poll ?? 0)
    }

    /// The health timer an output arms, if any.
    func healthTimer(_ output: SessionMachine.Output) -> SessionTimer? {
        for case .armTimer(let timer) in output.actions where timer.purpose == .healthPoll { return timer }
        return nil
    }

    @Test("the threshold starts polling with a poll; its answer arms the next after the service's interval")
    func answerArmsTheNext() throws {
        let (story, poll) = polling()
        #expect(story.machine.isPollingHealth)
        #expect(poll != 0, "DISCONNECTED's entry asked for the first poll")
        let answered = story.machine.healthAnswered(poll: poll, alert: alert, pollInterval: .seconds(30))
        let timer = try #require(healthTimer(answered), "\(answered)")
        #expect(timer.delay == .seconds(30))
        #expect(story.machine.presentation.outageAlert == alert)
        // The timer fires: the next poll is asked for, and only then.
        let fired = story.machine.timerFired(timer.id, using: &story.random)
        guard case .updated(let actions) = fired, case .pollHealth(let next)? = actions.first, actions.count == 1
        else {
            Issue.record("the timer asked for no poll: \(fired)")
            return
        }
        #expect(next != poll)
        #expect(story.machine.timerFired(timer.id, using: &story.random) == .ignored, "fired once")
        #expect(story.machine.healthAnswered(poll: poll, alert: nil, pollInterval: nil) == .ignored, "a stale poll")
        let failed = story.machine.healthPollFailed(poll: next)
        #expect(healthTimer(failed)?.delay == .seconds(60), "no answer: the default interval")
        #expect(story.machine.presentation.outageAlert == alert, "no answer keeps the alert shown")
    }

    @Test("the service's interval is kept within the bounds, however absurd")
    func bounded() {
        for (asked, kept) in [
            (Duration.zero, Duration.seconds(10)), (.seconds(-5), .seconds(10)), (.seconds(45), .seconds(45)),
            (.seconds(Int64.max), .seconds(900)),
        ] {
            let (story, poll) = polling()
            let output = story.machine.healthAnswered(poll: poll, alert: nil, pollInterval: asked)
            #expect(healthTimer(output)?.delay == kept, "asked \(asked)")
        }
    }

    @Test("CONNECTED stops polling: the armed poll's timer is cancelled, and a late answer is ignored")
    func stoppedOnConnected() throws {
        let (story, poll) = polling()
        let timer = try #require(
            healthTimer(story.noting(story.machine.healthAnswered(poll: poll, alert: alert, pollInterval: nil))))
        story.send(.retry)
        let connected = story.send(.socketConnected)
        #expect(connected.actions.prefix(2) == [.cancelTimer(id: timer.id), .stopHealthPolling])
        #expect(!story.machine.isPollingHealth)
        #expect(story.machine.presentation.outageAlert == nil)
        #expect(story.machine.timerFired(timer.id, using: &story.random) == .ignored)
        #expect(story.machine.healthAnswered(poll: poll, alert: alert, pollInterval: nil) == .ignored)
        #expect(story.machine.presentation.outageAlert == nil, "a late answer brings no alert back")
    }
}

extension SessionMachineRecordsTests {
    @Test("the allocation-free form records no failure (its caller has the cause), but clears on a login")
    func allocationFreeForm() {
        var machine = SessionMachine()
        var random = SeededRandomNumberGenerator(seed: 3)
        var actions: [SessionAction] = []
        _ = machine.handle(.loginCached(credentials), using: &random)
        _ = machine.handle(.temporaryFailure(.socketDropped), using: &random)
        #expect(machine.lastError != nil)
        _ = machine.handle(.retry, using: &random, appendingTo: &actions)
        _ = machine.handle(.socketConnected, using: &random, appendingTo: &actions)
        #expect(machine.lastError == nil, "SOCKET_CONNECTED clears it in either form")
        _ = machine.handle(.temporaryFailure(.socketDropped), using: &random, appendingTo: &actions)
        #expect(machine.state == .disconnected)
        #expect(machine.lastError == nil, "left to the caller, as the transition's cause is")
    }
}
