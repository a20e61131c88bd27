public import Lifeline
import Synchronization

/// One fetch of a ``ScriptedOperationSource``, waiting for the test's answer.
public final class ScriptedFetch<Operation: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<OperationListing<Operation>, any Error>?
        var result: Result<OperationListing<Operation>, any Error>?
    }

    private let state = Mutex(State())

    /// The fetch's number, from 1, in the order the list started them.
    public let number: Int

    /// The source's clock's time when the fetch started, when the source was given a clock.
    public let startedAt: TestClock.Instant?

    init(number: Int, startedAt: TestClock.Instant?) {
        self.number = number
        self.startedAt = startedAt
    }

    /// Answers the fetch with a listing.
    public func answer(_ listing: OperationListing<Operation>) { resolve(.success(listing)) }

    /// Fails the fetch.
    public func fail(_ error: any Error) { resolve(.failure(error)) }

    func attach(_ continuation: CheckedContinuation<OperationListing<Operation>, any Error>) {
        let result = state.withLock { state in
            state.continuation = continuation
            return state.result
        }
        if let result { resolve(result) }
    }

    /// Resumes the fetch once; later answers are ignored.
    func resolve(_ result: Result<OperationListing<Operation>, any Error>) {
        let continuation = state.withLock { state in
            if state.result == nil { state.result = result }
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: state.withLock { $0.result! })
    }
}
