import Lifeline
import LifelineCore
import LifelineTesting
import Testing

@Suite("The session runtime watches deliveries", .hangBound)
struct SessionDeliveryTests {
    @Test(
        "a delivery not seen by its deadline (on the session's clock) drops the deaf socket: deliveryStalled, reconnect"
    )
    func deafSocket() async throws {
        let harness = Harness(polling: false)
        let connection = await harness.connected()
        let generation = try #require(await harness.session.connectedGeneration)
        #expect(generation == connection.generation)
        let start = harness.clock.now
        await harness.session.deliveryExpected("nonce-1", generation: generation)
        let deadline = await harness.clock.nextSleep()
        let delay = start.duration(to: deadline)
        #expect(delay >= .seconds(12) && delay < .seconds(18), "15 s ± 20 %: \(delay)")
        harness.clock.advance(to: deadline.advanced(by: .nanoseconds(-1)))
        #expect(harness.state == .connected, "not a nanosecond early")
        harness.clock.advance(to: deadline)
        let stalled = try #require(await harness.recorder.next(.disconnected))
        #expect(stalled.transitions.first?.cause?.code == .temporary(.deliveryStalled))
        #expect(stalled.failures == 1)
        #expect(connection.wasCancelled, "the deaf socket is closed")
        let again = await harness.retry()
        await again.ready()
        #expect(harness.state == .connected)
        #expect(await harness.session.connectedGeneration == again.generation)
        await harness.stop()
    }

    @Test("a delivery seen in time cancels the deadline: the session stays CONNECTED long after it")
    func seenInTime() async throws {
        let harness = Harness(polling: false)
        let connection = await harness.connected()
        let generation = try #require(await harness.session.connectedGeneration)
        await harness.session.deliveryExpected("nonce-1", generation: generation)
        let deadline = await harness.clock.nextSleep()
        // Another message's event changes nothing; the awaited one cancels the timer.
        await harness.session.deliverySeen("someone-else")
        #expect(harness.clock.pendingSleeps >= 1)
        await harness.session.deliverySeen("nonce-1")
        await harness.clock.waitForPendingSleeps(0)
        harness.clock.advance(to: deadline.advanced(by: .seconds(60)))
        #expect(harness.state == .connected)
        #expect(await harness.session.connectedGeneration == connection.generation)
        // A send that began on a superseded connection is not watched: the next one on the live connection is
        // (one is watched at a time), and seeing it leaves no timer.
        await harness.session.deliveryExpected("nonce-2", generation: generation &+ 7)
        await harness.session.deliveryExpected("nonce-3", generation: generation)
        _ = await harness.clock.nextSleep()
        await harness.session.deliverySeen("nonce-3")
        await harness.clock.waitForPendingSleeps(0)
        await harness.stop()
    }
}
