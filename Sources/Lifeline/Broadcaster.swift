import Synchronization

/// Delivers values to any number of subscribers, each through its own unbounded `AsyncStream`.
///
/// With a current value (``init(current:)``), every new subscriber receives it first, under the same lock
/// that publishing takes, so it never misses or repeats a value; without one (``init()``), a subscriber
/// receives the values published after it subscribed.
final class Broadcaster<Value: Sendable>: Sendable {
    private struct State {
        var current: Value?
        var observers: [Int: AsyncStream<Value>.Continuation] = [:]
        var nextID = 0
        var finished = false
    }

    private let state: Mutex<State>
    private let replaysCurrent: Bool

    /// A broadcaster of events: subscribers receive what is published after they subscribe.
    init() {
        state = Mutex(State())
        replaysCurrent = false
    }

    /// A broadcaster of states: subscribers receive the current value first.
    init(current: Value) {
        state = Mutex(State(current: current))
        replaysCurrent = true
    }

    /// The last value published (or the initial one); `nil` for an event broadcaster.
    var current: Value? { state.withLock { $0.current } }

    func subscribe() -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self)
        let id: Int? = state.withLock { state in
            if let current = state.current { continuation.yield(current) }
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

    func publish(_ value: Value) {
        state.withLock { state in
            if replaysCurrent { state.current = value }
            for observer in state.observers.values { observer.yield(value) }
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
