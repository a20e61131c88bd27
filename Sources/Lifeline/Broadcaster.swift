import Synchronization

/// Delivers values to any number of subscribers, each through its own buffer, chosen by ``Buffering``:
/// every value (``Buffering/unbounded``), the newest few (``Buffering/newest(_:)``), or one pending value
/// into which later values are merged (``Buffering/coalescing(_:)``) — so a subscriber that stops reading
/// without cancelling holds a bounded amount of memory, unless it asked for every value.
///
/// With a current value (``init(current:buffering:)``), every new subscriber receives it first, under the
/// same lock that publishing takes, so it never misses or repeats a value; without one
/// (``init(buffering:)``), a subscriber receives the values published after it subscribed.
///
/// `package`, so that every Lifeline module broadcasts the same way (the session's snapshots, an
/// operation list, a protocol's data events).
package final class Broadcaster<Value: Sendable>: Sendable {
    /// How much a subscriber that does not keep up holds.
    package struct Buffering: Sendable {
        enum Kind: Sendable {
            case unbounded
            case newest(Int)
            case coalescing(@Sendable (_ pending: Value, _ newer: Value) -> Value)
        }

        let kind: Kind

        /// Every value, however far behind the subscriber is: for subscribers that must see each one and
        /// are known to keep up.
        package static var unbounded: Buffering { Buffering(kind: .unbounded) }

        /// The newest `count` values; older unread ones are dropped.
        package static func newest(_ count: Int) -> Buffering {
            precondition(count >= 1, "a broadcaster's buffer must hold at least one value, got \(count)")
            return Buffering(kind: .newest(count))
        }

        /// One pending value: a value published while one is still unread replaces it by
        /// `merge(pending, newer)` — the newest state, carrying whatever of the older it must keep.
        package static func coalescing(_ merge: @escaping @Sendable (Value, Value) -> Value) -> Buffering {
            Buffering(kind: .coalescing(merge))
        }
    }

    private struct State {
        var current: Value?
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
        var finished = false
    }

    private let state: Mutex<State>
    private let replaysCurrent: Bool
    private let buffering: Buffering

    /// A broadcaster of events: subscribers receive what is published after they subscribe.
    package init(buffering: Buffering = .unbounded) {
        state = Mutex(State())
        replaysCurrent = false
        self.buffering = buffering
    }

    /// A broadcaster of states: subscribers receive the current value first.
    package init(current: Value, buffering: Buffering = .unbounded) {
        state = Mutex(State(current: current))
        replaysCurrent = true
        self.buffering = buffering
    }

    /// The last value published (or the initial one); `nil` for an event broadcaster.
    package var current: Value? { state.withLock { $0.current } }

    /// How many subscribers are listening.
    package var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// A new subscription: the current value first (for a broadcaster of states), then every value
    /// published, as the buffering allows, until ``finish()`` or until the iterating task is cancelled.
    package func subscribe() -> AsyncStream<Value> {
        let subscriber = Subscriber(buffering: buffering)
        let id: Int? = state.withLock { state in
            if let current = state.current { subscriber.offer(current) }
            guard !state.finished else { return nil }
            defer { state.nextID += 1 }
            state.subscribers[state.nextID] = subscriber
            return state.nextID
        }
        guard let id else {
            subscriber.finish()
            return AsyncStream(unfolding: { await subscriber.next() })
        }
        return AsyncStream(
            unfolding: { await subscriber.next() },
            onCancel: { [weak self] in
                subscriber.finish()
                _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
            })
    }

    /// Publishes a value to every subscriber (and makes it the current one).
    package func publish(_ value: Value) {
        state.withLock { state in
            if replaysCurrent { state.current = value }
            for subscriber in state.subscribers.values { subscriber.offer(value) }
        }
    }

    /// Ends every subscription once its buffered values are read; later subscriptions get the current
    /// value and end.
    package func finish() {
        let subscribers = state.withLock { state in
            state.finished = true
            defer { state.subscribers = [:] }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    /// One subscriber's buffer and the reader waiting on it.
    private final class Subscriber: Sendable {
        private struct State {
            var buffer: [Value] = []
            var head = 0
            var reader: CheckedContinuation<Value?, Never>?
            var finished = false
        }

        private let state = Mutex(State())
        private let buffering: Buffering

        init(buffering: Buffering) { self.buffering = buffering }

        func offer(_ value: Value) {
            let reader: CheckedContinuation<Value?, Never>? = state.withLock { state in
                guard !state.finished else { return nil }
                if let reader = state.reader {
                    state.reader = nil
                    return reader
                }
                let pending = state.buffer.count - state.head
                switch buffering.kind {
                case .unbounded:
                    state.buffer.append(value)
                case .newest(let count):
                    state.buffer.append(value)
                    if pending + 1 > count { state.head += 1 }
                case .coalescing(let merge):
                    if pending > 0 {
                        state.buffer[state.buffer.count - 1] = merge(state.buffer[state.buffer.count - 1], value)
                    } else {
                        state.buffer.append(value)
                    }
                }
                // Drop what was read once it is most of the storage, so reading stays O(1) amortised.
                if state.head > 64 && state.head * 2 > state.buffer.count {
                    state.buffer.removeFirst(state.head)
                    state.head = 0
                }
                return nil
            }
            reader?.resume(returning: value)
        }

        func finish() {
            let reader = state.withLock { state in
                state.finished = true
                defer { state.reader = nil }
                return state.reader
            }
            reader?.resume(returning: nil)
        }

        func next() async -> Value? {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
                    let ready: Value?? = state.withLock { state in
                        if state.head < state.buffer.count {
                            let value = state.buffer[state.head]
                            state.head += 1
                            if state.head == state.buffer.count {
                                // Everything was read: keep no value alive for a reader that is done with it.
                                state.buffer.removeAll(keepingCapacity: true)
                                state.head = 0
                            }
                            return .some(value)
                        }
                        if state.finished || Task.isCancelled { return .some(nil) }
                        state.reader = continuation
                        return nil
                    }
                    if let ready { continuation.resume(returning: ready) }
                }
            } onCancel: {
                finish()
            }
        }
    }
}
