import Lifeline
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
    let key: ChangeKey
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

/// What an observer of the cache waits on: a part of the cache that changes as a whole.
enum ChangeKey: Hashable, Sendable {
    /// The chat list.
    case chats
    /// A channel's history.
    case history(String)
    /// A server's members.
    case members(String)
    /// The outbox's entries.
    case outbox
    /// The operations' deadlines.
    case restrictions
    /// The composer's drafts.
    case drafts
    /// The push subscription's status.
    case push
}

/// Wake-ups for observers, by key: a ``Broadcaster`` of wake-ups per key that has observers.
///
/// Each observer's buffer holds one wake-up (``Broadcaster/Buffering/newest(_:)`` of 1): a wake-up carries no
/// value, since the observer reads the value when it wakes, so any number of changes between two reads is one
/// wake-up and a slow observer holds nothing more.
final class ChangeSignals: Sendable {
    private struct State {
        var broadcasters: [ChangeKey: Broadcaster<Void>] = [:]
        var finished = false
    }

    private let state = Mutex(State())

    /// A signal that fires once at once (for the current value) and after every later change of `key`.
    func subscribe(_ key: ChangeKey) -> AsyncStream<Void> {
        state.withLock { state in
            if let broadcaster = state.broadcasters[key] { return broadcaster.subscribe() }
            let broadcaster = Broadcaster<Void>(current: (), buffering: .newest(1))
            if state.finished {
                broadcaster.finish()
            } else {
                state.broadcasters[key] = broadcaster
            }
            return broadcaster.subscribe()
        }
    }

    /// How many keys have a broadcaster (observed now, or since the last signal of that key).
    var keyCount: Int { state.withLock { $0.broadcasters.count } }

    /// Wakes every observer of each key; lets go of the broadcaster of a key nobody observes any more.
    func signal(_ keys: some Sequence<ChangeKey>) {
        state.withLock { state in
            for key in keys {
                guard let broadcaster = state.broadcasters[key] else { continue }
                broadcaster.publish(())
                if broadcaster.subscriberCount == 0 { state.broadcasters[key] = nil }
            }
        }
    }

    /// Ends every observation.
    func finish() {
        let all = state.withLock { state in
            state.finished = true
            defer { state.broadcasters = [:] }
            return Array(state.broadcasters.values)
        }
        for broadcaster in all { broadcaster.finish() }
    }
}
