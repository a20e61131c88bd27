import CoreMetrics
import LifelineCore

/// The session's metrics, created once from the factory the session was given.
///
/// | name | kind | dimensions | what |
/// |---|---|---|---|
/// | `lifeline_session_transitions_total` | counter | `from`, `event`, `to` | every transition taken |
/// | `lifeline_session_rejected_events_total` | counter | `state`, `event` | events a state did not accept |
/// | `lifeline_session_stale_events_total` | counter | — | events from a superseded connection or timer, dropped |
/// | `lifeline_session_failures_total` | counter | `cause` | temporary failures that entered DISCONNECTED |
/// | `lifeline_session_retries_total` | counter | — | retry timers that fired |
/// | `lifeline_session_time_to_connected` | timer | — | from a login or a disconnection to CONNECTED, on the session's clock |
struct SessionMetrics: Sendable {
    private let factory: any MetricsFactory
    private let stale: Counter
    private let retries: Counter
    private let timeToConnected: Timer

    init(factory: any MetricsFactory) {
        self.factory = factory
        stale = Counter(label: "lifeline_session_stale_events_total", factory: factory)
        retries = Counter(label: "lifeline_session_retries_total", factory: factory)
        timeToConnected = Timer(label: "lifeline_session_time_to_connected", factory: factory)
    }

    func transition(_ transition: SessionTransition) {
        Counter(
            label: "lifeline_session_transitions_total",
            dimensions: [
                ("from", transition.from.rawValue), ("event", transition.event.rawValue),
                ("to", transition.to.rawValue),
            ],
            factory: factory
        ).increment()
    }

    func failure(_ cause: TemporaryFailureCause) {
        Counter(
            label: "lifeline_session_failures_total", dimensions: [("cause", cause.code.rawValue)], factory: factory
        )
        .increment()
    }

    func rejected(_ event: SessionEvent.Kind, in state: SessionState) {
        Counter(
            label: "lifeline_session_rejected_events_total",
            dimensions: [("state", state.rawValue), ("event", event.rawValue)],
            factory: factory
        ).increment()
    }

    func staleEvent() { stale.increment() }

    func retryFired() { retries.increment() }

    func connected(after duration: Duration) {
        let (seconds, attoseconds) = duration.components
        timeToConnected.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
