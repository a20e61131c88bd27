import Lifeline

/// The socket's events, for any number of observers: every observer receives every event after it
/// started iterating, in order.
///
/// Each observer has its own buffer of ``StoatClient/Configuration/eventBufferLimit`` events (10 000 by
/// default). An observer that falls that far behind is not dropped silently: its iteration delivers what
/// it buffered, then throws ``StoatClientErrorCode/observerTooSlow``, so it knows it missed events and
/// can read the cache (which applied every event before any observer saw it) and observe again. Other
/// observers, and the cache, are not affected.
public struct StoatEvents: AsyncSequence, Sendable {
    /// The element: an event.
    public typealias Element = BonfireEvent
    /// The error that ends a too-slow observer's iteration.
    public typealias Failure = StoatClientError

    let hub: Broadcaster<BonfireEvent>

    /// Starts an iteration with the next event.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: hub.subscription().makeAsyncIterator())
    }

    /// Delivers the events; ends when the client stops, or throws when the observer fell too far behind.
    public struct Iterator: AsyncIteratorProtocol {
        var base: Broadcaster<BonfireEvent>.Subscription.Iterator

        /// The next event, or `nil` once the client stopped.
        ///
        /// - Throws: ``StoatClientErrorCode/observerTooSlow`` after the last buffered event when the
        ///   buffer overflowed.
        public mutating func next() async throws(StoatClientError) -> BonfireEvent? {
            do {
                return try await base.next()
            } catch {
                throw StoatClientError(error)
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
                throw StoatClientError(error)
            }
        }
    }
}

extension Broadcaster {
    /// A broadcaster of the socket's events or messages: each observer has a buffer of `limit` events and, when
    /// it falls further behind, its iteration ends with ``StoatClientErrorCode/observerTooSlow`` after what it
    /// buffered — events must not be lost silently, and a slow observer must neither hold the socket back nor
    /// grow without bound (the cache applied every event before any observer saw it, so it can read the cache
    /// and observe again).
    static func events(limit: Int) -> Broadcaster {
        precondition(limit > 0, "the event buffer limit must be positive, got \(limit)")
        return Broadcaster(buffering: .failing(after: limit))
    }
}

extension StoatClientError {
    /// The error that ends the iteration of an events observer that fell too far behind.
    init(_ overflow: BroadcastOverflow) {
        self.init(
            code: .observerTooSlow,
            message: "an observer fell \(overflow.limit) events behind; read the cache and observe again",
            cause: overflow)
    }
}

/// Every message the client receives, edits and deletions, for any number of observers (``StoatClient/messages``):
/// each message id ``MessageEvent/received(_:origin:)`` once, live or caught up after a reconnect.
///
/// Each observer has its own buffer of ``StoatClient/Configuration/eventBufferLimit`` events; one that falls
/// that far behind is told (its iteration throws ``StoatClientErrorCode/observerTooSlow`` after what it
/// buffered) rather than silently missing messages.
public struct StoatMessages: AsyncSequence, Sendable {
    /// The element: what happened to a message.
    public typealias Element = MessageEvent
    /// The error that ends a too-slow observer's iteration.
    public typealias Failure = StoatClientError

    let hub: Broadcaster<MessageFeedItem>

    /// Starts an iteration with the next event.
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: hub.subscription().makeAsyncIterator())
    }

    /// Delivers the events; ends when the client stops, or throws when the observer fell too far behind.
    public struct Iterator: AsyncIteratorProtocol {
        var base: Broadcaster<MessageFeedItem>.Subscription.Iterator

        /// The next event, or `nil` once the client stopped.
        ///
        /// - Throws: ``StoatClientErrorCode/observerTooSlow`` after the last buffered event when the
        ///   buffer overflowed.
        public mutating func next() async throws(StoatClientError) -> MessageEvent? {
            do {
                while let item = try await base.next() {
                    if case .message(let event) = item { return event }
                }
                return nil
            } catch {
                throw StoatClientError(error)
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
