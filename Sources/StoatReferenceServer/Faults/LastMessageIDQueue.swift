#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// stoatchat's debounced `last_message_id` task (`crates/core/database/src/tasks/last_message_id.rs` and
/// `tasks/mod.rs`), as a value driven by the server's clock.
///
/// A send pushes `(channel, id)` onto one queue of 10,000 slots (`try_push`: a full queue drops the update). Five
/// workers each loop once a second: commit their due tasks, then drain the queue into their own map of pending
/// tasks (a channel already pending there takes the newer id and its `last_updated` moves on), then sleep 1 s.
/// A task is due when more than 5 whole seconds passed since its last update or more than 30 since it was first
/// seen (`as_secs() > 5`, `> 30`): about 6 s after a channel's last message, 31 s at most for a busy one. The
/// commit writes the id (and `active` for a direct message) and publishes nothing.
///
/// The workers are modelled waking a fifth of a second apart, so that one channel's updates spread over them as
/// they do in stoatchat (where they wake in any order); each commits what it holds, so for a moment an older id
/// may be committed after a newer one, as stoatchat's may. Pure: the caller passes the time.
struct LastMessageIDQueue: Sendable {
    /// A committed update: the channel's `last_message_id` becomes `id` at `time`.
    struct Commit: Sendable, Equatable {
        var channel: String
        var id: String
        var isDirectMessage: Bool
        var time: Date
    }

    /// One worker's pending task for a channel (`DelayedTask<Task>`).
    private struct Pending: Sendable {
        var id: String
        var isDirectMessage: Bool
        var firstSeen: Date
        var lastUpdated: Date

        /// The worker's first tick at which the task is due: its ticks fall whole seconds after `lastUpdated`
        /// (a tick of the same worker), so this is a tick too.
        var due: Date {
            min(
                firstSeen.addingTimeInterval(LastMessageIDQueue.expireAfter),
                lastUpdated.addingTimeInterval(LastMessageIDQueue.saveAfter))
        }
    }

    /// stoatchat's `WORKER_COUNT`.
    static let workers = 5
    /// The queue's slots (`Queue::new(10_000)`).
    static let capacity = 10_000
    /// `SAVE_CONSTANT` 5: due once more than 5 whole seconds passed since the last update, at a whole-second tick.
    static let saveAfter: TimeInterval = 6
    /// `EXPIRE_CONSTANT` 30: due once more than 30 whole seconds passed since the task was first seen.
    static let expireAfter: TimeInterval = 31

    /// When worker 0 first woke; worker `w` wakes `w / 5` s later, then every second.
    private let origin: Date
    private var pending: [[String: Pending]] = Array(repeating: [:], count: LastMessageIDQueue.workers)
    /// The worker tick whose drain the queue is filling, and how many updates wait for it.
    private var filling: (tick: Date, count: Int)?
    /// Updates dropped because the queue was full.
    private(set) var dropped = 0
    /// No pending update is due before this (it may be earlier than the earliest, never later): a push that
    /// commits nothing costs no scan of the pending updates.
    private var earliestDue = Date.distantFuture

    init(origin: Date) {
        self.origin = origin
    }

    /// Whether any update waits to be committed.
    var isEmpty: Bool { pending.allSatisfy(\.isEmpty) }

    /// The next tick of worker `worker` at or after `time`.
    private func nextTick(of worker: Int, atOrAfter time: Date) -> Date {
        let phase = origin.addingTimeInterval(Double(worker) / Double(Self.workers))
        let elapsed = time.timeIntervalSince(phase)
        let ticks = max(0, (elapsed - 1e-9).rounded(.up))
        return phase.addingTimeInterval(ticks)
    }

    /// A send at `time` queues `id` as `channel`'s last message. Returns the commits due up to the worker tick
    /// that takes it, in time order (commit them before later ones).
    mutating func push(channel: String, id: String, isDirectMessage: Bool, at time: Date) -> [Commit] {
        var worker = 0
        var tick = nextTick(of: 0, atOrAfter: time)
        for candidate in 1..<Self.workers {
            let next = nextTick(of: candidate, atOrAfter: time)
            if next < tick { (worker, tick) = (candidate, next) }
        }
        let commits = due(at: tick)
        if let filling, filling.tick == tick {
            guard filling.count < Self.capacity else {
                dropped += 1
                return commits
            }
            self.filling = (tick, filling.count + 1)
        } else {
            filling = (tick, 1)
        }
        let task: Pending
        if var updated = pending[worker][channel] {
            updated.id = id
            updated.lastUpdated = tick
            task = updated
        } else {
            task = Pending(id: id, isDirectMessage: isDirectMessage, firstSeen: tick, lastUpdated: tick)
        }
        pending[worker][channel] = task
        earliestDue = min(earliestDue, task.due)
        return commits
    }

    /// The commits due at or before `time`, in time order; they leave the queue.
    mutating func due(at time: Date) -> [Commit] {
        guard earliestDue <= time else { return [] }
        var commits: [Commit] = []
        var earliest = Date.distantFuture
        for worker in pending.indices {
            for (channel, task) in pending[worker] {
                guard task.due <= time else {
                    earliest = min(earliest, task.due)
                    continue
                }
                commits.append(
                    Commit(channel: channel, id: task.id, isDirectMessage: task.isDirectMessage, time: task.due))
                pending[worker][channel] = nil
            }
        }
        earliestDue = earliest
        return commits.sorted { ($0.time, $0.id) < ($1.time, $1.id) }
    }

    /// Every pending update, committed now (the switch turned off), in the order they would have been.
    mutating func flush() -> [Commit] {
        due(at: .distantFuture)
    }
}
