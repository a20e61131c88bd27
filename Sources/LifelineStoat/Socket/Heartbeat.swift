import LifelineCore

/// The timers of one events socket as a pure machine: the connect timeout, the Ready deadline, the Ping
/// schedule and the Pong deadline.
///
/// Each method takes `now` — a time on the session's clock — and returns what to do: nothing, wake the
/// connection at its next deadline, send a Ping with its data, or fail with a cause. It reads no clock,
/// holds no lock and starts no task; the connection keeps it under its own lock and hands its deadline to
/// the factory's ``SocketTimer``, which calls ``deadlineReached(at:)`` when it passes.
///
/// ```swift
/// var heartbeat = Heartbeat(startedAt: now, timing: timing)   // the connect timeout runs
/// heartbeat.socketOpened(at: now)        // .wake(at: connect deadline) unchanged → .none
/// heartbeat.messageReceived(at: now)     // .wake(at: now + 30 s): the first Ping
/// heartbeat.deadlineReached(at: later)   // .sendPing(30_000, thenWakeAt: later + 10 s)
/// ```
struct Heartbeat: Sendable, Hashable {
    /// The intervals the machine keeps.
    struct Timing: Sendable, Hashable {
        /// Between Pings, from the socket's opening. The specification's 30 s.
        var heartbeatInterval: Duration
        /// From a Ping to its Pong. The specification's 10 s. When it is longer than the interval, it counts
        /// from the first unanswered Ping, and no other Ping is sent meanwhile.
        var pongTimeout: Duration
        /// From the start of the connection to its first message. The specification's 10 s.
        var connectTimeout: Duration
        /// From `Authenticated` to `Ready` (extension).
        var readyTimeout: Duration
    }

    /// What the connection must do.
    enum Action: Sendable, Hashable {
        /// Nothing: the next deadline did not change.
        case none
        /// Wake the connection at this time on the session's clock (`nil`: no deadline is left).
        case wake(at: Duration?)
        /// Send `{"type":"Ping","data":data}` now, then wake at the given time.
        case sendPing(Int64, thenWakeAt: Duration?)
        /// A deadline passed: abort the socket and report this TEMPORARY_FAILURE.
        case fail(TemporaryFailureCause)
    }

    let timing: Timing
    private var connectDeadline: Duration?
    private var readyDeadline: Duration?
    private var nextPing: Duration?
    private var pongDeadline: Duration?
    private var pendingPing: Int64?
    /// The deadline the timer was last told to wake the connection at.
    private(set) var scheduled: Duration?
    /// Whether `Ready` arrived.
    private(set) var isReady = false
    /// Whether a deadline passed: the machine then answers nothing more.
    private(set) var hasFailed = false

    /// Starts the machine when the connection starts: the connect timeout runs; wake at ``scheduled``.
    init(startedAt now: Duration, timing: Timing) {
        self.timing = timing
        connectDeadline = now + timing.connectTimeout
        scheduled = connectDeadline
    }

    /// The earliest deadline.
    var deadline: Duration? {
        var earliest: Duration?
        for candidate in [connectDeadline, readyDeadline, nextPing, pongDeadline] {
            if let candidate, earliest.map({ candidate < $0 }) ?? true { earliest = candidate }
        }
        return earliest
    }

    /// The socket opened: the first Ping is due one interval later.
    mutating func socketOpened(at now: Duration) -> Action {
        nextPing = now + timing.heartbeatInterval
        return rescheduled()
    }

    /// A message arrived: the connect timeout is met.
    mutating func messageReceived(at now: Duration) -> Action {
        guard connectDeadline != nil else { return .none }
        connectDeadline = nil
        return rescheduled()
    }

    /// `Authenticated` arrived: `Ready` is due within the Ready timeout.
    mutating func authenticated(at now: Duration) -> Action {
        guard !isReady else { return .none }
        readyDeadline = now + timing.readyTimeout
        return rescheduled()
    }

    /// `Ready` arrived. `isFirst` is `false` for a second `Ready`, which changes nothing.
    mutating func readyReceived(at now: Duration) -> (isFirst: Bool, action: Action) {
        guard !isReady else { return (false, .none) }
        isReady = true
        readyDeadline = nil
        return (true, rescheduled())
    }

    /// A `Pong` arrived; only the one matching the outstanding Ping's data counts.
    mutating func pongReceived(_ data: Int64?, at now: Duration) -> Action {
        guard let data, data == pendingPing else { return .none }
        pendingPing = nil
        pongDeadline = nil
        return rescheduled()
    }

    /// The timer woke the connection at its deadline (or later): which deadline passed, or which Ping to
    /// send. The timer no longer holds a deadline for the connection, so the answer always names the next.
    mutating func deadlineReached(at now: Duration) -> Action {
        guard !hasFailed else { return .none }
        scheduled = nil
        if let deadline = connectDeadline, deadline <= now {
            return fail(.connectTimeout, "no message within \(timing.connectTimeout)")
        }
        if let deadline = readyDeadline, deadline <= now {
            return fail(.readyTimeout, "no Ready within \(timing.readyTimeout)")
        }
        if let deadline = pongDeadline, deadline <= now {
            return fail(.heartbeatTimeout, "no Pong within \(timing.pongTimeout)")
        }
        guard let due = nextPing, due <= now else { return rescheduled() }
        if pendingPing != nil {
            // A Pong timeout longer than the interval: the unanswered Ping's deadline stands (re-arming it at
            // every Ping would never let it pass), and no other Ping is sent until it is answered or failed.
            nextPing = now + timing.heartbeatInterval
            return rescheduled()
        }
        // The Ping's data is the session clock in milliseconds: an integer the server echoes.
        let data = Int64(now / .milliseconds(1))
        pendingPing = data
        pongDeadline = now + timing.pongTimeout
        nextPing = now + timing.heartbeatInterval
        scheduled = deadline
        return .sendPing(data, thenWakeAt: scheduled)
    }

    private mutating func fail(_ code: TemporaryFailureCause.Code, _ message: String) -> Action {
        hasFailed = true
        connectDeadline = nil
        readyDeadline = nil
        nextPing = nil
        pongDeadline = nil
        return .fail(TemporaryFailureCause(code: code, message: message))
    }

    /// `.wake(at:)` when the earliest deadline differs from the one the timer holds, else `.none`.
    private mutating func rescheduled() -> Action {
        guard !hasFailed else { return .none }
        let earliest = deadline
        guard earliest != scheduled else { return .none }
        scheduled = earliest
        return .wake(at: earliest)
    }
}
