import Lifeline
import LifelineCore
import NIOCore
import Synchronization

/// What a ``SocketTimer`` wakes: a connection whose ``Heartbeat`` named a deadline.
protocol SocketTimerTarget: AnyObject, Sendable {
    /// The connection's deadline passed; `now` is the session clock's time.
    func deadlineReached(at now: Duration)
}

/// The one timer of every socket of a ``StoatConnectionFactory``: their deadlines in one `ExpiryQueue`, and
/// one call armed for the earliest, on the session's clock — with no task of its own.
///
/// A connection hands it the deadline its ``Heartbeat`` names (``schedule(_:at:)``); when the earliest
/// passes, the timer pops every connection due and calls ``SocketTimerTarget/deadlineReached(at:)`` on each,
/// which writes its Ping or aborts its socket, then arms the call for the next. So a connection costs a heap
/// entry, and the factory one scheduled call while any socket holds a deadline. See the LifelineStoat
/// catalog's "The socket's timers".
///
/// Decision: the call is a task scheduled on an event loop of the factory's group
/// (`EventLoop.scheduleTask(deadline:)`), its delay read from the injected clock, and the deadline checked
/// again on that clock when it runs (a call that runs early re-arms) — except on a clock that calls back
/// by itself (`CallbackClock`: the test clock), which then keeps the time, so tests drive every socket
/// deadline with the test clock's handshake. A factory is shared by the sessions whose sockets it makes and
/// has no task group of its own, so no Swift task could be the loop's structured owner; an event loop needs
/// none.
final class SocketTimer: Sendable {
    private struct Entry: Identifiable, Sendable {
        let id: ObjectIdentifier
        let connection: any SocketTimerTarget
    }

    private struct State {
        var queue = ExpiryQueue<Entry>()
        /// The deadline the armed call is for, and how to cancel it (`nil` until the arming stored it).
        var armed: (deadline: Duration, cancel: (@Sendable () -> Void)?)?
        /// The arming's round: a call fires, and an arming is kept, only for the round that armed it.
        var round: UInt64 = 0
        /// How many calls were armed: once per move of the earliest deadline.
        var callsArmed = 0
    }

    private let clock: SessionClock
    private let eventLoop: any EventLoop
    private let state = Mutex(State())

    init(clock: SessionClock, eventLoop: any EventLoop) {
        self.clock = clock
        self.eventLoop = eventLoop
    }

    /// How many connections hold a deadline.
    var count: Int { state.withLock { $0.queue.count } }

    /// How many calls the timer armed: once per move of the earliest deadline, not once per deadline.
    var callsArmed: Int { state.withLock { $0.callsArmed } }

    /// Sets when `connection` is to be woken, or forgets it (`nil`); the call is re-armed when the earliest
    /// deadline moved. Never calls a connection back before it returns (a connection schedules under its
    /// own lock).
    func schedule(_ connection: some SocketTimerTarget, at deadline: Duration?) {
        let id = ObjectIdentifier(connection)
        state.withLock { state in
            if let deadline {
                state.queue.insert(Entry(id: id, connection: connection), expiresAt: deadline)
            } else {
                _ = state.queue.remove(id)
            }
        }
        rearm()
    }

    /// Arms the call for the earliest deadline, unless it is armed for it; cancels it when none is left.
    private func rearm() {
        let (target, round, cancel): (Duration?, UInt64, (@Sendable () -> Void)?) = state.withLock { state in
            let target = state.queue.earliestDeadline
            guard target != state.armed?.deadline else { return (nil, 0, nil) }
            let cancel = state.armed?.cancel
            state.round &+= 1
            state.armed = target.map { ($0, nil) }
            if target != nil { state.callsArmed += 1 }
            return (target, state.round, cancel)
        }
        cancel?()
        guard let target else { return }
        // Armed outside the lock: a clock may call back at once, and the call takes the lock.
        let armed = arm(at: target, round: round)
        let stale = state.withLock { state -> Bool in
            guard state.round == round, state.armed?.deadline == target else { return true }
            state.armed = (target, armed)
            return false
        }
        if stale { armed() }
    }

    /// Schedules the call for round `round` at `deadline`; returns how to cancel it. A deadline already
    /// passed is called on the event loop, never from here.
    private func arm(at deadline: Duration, round: UInt64) -> @Sendable () -> Void {
        if let scheduleCallback = clock.scheduleCallback {
            if let cancel = scheduleCallback(deadline, { self.fired(round: round) }) { return cancel }
            eventLoop.execute { self.fired(round: round) }
            return {}
        }
        // The delay as the injected clock sees it, no longer than `SessionClock.longestSleep` at once.
        let step = SessionClock.step(towards: deadline, now: clock.elapsed())
        let delay = step.until - clock.elapsed()
        let (seconds, attoseconds) = max(delay, .zero).components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        let scheduled = eventLoop.scheduleTask(in: .nanoseconds(nanoseconds)) { self.fired(round: round) }
        return { scheduled.cancel() }
    }

    /// The call of round `round` ran: every connection due is woken, earliest first, and the call re-armed.
    private func fired(round: UInt64) {
        let now = clock.elapsed()
        let due: [Entry]? = state.withLock { state in
            guard state.round == round else { return nil }
            state.armed = nil
            return state.queue.popDue(at: now)
        }
        guard let due else { return }
        for entry in due { entry.connection.deadlineReached(at: now) }
        rearm()
    }
}
