public import Lifeline
import Synchronization

/// An `OperationSource` whose answers a test gives by hand: every fetch waits until the test answers it,
/// and the source counts fetches and how many were in flight at once.
///
/// ```swift
/// let fetch = await source.nextFetch()       // the list asked for its operations
/// fetch.answer(OperationListing([...], serverTime: serverNow, roundTrip: .milliseconds(80)))
/// ```
public final class ScriptedOperationSource<Operation: Identifiable & Sendable>: OperationSource
where Operation.ID: Sendable {
    private struct State {
        var fetches = 0
        var inFlight = 0
        var mostInFlight = 0
        var unclaimed: [ScriptedFetch<Operation>] = []
        var claimants: [CheckedContinuation<ScriptedFetch<Operation>, Never>] = []
    }

    private let state = Mutex(State())
    private let clock: TestClock?

    /// Creates a source.
    ///
    /// - Parameter clock: When given, each fetch records the clock's time when it started
    ///   (``ScriptedFetch/startedAt``), so a test can tell what started it.
    public init(clock: TestClock? = nil) {
        self.clock = clock
    }

    /// How many fetches the list started.
    public var fetches: Int { state.withLock { $0.fetches } }

    /// How many fetches are waiting for an answer now.
    public var inFlight: Int { state.withLock { $0.inFlight } }

    /// The most fetches that ever waited for an answer at the same time: 1 for a list that behaves.
    public var mostInFlight: Int { state.withLock { $0.mostInFlight } }

    /// Waits until the list starts its next fetch and returns it, in order.
    public func nextFetch() async -> ScriptedFetch<Operation> {
        await withCheckedContinuation { (continuation: CheckedContinuation<ScriptedFetch<Operation>, Never>) in
            let ready: ScriptedFetch<Operation>? = state.withLock { state in
                guard !state.unclaimed.isEmpty else {
                    state.claimants.append(continuation)
                    return nil
                }
                return state.unclaimed.removeFirst()
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Waits for the test's answer; throws `CancellationError` when the calling task is cancelled first.
    public func fetchOperations() async throws -> OperationListing<Operation> {
        let fetch = ScriptedFetch<Operation>(
            number: state.withLock { state in
                state.fetches += 1
                return state.fetches
            },
            startedAt: clock?.now)
        defer { state.withLock { $0.inFlight -= 1 } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                fetch.attach(continuation)
                let claimant = state.withLock { state -> CheckedContinuation<ScriptedFetch<Operation>, Never>? in
                    state.inFlight += 1
                    state.mostInFlight = max(state.mostInFlight, state.inFlight)
                    guard !state.claimants.isEmpty else {
                        state.unclaimed.append(fetch)
                        return nil
                    }
                    return state.claimants.removeFirst()
                }
                claimant?.resume(returning: fetch)
            }
        } onCancel: {
            fetch.resolve(.failure(CancellationError()))
        }
    }
}
