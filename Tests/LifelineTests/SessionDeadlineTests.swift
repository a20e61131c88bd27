import LifelineCore
import LifelineTesting
import Testing

@testable import Lifeline

@Suite("The session's deadlines", .hangBound)
struct SessionDeadlineTests {
    private let lobby = SignificantEvent(.subscribe, "lobby")

    @Test(
        "while CONNECTED the renewal, the delivery watch and a play's timeout are entries of one timer: one sleep, no task"
    )
    func oneTimer() async throws {
        let harness = Harness(polling: false, renewal: .seconds(600))
        let connection = await harness.connected()
        let renewal = await harness.clock.nextSleep()
        #expect(harness.clock.now.duration(to: renewal) == .seconds(600))
        let generation = try #require(await harness.session.connectedGeneration)
        await harness.session.deliveryExpected("nonce-1", generation: generation)
        let watch = await harness.clock.nextSleep()
        #expect(harness.clock.now.duration(to: watch) < .seconds(600), "the delivery deadline is the earliest now")
        await harness.clock.waitForPendingSleeps(1)
        #expect(harness.session.runningClientTasks == 1, "the connection alone: no timer is a task")
        await harness.session.deliverySeen("nonce-1")
        #expect(await harness.clock.nextSleep() == renewal, "the renewal is slept for again")
        // A play's timeout is one more entry: the sleep moves to it while the play is out, and back.
        await harness.session.subscribe(server: "lobby")
        await harness.clock.waitForSleep(until: renewal)
        #expect(connection.played == [lobby])
        #expect(harness.clock.pendingSleeps == 1)
        harness.clock.advance(to: renewal)
        await harness.recorder.next { _ in connection.played.count == 2 }
        #expect(connection.played == [lobby, lobby], "renewed at its deadline")
        let next = await harness.clock.nextSleep { $0 == renewal.advanced(by: .seconds(600)) }
        #expect(harness.clock.now.duration(to: next) == .seconds(600), "and armed again")
        await harness.stop()
        #expect(harness.clock.pendingSleeps == 0, "the timer's loop ended with run()")
    }

    @Test("leaving CONNECTED forgets the renewal and the delivery deadline: OFFLINE holds no sleep, nor READY")
    func forgottenOnLeaving() async throws {
        let harness = Harness(polling: false, renewal: .seconds(600))
        let connection = await harness.connected()
        let generation = try #require(await harness.session.connectedGeneration)
        await harness.session.deliveryExpected("nonce-1", generation: generation)
        _ = await harness.clock.nextSleep()
        // Offline while CONNECTED is only recorded; the socket's end then goes on to OFFLINE, with no retry.
        harness.network.set(.offline)
        await connection.end(.temporary(.socketDropped))
        #expect(await harness.recorder.next(.offline) != nil)
        let timer = harness.session.workload.timer
        #expect(timer.count == 0, "no entry left: the renewal and the delivery deadline left too")
        await timer.untilIdle()
        #expect(harness.clock.pendingSleeps == 0)
        #expect(harness.session.snapshot.nextRetry == nil)
        await harness.session.logOut()
        #expect(await harness.recorder.next(.ready) != nil)
        #expect(harness.clock.pendingSleeps == 0)
        await harness.stop()
    }
}
