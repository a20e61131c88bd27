public import Lifeline
public import LifelineCore

/// Follows a session's snapshots in order, so a test can wait for the next one that matters without
/// sleeping, and keeps every snapshot it has seen.
public actor SnapshotRecorder {
    private var iterator: AsyncStream<SessionSnapshot>.Iterator
    /// Every snapshot consumed so far, in order.
    public private(set) var seen: [SessionSnapshot] = []

    /// Starts following `states` at its current snapshot.
    public init(_ states: SessionStates) {
        iterator = states.makeAsyncIterator()
    }

    /// Consumes snapshots until one matches `predicate`, and returns it; `nil` if the session stopped.
    @discardableResult
    public func next(where predicate: @Sendable (SessionSnapshot) -> Bool) async -> SessionSnapshot? {
        var iterator = self.iterator
        defer { self.iterator = iterator }
        while let snapshot = await iterator.next(isolation: self) {
            seen.append(snapshot)
            if predicate(snapshot) { return snapshot }
        }
        return nil
    }

    /// Consumes snapshots until one whose transitions enter `state`, and returns that snapshot.
    ///
    /// The initial snapshot, which no transition led to, never matches: `next(.ready)` waits for the
    /// session to come back to READY. A snapshot that carries several transitions (the recorder fell
    /// behind) matches when any of them enters `state`.
    @discardableResult
    public func next(_ state: SessionState) async -> SessionSnapshot? {
        await next { $0.transitions.contains { $0.to == state } }
    }

    /// Every state the snapshots seen went through, in order — each snapshot's state, or the states its
    /// transitions left and entered — with consecutive repeats collapsed.
    public var stateTrail: [SessionState] {
        let states = seen.flatMap { snapshot in
            snapshot.transitions.isEmpty
                ? [snapshot.state] : [snapshot.transitions[0].from] + snapshot.transitions.map(\.to)
        }
        return states.reduce(into: []) { trail, state in
            if trail.last != state { trail.append(state) }
        }
    }
}
