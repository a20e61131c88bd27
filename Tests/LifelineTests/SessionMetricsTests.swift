import Lifeline
import LifelineCore
import LifelineTesting
import MetricsTestKit
import Testing

@Suite("The session's metrics", .hangBound)
struct SessionMetricsTests {
    @Test(
        "transitions, failures, retries, stale and rejected events are counted; time to CONNECTED is on the session's clock"
    )
    func metrics() async throws {
        let metrics = TestMetrics()
        let harness = Harness(polling: false, metrics: metrics)
        await harness.session.logIn(credentials, cached: true)
        let first = await harness.connections.nextConnection()
        harness.clock.advance(by: .milliseconds(250))
        await first.ready()
        await first.end(.temporary(.init(code: .heartbeatTimeout, message: "heartbeatTimeout")))
        harness.clock.advance(to: await harness.clock.nextSleep())
        let second = await harness.connections.nextConnection()
        await first.ready()  // stale
        await harness.session.dismissError()  // rejected in RECONNECTING
        await second.ready()

        let connected = metrics.counters(
            label: "lifeline_session_transitions_total",
            dimensions: [("from", "CONNECTING"), ("event", "SOCKET_CONNECTED"), ("to", "CONNECTED")])
        #expect(connected.map(\.totalValue) == [1])
        #expect(metrics.counterTotal(label: "lifeline_session_transitions_total") == 5)
        #expect(
            try metrics.expectCounter("lifeline_session_failures_total", [("cause", "heartbeatTimeout")]).totalValue
                == 1)
        #expect(try metrics.expectCounter("lifeline_session_retries_total").totalValue == 1)
        #expect(try metrics.expectCounter("lifeline_session_stale_events_total").totalValue == 1)
        #expect(
            try metrics.expectCounter(
                "lifeline_session_rejected_events_total", [("state", "RECONNECTING"), ("event", "DISMISS")]
            ).totalValue == 1)
        let timer = try metrics.expectTimer("lifeline_session_time_to_connected")
        #expect(timer.values.first == 250_000_000, "the login took 250 ms on the test clock")
        #expect(timer.values.count == 2)
        await harness.stop()
    }
}
