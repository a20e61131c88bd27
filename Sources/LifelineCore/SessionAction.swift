/// Something the runtime must do because the lifecycle moved: the entry and exit effects of the
/// specification's node table, as data.
///
/// ``SessionMachine`` returns actions and never performs them; the runtime performs them in order and
/// feeds what happens back as ``SessionEvent``s. Every connection the actions open has a generation
/// number; an event from any other generation is stale and must not reach the machine.
public enum SessionAction: Sendable, Hashable {
    /// LOGGING_IN entry: authenticate a fresh session — check onboarding (NO_USER when needed), then connect
    /// the socket until the initial data has loaded (SOCKET_CONNECTED) — as connection `generation`.
    case authenticate(SessionCredentials, generation: UInt64)

    /// CONNECTING and RECONNECTING entry: connect the socket with the session as connection `generation`;
    /// report SOCKET_CONNECTED once the initial data has loaded.
    case connect(SessionCredentials, generation: UInt64)

    /// The attempt or connection `generation` is over (it failed, or the session left the connected
    /// states): close it without waiting for the peer, and cancel everything it started.
    case closeConnection(generation: UInt64)

    /// RECONNECTING entry: invalidate cached data (message history, members list).
    case invalidateCaches

    /// DISCONNECTED entry: arm the retry timer; when it fires, send RETRY.
    ///
    /// - Parameters:
    ///   - delay: The jittered delay from the ``RetryPolicy``.
    ///   - failures: The failure count it was computed for.
    case armRetryTimer(delay: Duration, failures: Int)

    /// DISCONNECTED exit: cancel the retry timer, so RETRY can never fire later.
    case cancelRetryTimer

    /// The failure count reached the health threshold: start polling the health service for an outage.
    case startHealthPolling

    /// The session connected or left the logged-in states: stop polling the health service.
    case stopHealthPolling

    /// ERROR entry after an invalid session: look up the account's standing to tailor the error, then
    /// call ``SessionMachine/accountStandingReceived(_:)``.
    case fetchAccountStanding(userID: String)

    /// CONNECTED entry: replay the significant events (subscriptions…) on connection `generation`.
    case replaySignificantEvents(generation: UInt64)

    /// A user's LOGOUT: end the session on the server too (best effort; the lifecycle does not wait).
    case endSession(SessionCredentials)

    /// DISPOSE entry: dispose of the client — timers, tasks, in-memory caches, the replay record — and
    /// create a new one; then send READY.
    case dispose
}
