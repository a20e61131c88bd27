import LifelineCore
import LifelineTesting
import Testing

/// The machine holds the runtime's handles — the token of each timer it armed and of the live connection — and
/// gives each back in the action that ends it, as postgres-nio's pool state machine holds its timer tokens. The
/// tokens here are plain values the runtime never derives from an id: what comes back is what was handed over.
@Suite("The machine holds the runtime's tokens")
struct SessionMachineTokenTests {
    /// A machine in CONNECTING on connection 1, whose token the runtime handed over as `connection`.
    static func connecting(
        connection: MockConnection = MockConnection(generation: 71)
    ) -> (SessionMachine, SeededRandomNumberGenerator) {
        var machine = SessionMachine(retryPolicy: exactPolicy)
        var random = SeededRandomNumberGenerator(seed: 1)
        _ = machine.handle(.loginCached(credentials), using: &random)
        #expect(machine.connectionMade(connection, generation: 1) == nil, "the live attempt's token is kept")
        return (machine, random)
    }

    @Test("closing the connection and cancelling a timer give back the tokens the runtime handed over")
    func tokensComeBack() throws {
        var (machine, random) = Self.connecting()
        #expect(machine.liveConnection == MockConnection(generation: 71))
        let failed = machine.handle(.temporaryFailure(.socketDropped), using: &random)
        #expect(failed.actions.first == .closeConnection(MockConnection(generation: 71)))
        #expect(machine.liveConnection == nil, "a closed connection's token is gone")
        let retry = try #require(failed.actions.compactMap { if case .armTimer(let t) = $0 { t } else { nil } }.first)
        #expect(machine.timerArmed(retry.id, token: MockTimer(id: 900)) == nil, "an armed timer keeps its token")
        #expect(machine.timerTokens == [retry.id: MockTimer(id: 900)])

        let retried = machine.handle(.retry, using: &random)
        #expect(retried.actions.first == .cancelTimer(MockTimer(id: 900)))
        #expect(machine.timerTokens.isEmpty)
    }

    @Test("a token that comes after its timer was cancelled, or for no timer, is handed straight back")
    func lateTimerToken() throws {
        var (machine, random) = Self.connecting()
        let failed = machine.handle(.temporaryFailure(.socketDropped), using: &random)
        let retry = try #require(failed.actions.compactMap { if case .armTimer(let t) = $0 { t } else { nil } }.first)
        // The retry is taken before the runtime handed the timer's token over: nothing to give back yet.
        let retried = machine.handle(.retry, using: &random)
        #expect(!retried.actions.contains { if case .cancelTimer = $0 { true } else { false } })
        #expect(machine.timerArmed(retry.id, token: MockTimer(id: 901)) == MockTimer(id: 901), "cancel it at once")
        #expect(machine.timerArmed(4_242, token: MockTimer(id: 902)) == MockTimer(id: 902), "no such timer")
        #expect(machine.timerTokens.isEmpty)
    }

    @Test("a timer that fired spends its token: nothing cancels it afterwards")
    func firedTimerSpendsItsToken() throws {
        var (machine, random) = Self.connecting()
        let failed = machine.handle(.temporaryFailure(.socketDropped), using: &random)
        let retry = try #require(failed.actions.compactMap { if case .armTimer(let t) = $0 { t } else { nil } }.first)
        _ = machine.timerArmed(retry.id, token: MockTimer(id: 903))
        let fired = machine.timerFired(retry.id, using: &random)
        #expect(fired.transitions.map(\.to) == [.reconnecting])
        #expect(!fired.actions.contains(.cancelTimer(MockTimer(id: 903))), "a fired timer is not cancelled")
        #expect(machine.timerTokens.isEmpty)
    }

    @Test("a connection's token for a superseded attempt, or a second one, is handed straight back")
    func staleConnectionToken() {
        var (machine, _) = Self.connecting()
        #expect(machine.connectionMade(MockConnection(generation: 72), generation: 1) == MockConnection(generation: 72))
        #expect(machine.connectionMade(MockConnection(generation: 73), generation: 9) == MockConnection(generation: 73))
        #expect(machine.liveConnection == MockConnection(generation: 71), "the first token stays")
    }

    @Test("a connection that reported its own end is forgotten, not closed")
    func endedByItself() {
        var (machine, random) = Self.connecting()
        _ = machine.connectionReady(generation: 1, using: &random)
        let ended = machine.connectionEnded(.temporary(.socketDropped), generation: 1, using: &random)
        #expect(ended.transitions.map(\.to) == [.disconnected])
        #expect(!ended.actions.contains { if case .closeConnection = $0 { true } else { false } })
        #expect(machine.liveConnection == nil)
        // The next attempt's token is the one kept.
        _ = machine.handle(.retry, using: &random)
        #expect(machine.connectionMade(MockConnection(generation: 74), generation: 2) == nil)
        #expect(machine.liveConnection == MockConnection(generation: 74))
    }

    @Test("a confirmation's wait gives its token back on LOGOUT, and DISPOSE leaves no token")
    func disposeForgetsTokens() throws {
        var machine = SessionMachine(retryPolicy: exactPolicy, sessionCheckPolicy: .standard)
        var random = SeededRandomNumberGenerator(seed: 1)
        _ = machine.handle(.loginCached(credentials), using: &random)
        _ = machine.connectionMade(MockConnection(generation: 75), generation: 1)
        // CONNECTING's InvalidSession is confirmed: the connection ended, a check runs.
        let confirming = machine.connectionEnded(.permanent(.invalidSession), generation: 1, using: &random)
        let check = try #require(
            confirming.actions.compactMap { if case .checkSession(_, let c) = $0 { c } else { nil } }.first)
        let invalid = machine.sessionChecked(.success(.invalid), check: check, using: &random)
        let wait = try #require(invalid.actions.compactMap { if case .armTimer(let t) = $0 { t } else { nil } }.first)
        _ = machine.timerArmed(wait.id, token: MockTimer(id: 904))
        #expect(machine.liveConnection == nil, "the connection that ended is forgotten")
        #expect(machine.timerTokens == [wait.id: MockTimer(id: 904)])

        let cancelled = machine.handle(.logout(external: false), using: &random)
        #expect(cancelled.actions.first == .cancelTimer(MockTimer(id: 904)), "the exit gives the wait's token back")
        #expect(cancelled.transitions.last?.to == .dispose)
        #expect(machine.timerTokens.isEmpty && machine.liveConnection == nil)
    }
}

extension SessionMachineTokenTests {
    @Test("the allocation-free form gives, event after event, the actions and tokens the public form gives")
    func allocationFreeFormPutsTokensIn() {
        // The logged-in loop `lifeline bench` measures, with a logout from CONNECTED: every exit's cancel and close.
        let loop: [SessionEvent] = [
            .loginCached(credentials), .socketConnected, .temporaryFailure(.socketDropped), .retry,
            .temporaryFailure(.init(code: .connectFailed, message: "refused")), .reconnectNow, .socketConnected,
            .temporaryFailure(.socketDropped), .deviceOffline, .deviceOnline, .socketConnected,
            .logout(external: false), .ready,
        ]
        var buffered = SessionMachine(retryPolicy: exactPolicy)
        var reference = SessionMachine(retryPolicy: exactPolicy)
        var bufferedRandom = SeededRandomNumberGenerator(seed: 5)
        var referenceRandom = SeededRandomNumberGenerator(seed: 5)
        var actions: [SessionAction] = []
        var performed: [SessionAction] = []
        for event in loop + loop {
            actions.removeAll(keepingCapacity: true)
            let steps = buffered.handle(event, using: &bufferedRandom, appendingTo: &actions)
            buffered.tokens(for: .updated(actions: actions))
            let output = reference.tokens(for: reference.handle(event, using: &referenceRandom))
            #expect(actions == output.actions, "\(event.kind)")
            #expect(steps?.transitions.map(\.to) == output.transitions.map(\.to), "\(event.kind)")
            #expect(buffered.timerTokens == reference.timerTokens)
            #expect(buffered.liveConnection == reference.liveConnection)
            performed += actions
        }
        #expect(performed.contains { if case .closeConnection = $0 { true } else { false } })
        #expect(performed.contains { if case .cancelTimer = $0 { true } else { false } })
    }
}
