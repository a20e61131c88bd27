import Synchronization

/// The snapshots of a ``Session``, for any number of observers: each iteration starts with the current
/// snapshot, then receives every later one, in order, until the session's ``Session/run()`` ends.
///
/// Every snapshot is delivered (the buffer is unbounded), so an observer that records a timeline misses
/// no transition; an interface that only needs the latest can skip ahead.
public struct SessionStates: AsyncSequence, Sendable {
    /// The element: a snapshot.
    public typealias Element = SessionSnapshot
    /// Iteration never throws.
    public typealias Failure = Never

    let broadcaster: SnapshotBroadcaster

    /// Starts an iteration at the current snapshot.
    public func makeAsyncIterator() -> AsyncStream<SessionSnapshot>.Iterator {
        broadcaster.subscribe().makeAsyncIterator()
    }
}

/// Holds the current snapshot and the observers' continuations; subscribing and publishing take a lock
/// so that a new observer gets exactly the current snapshot first, never a stale or a skipped one.
final class SnapshotBroadcaster: Sendable {
    private struct State {
        var current: SessionSnapshot
        var observers: [Int: AsyncStream<SessionSnapshot>.Continuation] = [:]
        var nextID = 0
        var finished = false
    }

    private let state: Mutex<State>

    init(_ initial: SessionSnapshot) {
        state = Mutex(State(current: initial))
    }

    var current: SessionSnapshot { state.withLock { $0.current } }

    func subscribe() -> AsyncStream<SessionSnapshot> {
        let (stream, continuation) = AsyncStream.makeStream(of: SessionSnapshot.self)
        let id: Int? = state.withLock { state in
            continuation.yield(state.current)
            guard !state.finished else { return nil }
            defer { state.nextID += 1 }
            state.observers[state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.observers.removeValue(forKey: id) }
        }
        return stream
    }

    func publish(_ snapshot: SessionSnapshot) {
        state.withLock { state in
            state.current = snapshot
            for observer in state.observers.values { observer.yield(snapshot) }
        }
    }

    func finish() {
        let observers = state.withLock { state in
            state.finished = true
            defer { state.observers = [:] }
            return Array(state.observers.values)
        }
        for observer in observers { observer.finish() }
    }
}
