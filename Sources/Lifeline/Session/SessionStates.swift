/// The snapshots of a ``Session``, for any number of observers: each iteration starts with the current
/// snapshot, then receives later ones, in order, until the session's ``Session/run()`` ends.
///
/// Each observer's buffer holds one snapshot: an observer that falls behind receives the newest, whose
/// ``SessionSnapshot/transitions`` are every transition since the snapshot it read before (up to
/// ``SessionSnapshot/maximumPendingTransitions``; more are counted in
/// ``SessionSnapshot/droppedTransitions``). So an interface always renders the latest state, a timeline
/// misses no transition as long as it reads at least once per that many, and an observer that stops
/// reading without cancelling holds one snapshot, not every one since.
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
