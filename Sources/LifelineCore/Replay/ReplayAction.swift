/// What the runtime must do for the replay.
public enum ReplayAction: Sendable, Hashable {
    /// Play the event on the current connection; report ``ReplayPlan/played(_:)`` or ``ReplayPlan/failed(_:)``
    /// (a ``SessionMachine`` arms the timeout of a play whose answer is awaited: ``SessionMachine/playPending(_:)``).
    case play(ReplayPlan.Play)
    /// The play with this id is answered or abandoned: disarm its timeout (a ``SessionMachine`` turns it into
    /// ``SessionAction/cancelTimer(_:)``, as it does the retry's two actions).
    case cancelTimeout(UInt64)
    /// The play with this id failed: arm its retry timer, and report ``ReplayPlan/retryTimerFired(_:)``
    /// when it fires.
    case armRetry(UInt64, after: Duration)
    /// The play with this id no longer waits for its retry: disarm the timer.
    case cancelRetry(UInt64)
    /// The event failed past the retry limit: show it to the user.
    case surface(SignificantEvent, attempts: Int)
    /// The server does not take events of this kind (it refused one and ended the connection): they are not
    /// played again in this session. `events` are the recorded events of the kind: tell the user once.
    case unsupported(SignificantEvent.Kind, events: [SignificantEvent])
}
