public import Lifeline
import Synchronization

/// A `HealthService` whose answer a test sets, and which counts how often it was asked.
public final class ScriptedHealthService: HealthService {
    private struct State {
        var status: Result<HealthStatus, any Error> = .success(HealthStatus())
        var checks = 0
    }

    private let state = Mutex(State())

    /// Creates a service that reports no outage.
    public init() {}

    /// Sets what the service answers from now on.
    public func answer(_ status: Result<HealthStatus, any Error>) { state.withLock { $0.status = status } }

    /// How many times the service was asked.
    public var checks: Int { state.withLock { $0.checks } }

    /// Answers as scripted.
    public func status() async throws -> HealthStatus {
        try state.withLock { state in
            state.checks += 1
            return state.status
        }.get()
    }
}
