/// Something the runtime must do because the lifecycle moved: the entry and exit effects of the
/// specification's node table, and the timers, checks and lookups of Lifeline's decisions — as data.
///
/// ``SessionMachine`` returns actions and never performs them; the runtime performs them in order and
/// feeds what happens back in. Every connection the actions open has a generation number, every timer,
/// check and lookup an id; the machine ignores a report about any other generation or id.
///
/// `TimerToken` and `ConnectionToken` are the runtime's handles the machine holds
/// (``SessionMachine/timerArmed(_:token:)``, ``SessionMachine/connectionMade(_:generation:)``) and gives back to
/// cancel a timer or close a connection.
public enum SessionAction<TimerToken: Hashable & Sendable, ConnectionToken: Hashable & Sendable>: Sendable, Hashable {
    /// LOGGING_IN entry: authenticate a fresh session — check onboarding (NO_USER when needed), then connect
    /// the socket until the initial data has loaded (SOCKET_CONNECTED) — as connection `generation`.
    case authenticate(SessionCredentials, generation: UInt64)

    /// CONNECTING and RECONNECTING entry: connect the socket with the session as connection `generation`;
    /// report SOCKET_CONNECTED once the initial data has loaded.
    case connect(SessionCredentials, generation: UInt64)

    /// The live attempt or connection is over (it failed, or the session left the connected states): close
    /// the connection with this token (``SessionMachine/connectionMade(_:generation:)``) without waiting for the
    /// peer, and cancel everything it started. A connection that reported its own end is not closed.
    case closeConnection(ConnectionToken)

    /// RECONNECTING entry: invalidate cached data (message history, members list).
    case invalidateCaches

    /// Arm a timer on the runtime's clock, hand its token to ``SessionMachine/timerArmed(_:token:)``, and report
    /// ``SessionMachine/timerFired(_:connectedFor:using:)`` when it fires. DISCONNECTED's retry timer is one (its
    /// purpose says so).
    case armTimer(SessionTimer)

    /// Cancel the timer with this token (DISCONNECTED's exit cancels the retry timer). A firing that races the
    /// cancellation is ignored by the machine.
    case cancelTimer(TimerToken)

    /// The server called the session invalid: check it over the API and report
    /// ``SessionMachine/sessionChecked(_:check:using:)`` with this check's id.
    case checkSession(SessionCredentials, check: UInt64)

    /// The failure count reached the health threshold: start polling the health service for an outage. The
    /// first poll follows as ``pollHealth(poll:)``; the waits between polls are timers the machine arms
    /// (``SessionTimer/Purpose/healthPoll``).
    case startHealthPolling

    /// Ask the health service once, then report ``SessionMachine/healthAnswered(poll:alert:pollInterval:)``
    /// (or ``SessionMachine/healthPollFailed(poll:)``) with this poll's id.
    case pollHealth(poll: UInt64)

    /// The session connected or left the logged-in states: stop polling the health service. The machine has
    /// cancelled the timer of the next poll; a poll still in flight is ignored when it answers.
    case stopHealthPolling

    /// Look up the account's standing to tailor ERROR's message or READY's notice, then report
    /// ``SessionMachine/accountStandingReceived(_:lookup:)`` with this lookup's id.
    case fetchAccountStanding(userID: String, lookup: UInt64)

    /// CONNECTED entry on connection `generation`: the replay of significant events (subscriptions…) starts
    /// with the ``replay(_:)`` actions that follow it.
    case replaySignificantEvents(generation: UInt64)

    /// What the machine's replay plan (``SessionMachine/replay``) asks: a play, a play's timeout or retry
    /// timer armed or disarmed, a failure to show. One action type for the machine and its sub-machine.
    case replay(ReplayAction)

    /// The device woke while CONNECTED (``SessionEvent/deviceWoke``): check at once that connection `generation`
    /// still carries frames — send what the peer must answer (Stoat: a `Ping`) — and report
    /// ``SessionMachine/socketChecked(check:answered:connectedFor:using:)`` with this check's id. The machine
    /// arms the check's deadline itself (``SessionTimer/Purpose/socketCheck``).
    case checkSocket(generation: UInt64, check: UInt64)

    /// A user's LOGOUT: end the session on the server too (best effort; the lifecycle does not wait).
    case endSession(SessionCredentials)

    /// DISPOSE entry: dispose of the client — timers, tasks, in-memory caches, the replay record — and
    /// create a new one; then send READY.
    case dispose
}
