import Synchronization

/// Delivers values to any number of subscribers, each through its own buffer, chosen by ``Buffering``:
/// every value (``Buffering/unbounded``), the newest few (``Buffering/newest(_:)``), one pending value into
/// which later values are merged (``Buffering/coalescing(_:)``), or a bounded buffer that ends the
/// subscription loudly when it overflows (``Buffering/failing(after:)``) — so a subscriber that stops
/// reading without cancelling holds a bounded amount of memory, unless it asked for every value, and never
/// slows the publisher or the other subscribers: publishing appends to each buffer under a lock and never
/// waits for a reader.
///
/// The one fan-out of Lifeline: the session's snapshots, an operation list, the socket's events and
/// messages, the cache's change signals and ``ManualNetworkMonitor`` all broadcast through it. Each use
/// picks its policy and says why where it makes one: a stream of states may keep only the newest values (a
/// reader wants the state now, not the history), a stream of events that must not lose any ends a
/// subscriber that falls too far behind with ``BroadcastOverflow`` instead of dropping events silently.
///
/// With a current value (``init(current:buffering:)``), every new subscriber receives it first, under the
/// same lock that publishing takes, so it never misses or repeats a value; without one
/// (``init(buffering:)``), a subscriber receives the values published after it subscribed.
///
/// `package`, so that every Lifeline module broadcasts the same way.
package final class Broadcaster<Value: Sendable>: Sendable {
    /// How much a subscriber that does not keep up holds.
    package struct Buffering: Sendable {
        enum Kind: Sendable {
            case unbounded
            case newest(Int)
            case coalescing(@Sendable (_ pending: Value, _ newer: Value) -> Value)
            case failing(Int)
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

        /// At most `count` unread values; a value published when the subscriber holds `count` ends its
        /// subscription: it reads the `count` values, then ``BroadcastOverflow`` (through ``subscription()``;
        /// the stream of ``subscribe()`` just ends). For events none of which may be lost silently.
        package static func failing(after count: Int) -> Buffering {
            precondition(count >= 1, "a broadcaster's buffer must hold at least one value, got \(count)")
            return Buffering(kind: .failing(count))
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

    /// The current value of a broadcaster made with one (``init(current:buffering:)``), which never loses it.
    package var latest: Value {
        guard let current else { preconditionFailure("a broadcaster made with a current value lost it") }
        return current
    }

    /// How many subscribers are listening.
    package var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// How many values each subscriber's buffer has storage for: what a burst left allocated (for the tests).
    package var bufferCapacities: [Int] { state.withLock { $0.subscribers.values.map(\.bufferCapacity) } }

    /// A new subscription: the current value first (for a broadcaster of states), then every value
    /// published, as the buffering allows, until ``finish()`` or until the iterating task is cancelled.
    package func subscribe() -> AsyncStream<Value> {
        let subscription = subscription()
        return AsyncStream(
            unfolding: { await subscription.subscriber.next() },
            onCancel: {
                subscription.subscriber.finish()
                subscription.token.unsubscribe()
            })
    }

    /// A new subscription that says why it ended: like ``subscribe()``, but a subscriber whose
    /// ``Buffering/failing(after:)`` buffer overflowed reads what it buffered, then ``BroadcastOverflow``.
    /// Dropping the iterator (or cancelling its task) unsubscribes.
    package func subscription() -> Subscription {
        let (subscriber, id) = add()
        return Subscription(subscriber: subscriber, token: Token(broadcaster: self, id: id))
    }

    /// A new subscription as an `AsyncThrowingStream`, for callers that keep one: ``subscription()``'s
    /// values and its ``BroadcastOverflow``.
    package func throwingStream() -> AsyncThrowingStream<Value, any Error> {
        let subscription = subscription()
        return AsyncThrowingStream(unfolding: { try await subscription.subscriber.nextOrOverflow() })
    }

    private func add() -> (Subscriber, Int?) {
        let subscriber = Subscriber(buffering: buffering)
        let id: Int? = state.withLock { state in
            // A new subscriber has no reader waiting yet: the value is buffered.
            if let current = state.current { _ = subscriber.offer(current) }
            guard !state.finished else { return nil }
            defer { state.nextID += 1 }
            state.subscribers[state.nextID] = subscriber
            return state.nextID
        }
        if id == nil { subscriber.finish() }
        return (subscriber, id)
    }

    fileprivate func remove(_ id: Int) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: id) }
    }

    /// Publishes a value to every subscriber (and makes it the current one). A subscriber whose buffer
    /// overflowed (``Buffering/failing(after:)``) or that ended is let go.
    ///
    /// Waiting readers are resumed after the broadcaster's lock is released: resuming a reader takes its task's
    /// status lock, under which a cancelled task group unsubscribes (taking the broadcaster's lock), so resuming
    /// under the lock could deadlock with a cancellation.
    package func publish(_ value: Value) {
        let readers = state.withLock { state in
            if replaysCurrent { state.current = value }
            return Self.offer(value, in: &state)
        }
        for reader in readers { reader.resume(returning: value) }
    }

    /// Publishes a value if it differs from the current one; returns whether it did.
    @discardableResult
    package func publishIfChanged(_ value: Value) -> Bool where Value: Equatable {
        let readers: [CheckedContinuation<Value?, Never>]? = state.withLock { state in
            guard state.current != value else { return nil }
            if replaysCurrent { state.current = value }
            return Self.offer(value, in: &state)
        }
        guard let readers else { return false }
        for reader in readers { reader.resume(returning: value) }
        return true
    }

    /// Offers `value` to every subscriber, letting go of those that ended; returns the readers waiting for it,
    /// to resume once the lock is released.
    private static func offer(_ value: Value, in state: inout State) -> [CheckedContinuation<Value?, Never>] {
        var ended: [Int] = []
        var readers: [CheckedContinuation<Value?, Never>] = []
        for (id, subscriber) in state.subscribers {
            switch subscriber.offer(value) {
            case .buffered: break
            case .waiting(let reader): readers.append(reader)
            case .ended: ended.append(id)
            }
        }
        for id in ended { state.subscribers[id] = nil }
        return readers
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

    /// Iterates one subscriber's buffer; ``BroadcastOverflow`` once after what it buffered, if it overflowed.
    package struct Subscription: AsyncSequence, Sendable {
        /// The element: a published value.
        package typealias Element = Value
        /// The error of a subscriber that fell too far behind.
        package typealias Failure = BroadcastOverflow

        fileprivate let subscriber: Subscriber
        fileprivate let token: Token

        /// Starts reading the subscriber's buffer.
        package func makeAsyncIterator() -> Iterator { Iterator(subscriber: subscriber, token: token) }

        /// Reads the subscriber's buffer.
        package struct Iterator: AsyncIteratorProtocol {
            fileprivate let subscriber: Subscriber
            fileprivate let token: Token

            /// The next value, `nil` once the subscription ended, or ``BroadcastOverflow`` once after the last
            /// buffered value of a subscriber that fell too far behind.
            package mutating func next() async throws(BroadcastOverflow) -> Value? {
                try await subscriber.nextOrOverflow()
            }

            /// The next value, in the caller's isolation.
            package mutating func next(isolation actor: isolated (any Actor)?) async throws(BroadcastOverflow) -> Value?
            {
                try await subscriber.nextOrOverflow()
            }
        }
    }

    /// Unsubscribes when the subscription is cancelled, or when the last copy of its iterator (or stream) goes.
    fileprivate final class Token: Sendable {
        private let broadcaster: Broadcaster
        private let id: Int?

        init(broadcaster: Broadcaster, id: Int?) {
            self.broadcaster = broadcaster
            self.id = id
        }

        func unsubscribe() {
            if let id { broadcaster.remove(id) }
        }

        deinit { unsubscribe() }
    }

    /// One subscriber's buffer and the reader waiting on it: a hand-built mailbox rather than an
    /// `AsyncStream`, because no `AsyncStream` policy merges a pending value (``Buffering/coalescing(_:)``)
    /// or says that it overflowed (``Buffering/failing(after:)``).
    fileprivate final class Subscriber: Sendable {
        private struct State {
            var buffer: [Value] = []
            var head = 0
            var reader: CheckedContinuation<Value?, Never>?
            var finished = false
            var overflowLimit: Int?
            var overflowReported = false
        }

        private let state = Mutex(State())
        private let buffering: Buffering
        /// The most values whose storage an emptied buffer keeps.
        let keptCapacity = 16

        init(buffering: Buffering) { self.buffering = buffering }

        /// How many values the buffer's storage holds (for the tests).
        var bufferCapacity: Int { state.withLock { $0.buffer.capacity } }

        /// The next value, `nil` once the subscriber ended, or ``BroadcastOverflow`` once after the last
        /// buffered value of a subscriber whose buffer overflowed.
        func nextOrOverflow() async throws(BroadcastOverflow) -> Value? {
            if let value = await next() { return value }
            let limit: Int? = state.withLock { state in
                guard let limit = state.overflowLimit, !state.overflowReported else { return nil }
                state.overflowReported = true
                return limit
            }
            if let limit { throw BroadcastOverflow(limit: limit) }
            return nil
        }

        /// What became of an offered value.
        enum Offer {
            /// Kept in the buffer.
            case buffered
            /// A reader waits for it: the caller resumes it with the value, outside any lock.
            case waiting(CheckedContinuation<Value?, Never>)
            /// The subscriber ended (finished, cancelled, or overflowed now); the value was not kept.
            case ended
        }

        /// Offers a value. Resumes nothing itself: a waiting reader is handed back to the caller.
        func offer(_ value: Value) -> Offer {
            state.withLock { state in
                guard !state.finished else { return .ended }
                if let reader = state.reader {
                    state.reader = nil
                    return .waiting(reader)
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
                case .failing(let count):
                    guard pending < count else {
                        state.finished = true
                        state.overflowLimit = count
                        return .ended
                    }
                    state.buffer.append(value)
                }
                // Drop what was read once it is most of the storage, so reading stays O(1) amortised.
                if state.head > 64 && state.head * 2 > state.buffer.count {
                    state.buffer.removeFirst(state.head)
                    state.head = 0
                }
                return .buffered
            }
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
                                // Everything was read: keep no value alive for a reader that is done with it, and
                                // no storage beyond a few values (a burst — a catch-up's messages — would
                                // otherwise stay allocated at its largest for the subscriber's life).
                                state.buffer.removeAll(keepingCapacity: state.buffer.capacity <= keptCapacity)
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

/// Why a subscription of a ``Broadcaster`` with ``Broadcaster/Buffering/failing(after:)`` ended: the subscriber
/// fell `limit` values behind, and the value after them was not kept for it.
package struct BroadcastOverflow: Error, Sendable, Hashable {
    /// The buffer's size.
    package var limit: Int

    /// An overflow of a buffer of `limit` values.
    package init(limit: Int) { self.limit = limit }
}
