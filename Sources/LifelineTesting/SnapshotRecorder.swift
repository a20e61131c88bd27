public import Lifeline
public import LifelineCore

/// Follows a session's snapshots in order, so a test can wait for the next one that matters without
/// sleeping, and keeps every snapshot it has seen.
///
/// A session that publishes faster than the recorder reads merges snapshots: one snapshot may carry several
/// transitions (LOGIN_CACHED, then SOCKET_CONNECTED). ``next(_:)`` takes them one state at a time: waiting for
/// CONNECTING and then for CONNECTED finds both in the same merged snapshot.
public actor SnapshotRecorder {
    private var iterator: AsyncStream<SessionSnapshot>.Iterator
    /// The transitions of the last snapshot that ``next(_:)`` has not reached yet, as a snapshot of their own.
    private var remainder: SessionSnapshot?
    /// Every snapshot consumed so far, in order.
    public private(set) var seen: [SessionSnapshot] = []

    /// Starts following `states` at its current snapshot.
    public init(_ states: SessionStates) {
        iterator = states.makeAsyncIterator()
    }

    /// Consumes snapshots until one matches `predicate`, and returns it; `nil` if the session stopped.
    ///
    /// The transitions ``next(_:)`` left for later are offered first, as a snapshot whose `transitions` are
    /// those; a match consumes the whole snapshot.
    @discardableResult
    public func next(where predicate: @Sendable (SessionSnapshot) -> Bool) async -> SessionSnapshot? {
        while let snapshot = await nextSnapshot() {
            if predicate(snapshot) { return snapshot }
        }
        return nil
    }

    /// Consumes transitions until one enters `state`, and returns the snapshot that carried it.
    ///
    /// The initial snapshot, which no transition led to, never matches: `next(.ready)` waits for the
    /// session to come back to READY. A snapshot that carries several transitions (the recorder fell
    /// behind) matches when any of them enters `state`; it is returned with its `transitions` ending at the
    /// first such one (its other fields describe the session when it was published, which may be later), and
    /// the transitions after it are kept for the next call.
    @discardableResult
    public func next(_ state: SessionState) async -> SessionSnapshot? {
        while var snapshot = await nextSnapshot() {
            guard let index = snapshot.transitions.firstIndex(where: { $0.to == state }) else { continue }
            let later = snapshot.transitions[(index + 1)...]
            if !later.isEmpty {
                var rest = snapshot
                rest.transitions = Array(later)
                remainder = rest
            }
            snapshot.transitions.removeSubrange((index + 1)...)
            return snapshot
        }
        return nil
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

    /// The transitions left by the last ``next(_:)``, else the next snapshot published (recorded in
    /// ``seen``); `nil` once the session stopped.
    private func nextSnapshot() async -> SessionSnapshot? {
        if let remainder {
            self.remainder = nil
            return remainder
        }
        var iterator = self.iterator
        defer { self.iterator = iterator }
        guard let snapshot = await iterator.next(isolation: self) else { return nil }
        seen.append(snapshot)
        return snapshot
    }
}
