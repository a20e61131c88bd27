import Lifeline
import LifelineCore
import Synchronization

/// What a ``SocketTimer`` wakes: a connection whose ``Heartbeat`` named a deadline.
protocol SocketTimerTarget: AnyObject, Sendable {
    /// The connection's deadline passed; `now` is the session clock's time.
    func deadlineReached(at now: Duration)
}

/// The one timer of every socket of a ``StoatConnectionFactory``: a heap of their deadlines
/// (`LifelineCore`'s `ExpiryQueue`) and a single sleep, on the session's clock, until the earliest.
///
/// A connection hands it the deadline its ``Heartbeat`` names (``schedule(_:at:)``); when a deadline
/// passes, the timer pops every connection due and calls ``SocketTimerTarget/deadlineReached(at:)`` on each,
/// which writes its Ping or aborts its socket. So a connection costs a heap entry, not a task: the sleep is
/// one short-lived task for the whole factory, re-armed only when the earliest deadline moves, and none
/// at all while no connection is open. See the LifelineStoat catalog's "The socket's timers".
final class SocketTimer: Sendable {
    private struct Entry: Identifiable, Sendable {
        let id: ObjectIdentifier
        let connection: any SocketTimerTarget
    }

    private struct State {
        var queue = ExpiryQueue<Entry>()
        /// The armed sleep: its number, the deadline it sleeps until, and its task.
        var sleep: (id: UInt64, deadline: Duration, task: Task<Void, Never>)?
        var lastSleep: UInt64 = 0
    }

    private let clock: SessionClock
    private let state = Mutex(State())

    init(clock: SessionClock) {
        self.clock = clock
    }

    /// How many connections hold a deadline.
    var count: Int { state.withLock { $0.queue.count } }

    /// Sets when `connection` is to be woken, or forgets it (`nil`), and re-arms the sleep if the earliest
    /// deadline moved.
    func schedule(_ connection: some SocketTimerTarget, at deadline: Duration?) {
        state.withLock { state in
            let id = ObjectIdentifier(connection)
            if let deadline {
                state.queue.insert(Entry(id: id, connection: connection), expiresAt: deadline)
            } else {
                state.queue.remove(id)
            }
            rearm(&state)
        }
    }

    /// Sleeps until the earliest deadline, cancelling a sleep for another one. Cancelling a task runs its
    /// sleep's cancellation at once, so a test clock never sees a stale sleep.
    private func rearm(_ state: inout State) {
        let earliest = state.queue.earliestDeadline
        guard state.sleep?.deadline != earliest else { return }
        state.sleep?.task.cancel()
        state.sleep = nil
        guard let earliest else { return }
        state.lastSleep &+= 1
        let id = state.lastSleep
        let task = Task { [clock, weak self] in
            do { try await clock.sleepUntil(earliest) } catch { return }
            self?.fire(id)
        }
        state.sleep = (id, earliest, task)
    }

    private func fire(_ id: UInt64) {
        let now = clock.elapsed()
        let due: [Entry] = state.withLock { state in
            // A sleep superseded just as it ended.
            guard state.sleep?.id == id else { return [] }
            state.sleep = nil
            let due = state.queue.popDue(at: now)
            rearm(&state)
            return due
        }
        for entry in due { entry.connection.deadlineReached(at: now) }
    }
}
