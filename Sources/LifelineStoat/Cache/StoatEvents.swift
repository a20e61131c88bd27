import Synchronization

/// The socket's events, for any number of observers: every observer receives every event after it
/// started iterating, in order.
///
/// Each observer has its own buffer of ``StoatClient/Configuration/eventBufferLimit`` events (10 000 by
/// default). An observer that falls that far behind is not dropped silently: its iteration delivers what
/// it buffered, then throws ``StoatClientError/Code/observerTooSlow``, so it knows it missed events and
/// can read the cache (which applied every event before any observer saw it) and observe again. Other
/// observers, and the cache, are not affected.
public struct StoatEvents: AsyncSequence, Sendable {
    /// The element: an event.
    public typealias Element = BonfireEvent
    /// The error that ends a too-slow observer's iteration.
    public typealias Failure = StoatClientError

    let hub: EventHub<BonfireEvent>

    /// Starts an iteration with the next event.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: hub.subscribe().makeAsyncIterator())
    }

    /// Delivers the events; ends when the client stops, or throws when the observer fell too far behind.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<BonfireEvent, any Error>.Iterator

        /// The next event, or `nil` once the client stopped.
        ///
        /// - Throws: ``StoatClientError/Code/observerTooSlow`` after the last buffered event when the
        ///   buffer overflowed.
        public mutating func next() async throws(StoatClientError) -> BonfireEvent? {
            do {
                return try await base.next()
            } catch {
                throw Self.failure(error)
            }
        }

        /// The next event, in the caller's isolation.
        public mutating func next(
            isolation actor: isolated (any Actor)?
        ) async throws(StoatClientError)
            -> BonfireEvent?
        {
            do {
                return try await base.next(isolation: actor)
            } catch {
                throw Self.failure(error)
            }
        }

        private static func failure(_ error: any Error) -> StoatClientError {
            error as? StoatClientError
                ?? StoatClientError(code: .observerTooSlow, message: "the event stream ended", cause: error)
        }
    }
}

/// Delivers events to every observer through a bounded buffer of its own; an overflowing observer's
/// stream ends with ``StoatClientError/Code/observerTooSlow``.
final class EventHub<Event: Sendable>: Sendable {
    private struct State {
        var observers: [Int: AsyncThrowingStream<Event, any Error>.Continuation] = [:]
        var nextID = 0
        var finished = false
    }

    private let state = Mutex(State())
    private let limit: Int

    init(limit: Int) {
        precondition(limit > 0, "the event buffer limit must be positive, got \(limit)")
        self.limit = limit
    }

    /// How many observers are iterating.
    var observerCount: Int { state.withLock { $0.observers.count } }

    func subscribe() -> AsyncThrowingStream<Event, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: Event.self, throwing: (any Error).self, bufferingPolicy: .bufferingOldest(limit))
        let id: Int? = state.withLock { state in
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

    /// Delivers an event to every observer.
    func publish(_ event: Event) {
        let overflowed: [AsyncThrowingStream<Event, any Error>.Continuation] = state.withLock { state in
            var overflowed: [AsyncThrowingStream<Event, any Error>.Continuation] = []
            for (id, continuation) in state.observers {
                if case .dropped = continuation.yield(event) {
                    overflowed.append(continuation)
                    state.observers[id] = nil
                }
            }
            return overflowed
        }
        let error = StoatClientError(
            code: .observerTooSlow,
            message: "an observer fell \(limit) events behind; read the cache and observe again")
        for continuation in overflowed { continuation.finish(throwing: error) }
    }

    /// Ends every observer's iteration.
    func finish() {
        let all = state.withLock { state in
            state.finished = true
            defer { state.observers = [:] }
            return Array(state.observers.values)
        }
        for continuation in all { continuation.finish() }
    }
}

/// Every message the client receives, edits and deletions, for any number of observers (``StoatClient/messages``):
/// each message id ``MessageEvent/received(_:origin:)`` once, live or caught up after a reconnect.
///
/// Each observer has its own buffer of ``StoatClient/Configuration/eventBufferLimit`` events; one that falls
/// that far behind is told (its iteration throws ``StoatClientError/Code/observerTooSlow`` after what it
/// buffered) rather than silently missing messages.
public struct StoatMessages: AsyncSequence, Sendable {
    /// The element: what happened to a message.
    public typealias Element = MessageEvent
    /// The error that ends a too-slow observer's iteration.
    public typealias Failure = StoatClientError

    let hub: EventHub<MessageFeedItem>

    /// Starts an iteration with the next event.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: hub.subscribe().makeAsyncIterator())
    }

    /// Delivers the events; ends when the client stops, or throws when the observer fell too far behind.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<MessageFeedItem, any Error>.Iterator

        /// The next event, or `nil` once the client stopped.
        ///
        /// - Throws: ``StoatClientError/Code/observerTooSlow`` after the last buffered event when the
        ///   buffer overflowed.
        public mutating func next() async throws(StoatClientError) -> MessageEvent? {
            do {
                while let item = try await base.next() {
                    if case .message(let event) = item { return event }
                }
                return nil
            } catch {
                throw error as? StoatClientError
                    ?? StoatClientError(code: .observerTooSlow, message: "the message stream ended", cause: error)
            }
        }
    }
}

/// What the client's message feed carries: the events of ``StoatClient/messages``, and each catch-up's report
/// in its place among them — after every message it found (`package`: `lifeline connect` prints them in order).
package enum MessageFeedItem: Sendable {
    /// What happened to a message.
    case message(MessageEvent)
    /// A catch-up ended.
    case catchUp(CatchUpReport)
}
