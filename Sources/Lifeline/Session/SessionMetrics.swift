import CoreMetrics
import LifelineCore
import Logging

/// The session's metrics, created once from the factory the session was given, and the log lines that go with
/// them: a transition and a rejected event are counted and logged here, in one place (see the catalog's
/// "Metrics").
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
    private let logger: Logger

    init(factory: any MetricsFactory, logger: Logger) {
        self.factory = factory
        self.logger = logger
        stale = Counter(label: "lifeline_session_stale_events_total", factory: factory)
        retries = Counter(label: "lifeline_session_retries_total", factory: factory)
        timeToConnected = Timer(label: "lifeline_session_time_to_connected", factory: factory)
    }

    /// Counts and logs the transitions of one change, in order: a temporary failure that entered DISCONNECTED,
    /// then each transition's counter and its `transition` line (at `.info`).
    func transitioned(_ transitions: [SessionTransition]) {
        if let first = transitions.first, first.to == .disconnected, case .temporary(let cause)? = first.cause {
            failure(cause)
        }
        for transition in transitions {
            self.transition(transition)
            var metadata: Logger.Metadata = [
                "lifeline.from": "\(transition.from.rawValue)", "lifeline.event": "\(transition.event.rawValue)",
                "lifeline.state": "\(transition.to.rawValue)", "lifeline.failures": "\(transition.failures)",
            ]
            if let cause = transition.cause { metadata["lifeline.cause"] = "\(cause.code)" }
            logger.info("transition", metadata: metadata)
        }
    }

    private func transition(_ transition: SessionTransition) {
        Counter(
            label: "lifeline_session_transitions_total",
            dimensions: [
                ("from", transition.from.rawValue), ("event", transition.event.rawValue),
                ("to", transition.to.rawValue),
            ],
            factory: factory
        ).increment()
    }

    private func failure(_ cause: TemporaryFailureCause) {
        Counter(
            label: "lifeline_session_failures_total", dimensions: [("cause", cause.code.rawValue)], factory: factory
        )
        .increment()
    }

    /// Counts and logs (at `.debug`) an event a state did not accept.
    func rejected(_ event: SessionEvent.Kind, in state: SessionState) {
        logger.debug(
            "event rejected", metadata: ["lifeline.state": "\(state.rawValue)", "lifeline.event": "\(event.rawValue)"])
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
