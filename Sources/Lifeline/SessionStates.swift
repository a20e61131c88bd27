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

    let broadcaster: Broadcaster<SessionSnapshot>

    /// Starts an iteration at the current snapshot.
    public func makeAsyncIterator() -> AsyncStream<SessionSnapshot>.Iterator {
        broadcaster.subscribe().makeAsyncIterator()
    }
}
