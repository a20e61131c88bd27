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
        #expect(started)
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
        #expect(recorded)
        #expect(!superseded, "not the live one")
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
