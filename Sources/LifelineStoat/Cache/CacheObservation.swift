import Synchronization

/// Values of the account cache as they change, for any number of observers: each iteration starts with
/// the current value, then delivers the value as it is after each change.
///
/// Every element is the whole value (the chat list, a channel's history…), so an observer that reads
/// slowly loses nothing by skipping ahead: when several changes happen between two reads, the next read
/// returns the value after all of them — the newest wins, and an observer's buffer never grows. The value
/// is computed when the observer reads, not when the cache changes, so a busy socket costs observers
/// nothing until they look.
public struct CacheObservation<Value: Sendable>: AsyncSequence, Sendable {
    /// The element: the value after a change.
    public typealias Element = Value
    /// Observation never throws.
    public typealias Failure = Never

    let signals: ChangeSignals
    let key: String
    let read: @Sendable () -> Value

    /// Starts an iteration at the current value.
    public func makeAsyncIterator() -> Iterator {
        Iterator(changes: signals.subscribe(key).makeAsyncIterator(), read: read)
    }

    /// Reads the value after each change; ends when the client stops.
    public struct Iterator: AsyncIteratorProtocol {
        var changes: AsyncStream<Void>.Iterator
        let read: @Sendable () -> Value

        /// The value after the next change (the current value first), or `nil` once the client stopped.
        public mutating func next() async -> Value? {
            guard await changes.next() != nil else { return nil }
            return read()
        }

        /// The value after the next change, in the caller's isolation.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Value? {
            guard await changes.next(isolation: actor) != nil else { return nil }
            return read()
        }
    }
}

/// Wake-ups for observers, by key: a signal per observer that holds at most one pending wake-up.
final class ChangeSignals: Sendable {
    private struct State {
        var observers: [String: [Int: AsyncStream<Void>.Continuation]] = [:]
        var nextID = 0
        var finished = false
    }

    private let state = Mutex(State())

    /// A signal that fires once at once (for the current value) and after every later change of `key`.
    func subscribe(_ key: String) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        continuation.yield()
        let id: Int? = state.withLock { state in
            guard !state.finished else { return nil }
            defer { state.nextID += 1 }
            state.observers[key, default: [:]][state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { state in
                state.observers[key]?[id] = nil
                if state.observers[key]?.isEmpty == true { state.observers[key] = nil }
            }
        }
        return stream
    }

    /// Wakes every observer of each key.
    func signal(_ keys: some Sequence<String>) {
        state.withLock { state in
            for key in keys {
                for continuation in state.observers[key]?.values ?? [:].values { continuation.yield() }
            }
        }
    }

    /// Ends every observation.
    func finish() {
        let all = state.withLock { state in
            state.finished = true
            defer { state.observers = [:] }
            return state.observers.values.flatMap(\.values)
        }
        for continuation in all { continuation.finish() }
    }
}
