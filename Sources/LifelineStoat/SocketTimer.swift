import Lifeline
import LifelineCore

/// What a ``SocketTimer`` wakes: a connection whose ``Heartbeat`` named a deadline.
protocol SocketTimerTarget: AnyObject, Sendable {
    /// The connection's deadline passed; `now` is the session clock's time.
    func deadlineReached(at now: Duration)
}

/// The one timer of every socket of a ``StoatConnectionFactory``: their deadlines in one `DeadlineTimer`
/// (`Lifeline`'s "sleep until the earliest deadline, re-arm when it moves"), on the session's clock.
///
/// A connection hands it the deadline its ``Heartbeat`` names (``schedule(_:at:)``); when a deadline
/// passes, the timer pops every connection due and calls ``SocketTimerTarget/deadlineReached(at:)`` on each,
/// which writes its Ping or aborts its socket. So a connection costs a heap entry, not a task: the factory's
/// one loop sleeps for the earliest deadline, and runs only while a connection holds one. See the
/// LifelineStoat catalog's "The socket's timers".
///
/// The loop is the one task in the library that no task group owns: the factory is shared by every session
/// whose task runs one of its sockets, and has no `run()` of its own to be the loop's parent. It ends by
/// itself once no socket holds a deadline (the NIO sockets could use their event loop's `scheduleTask`
/// instead; the tests drive these timers with the test clock, so they stay on the injected clock).
final class SocketTimer: Sendable {
    private struct Entry: Identifiable, Sendable {
        let id: ObjectIdentifier
        let connection: any SocketTimerTarget
    }

    private let clock: SessionClock
    private let deadlines: DeadlineTimer<Entry>

    init(clock: SessionClock) {
        self.clock = clock
        deadlines = DeadlineTimer(clock: clock)
    }

    /// How many connections hold a deadline.
    var count: Int { deadlines.count }

    /// Sets when `connection` is to be woken, or forgets it (`nil`); the loop re-arms if the earliest
    /// deadline moved, and starts when none runs.
    func schedule(_ connection: some SocketTimerTarget, at deadline: Duration?) {
        let id = ObjectIdentifier(connection)
        guard let deadline else {
            deadlines.cancel(id)
            return
        }
        guard deadlines.schedule(Entry(id: id, connection: connection), at: deadline) else { return }
        Task { [deadlines, clock] in
            await deadlines.run(endingWhenIdle: true) { due in
                let now = clock.elapsed()
                for entry in due { entry.connection.deadlineReached(at: now) }
            }
        }
    }
}
