import LifelineCore
import LifelineTesting
import Testing

@Suite("DEVICE_WOKE: the machine checks its socket when the device wakes")
struct SessionMachineWakeTests {
    /// The check CONNECTED starts on waking, and its deadline's timer.
    static func check(generation: UInt64, check: UInt64, timer: UInt64) -> [SessionAction] {
        [
            .checkSocket(generation: generation, check: check),
            .armTimer(SessionTimer(id: timer, purpose: .socketCheck, delay: .seconds(3))),
        ]
    }

    @Test("an answered check cancels its deadline: CONNECTED stays, and the deadline firing late changes nothing")
    func answered() {
        let story = Story(in: .connected)
        #expect(story.send(.deviceWoke) == .updated(actions: Self.check(generation: 1, check: 1, timer: 2)))
        #expect(story.machine.isCheckingSocket)
        #expect(story.send(.deviceWoke) == .ignored, "one check at a time")
        #expect(story.machine.socketChecked(check: 7, answered: true, using: &story.random) == .ignored)
        #expect(
            story.machine.socketChecked(check: 1, answered: true, using: &story.random)
                == .updated(actions: [.cancelTimer(id: 2)]))
        #expect(!story.machine.isCheckingSocket)
        #expect(story.fired(2) == .ignored)
        #expect(story.machine.state == .connected)
        #expect(story.machine.failures == 0)
        // A later wake checks again, with new ids.
        #expect(story.send(.deviceWoke) == .updated(actions: Self.check(generation: 1, check: 3, timer: 4)))
    }

    @Test(
        "no answer by the deadline leaves the socket: TEMPORARY_FAILURE wakeCheckFailed, and the late answer is ignored"
    )
    func deadline() throws {
        let story = Story(in: .connected)
        story.send(.deviceWoke)
        let output = story.fired(2, connectedFor: .seconds(3_600))
        let transition = try #require(output.transitions.first)
        #expect(transition.from == .connected && transition.to == .disconnected)
        #expect(transition.cause?.code == .temporary(.wakeCheckFailed))
        #expect(
            output.actions == [.closeConnection(generation: 1), retryTimer(id: 3, failures: 1, delay: .seconds(1))])
        #expect(!story.machine.isCheckingSocket)
        #expect(story.machine.socketChecked(check: 1, answered: true, using: &story.random) == .ignored)
        #expect(story.machine.state == .disconnected)
    }

    @Test("a check that cannot be made leaves the socket at once, cancelling its deadline")
    func failedAtOnce() throws {
        let story = Story(in: .connected)
        story.send(.deviceWoke)
        let output = story.machine.socketChecked(check: 1, answered: false, using: &story.random)
        #expect(output.transitions.first?.cause?.code == .temporary(.wakeCheckFailed))
        #expect(
            output.actions == [
                .cancelTimer(id: 2), .closeConnection(generation: 1),
                retryTimer(id: 3, failures: 1, delay: .seconds(1)),
            ])
        #expect(story.fired(2) == .ignored)
    }

    @Test("leaving CONNECTED otherwise cancels a pending check's deadline")
    func leftWhileChecking() {
        let story = Story(in: .connected)
        story.send(.deviceWoke)
        #expect(
            story.send(.logout(external: false)).actions
                == [.cancelTimer(id: 2), .closeConnection(generation: 1), .endSession(credentials), .dispose])
        #expect(!story.machine.isCheckingSocket)
    }

    @Test("a check found dead within the stability window keeps the failure count, as a short connection does")
    func stabilityWindow() {
        let story = Story(in: .reconnecting)
        story.send(.socketConnected)
        #expect(story.machine.failuresBeforeConnected == 1)
        story.send(.deviceWoke)
        story.fired(story.lastArmedTimer, connectedFor: .seconds(5))
        #expect(story.machine.failures == 2)
    }

    @Test("in DISCONNECTED a wake takes the pending retry now; the failure count stays")
    func disconnected() {
        let story = Story(in: .disconnected)
        #expect(story.machine.failures == 1)
        let output = story.send(.deviceWoke)
        #expect(output.transitions.map(\.to) == [.reconnecting])
        #expect(output.actions == [.cancelTimer(id: 1), .invalidateCaches, .connect(credentials, generation: 2)])
        #expect(story.machine.failures == 1)
    }

    @Test("the wake's deadline is the machine's wakeCheckTimeout")
    func configuredTimeout() {
        var machine = SessionMachine(wakeCheckTimeout: .milliseconds(500))
        var random = SeededRandomNumberGenerator(seed: 1)
        _ = machine.handle(.loginCached(credentials), using: &random)
        _ = machine.connectionReady(generation: 1, using: &random)
        #expect(
            machine.handle(.deviceWoke, using: &random)
                == .updated(actions: [
                    .checkSocket(generation: 1, check: 1),
                    .armTimer(SessionTimer(id: 2, purpose: .socketCheck, delay: .milliseconds(500))),
                ]))
    }
}
