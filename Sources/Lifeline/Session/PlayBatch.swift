/// The plays a connection answered at once (``SessionConnection/startPlay(_:)``: the socket took the frame), in
/// order, until one later turn of the session's actor hands them all to the replay plan.
///
/// Decision: an answer given at once is handed over in a later turn of the actor, as an awaited answer is (so a
/// transition's own snapshot still comes before its plays' answers), but a whole run of such answers in one:
/// the first costs one job, and each play the plan starts from an answer is answered in the same loop — a
/// sequential replay of 1 000 subscriptions takes one job, no timeout, and one snapshot, not 1 000 of each.
struct PlayBatch {
    private var answers: [(id: UInt64, succeeded: Bool)] = []
    private var taken = 0

    /// Adds a play's answer at the end.
    ///
    /// - Returns: Whether the batch was empty: its owner is to schedule the turn that takes it.
    mutating func append(_ id: UInt64, succeeded: Bool) -> Bool {
        answers.append((id, succeeded))
        return answers.count == 1
    }

    /// The next answer, in order, answers added while taking included; `nil` once all are taken, which empties
    /// the batch.
    mutating func next() -> (id: UInt64, succeeded: Bool)? {
        guard taken < answers.count else {
            removeAll()
            return nil
        }
        taken += 1
        return answers[taken - 1]
    }

    /// Forgets every answer (a disposed client's plays).
    mutating func removeAll() {
        answers.removeAll(keepingCapacity: true)
        taken = 0
    }
}
