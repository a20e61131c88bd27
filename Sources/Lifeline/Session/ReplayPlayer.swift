import LifelineCore
import Synchronization

/// The replay plan's plays on the live connection: each is started on the socket, an awaited answer is handed
/// back as work, and the answers the socket gave at once wait here, in order, to be handed to the plan together.
///
/// Decision: an answer given at once is handed over in a later turn of the session's actor, as an awaited
/// answer is (so a transition's own snapshot still comes before its plays' answers), but a whole run of such
/// answers in one: the first costs one job, and each play the plan starts from an answer is answered in the
/// same loop — a sequential replay of 1 000 subscriptions takes one job, no timeout, and one snapshot, not
/// 1 000 of each.
final class ReplayPlayer: Sendable {
    private struct Batch {
        var answers: [(id: UInt64, succeeded: Bool)] = []
        var taken = 0
    }

    private let batch = Mutex(Batch())

    /// Starts `play` on `connection`; without one it fails at once. An answer given at once joins the batch,
    /// and the first of a batch starts `handOver` in `workload`, one later turn; an answer to await is
    /// awaited as the client's work in `workload`, and goes to `answered`.
    ///
    /// - Returns: Whether the answer is awaited.
    func start(
        _ play: ReplayPlan.Play, on connection: (any SessionConnection)?, in workload: SessionWorkload,
        answered: @escaping @Sendable (Bool) async -> Void, handOver: @escaping @Sendable () async -> Void
    ) -> Bool {
        let start = connection?.startPlay(play.event)
        if case .pending(let answer)? = start {
            workload.submit(racing: false, client: true) { _ in await answered((try? await answer()) != nil) }
            return true
        }
        let succeeded = if case .succeeded? = start { true } else { false }
        let first = batch.withLock { batch in
            batch.answers.append((play.id, succeeded))
            return batch.answers.count == 1
        }
        if first { workload.submit(racing: false, client: false, counted: false) { _ in await handOver() } }
        return false
    }

    /// The next answer given at once, in order, answers added while taking included; `nil` once all are taken,
    /// which empties the batch.
    func next() -> (id: UInt64, succeeded: Bool)? {
        batch.withLock { batch in
            guard batch.taken < batch.answers.count else {
                batch = Batch()
                return nil
            }
            batch.taken += 1
            return batch.answers[batch.taken - 1]
        }
    }

    /// Forgets every answer (a disposed client's plays: the plan starts its ids again).
    func removeAll() {
        batch.withLock { $0 = Batch() }
    }
}
