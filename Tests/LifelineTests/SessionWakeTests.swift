import Lifeline
import LifelineCore
import LifelineTesting
import Synchronization
import Testing

@Suite("The session checks its socket when the device wakes", .hangBound)
struct SessionWakeTests {
    /// The wake check's deadline by default.
    static let timeout = Duration.seconds(3)

    @Test("a wake the monitor reports checks the socket; no answer within 3 s leaves it: wakeCheckFailed, reconnect")
    func deadSocket() async throws {
        let harness = Harness(polling: false)
        harness.connections.answersSocketChecks = false
        let connection = await harness.connected()
        let woke = harness.clock.now
        harness.wake.wake(suspended: .seconds(600))
        let deadline = await harness.clock.nextSleep()
        #expect(woke.duration(to: deadline) == Self.timeout)
        #expect(connection.socketChecks == 1)
        harness.clock.advance(to: deadline.advanced(by: .nanoseconds(-1)))
        #expect(harness.state == .connected, "not a nanosecond early")
        harness.clock.advance(to: deadline)
        let left = try #require(await harness.recorder.next(.disconnected))
        #expect(left.transitions.first?.cause?.code == .temporary(.wakeCheckFailed))
        #expect(left.time - woke.offset == Self.timeout)
        #expect(connection.wasCancelled, "the dead socket is closed")
        let again = await harness.retry()
        await again.ready()
        #expect(harness.state == .connected)
        await harness.stop()
    }

    @Test("an answered check cancels the deadline: the session stays CONNECTED on the same connection long after it")
    func answered() async throws {
        let harness = Harness(polling: false)
        harness.connections.answersSocketChecks = false
        let connection = await harness.connected()
        #expect(await harness.session.deviceWoke())
        let checking = try #require(await harness.recorder.next { $0.isCheckingSocket })
        #expect(checking.state == .connected)
        let deadline = await harness.clock.nextSleep()
        connection.answerSocketChecks()
        let answered = try #require(await harness.recorder.next { !$0.isCheckingSocket })
        try #require(answered.state == .connected && answered.transitions.isEmpty)
        await harness.clock.waitForPendingSleeps(0)
        harness.clock.advance(to: deadline.advanced(by: .seconds(60)))
        #expect(harness.state == .connected)
        #expect(await harness.session.connectedGeneration == connection.generation)
        #expect(!connection.wasCancelled)
        await harness.stop()
    }

    @Test("in DISCONNECTED a wake takes the retry now, without waiting for its timer")
    func disconnected() async throws {
        let harness = Harness(policy: .spec, polling: false)
        let connection = await harness.connected()
        await connection.end(.temporary(.socketDropped))
        #expect(harness.state == .disconnected)
        try #require(await harness.session.deviceWoke())
        let next = await harness.connections.nextConnection()
        #expect(harness.state == .reconnecting)
        await next.ready()
        #expect(harness.state == .connected)
        // Outside CONNECTED and DISCONNECTED nothing happens.
        await harness.session.logOut()
        #expect(await harness.session.deviceWoke() == false)
        await harness.stop()
    }
}

@Suite("The Linux wake monitor compares CLOCK_BOOTTIME with CLOCK_MONOTONIC", .hangBound)
struct LinuxWakeMonitorTests {
    @Test("a boot clock that ran ahead by the threshold between two ticks is a wake, with how long it slept")
    func wake() async throws {
        let clock = TestClock()
        let reading = Readings(LinuxWakeMonitor.Reading(boot: .seconds(100), monotonic: .seconds(90)))
        let monitor = LinuxWakeMonitor(
            tick: .seconds(2), threshold: .seconds(1), clock: clock, reading: { reading.value.withLock { $0 } })
        var wakes = monitor.wakes().makeAsyncIterator()
        // Running: both clocks advance together (a few microseconds of drift are no wake).
        var deadline = await clock.nextSleep()
        reading.value.withLock {
            $0.boot += .seconds(2) + .microseconds(40)
            $0.monotonic += .seconds(2)
        }
        clock.advance(to: deadline)
        deadline = await clock.nextSleep()
        // Suspended for ten minutes: the boot clock ran on, the monotonic one stood still.
        reading.value.withLock {
            $0.boot += .seconds(602)
            $0.monotonic += .seconds(2)
        }
        clock.advance(to: deadline)
        let wake = try #require(await wakes.next())
        #expect(wake.suspended == .seconds(600))
    }

    @Test("the system's clocks: the boot clock is never behind the monotonic one")
    func systemClocks() {
        let reading = LinuxWakeMonitor.systemReading()
        #expect(reading.boot >= reading.monotonic)
        #expect(reading.monotonic > .zero)
    }
}

/// The two clocks' readings a test sets.
final class Readings: Sendable {
    let value: Mutex<LinuxWakeMonitor.Reading>
    init(_ reading: LinuxWakeMonitor.Reading) { value = Mutex(reading) }
}
