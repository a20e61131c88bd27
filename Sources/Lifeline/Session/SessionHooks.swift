public import LifelineCore

/// What a session tells the work that follows its lifecycle — the app's caches, a catch-up, a watch of
/// deadlines — from the actions and transitions its machine returns, in order, none dropped: unlike the
/// snapshots (``Session/states``), which coalesce for the interface, a hook is called once per moment.
///
/// The runtime calls the synchronous hooks on its own executor, in the turn that takes the transition: an
/// implementation hands the moment on (to a stream, say) and returns at once.
public protocol SessionHooks: Sendable {
    /// Drops the cached data that may be stale, because events may have been missed while disconnected.
    /// Called once per entry into RECONNECTING, before the connection is opened.
    func invalidateCaches() async

    /// Discards every cached datum when the client is disposed of (DISPOSE), before READY.
    /// By default, ``invalidateCaches()``.
    func discardCaches() async

    /// The session entered CONNECTED on connection `generation`. By default, nothing.
    func connected(generation: UInt64)

    /// The session left CONNECTED (for whatever state). By default, nothing.
    func leftConnected()

    /// The session entered `state`: each transition's target, in order (a chain, such as DISCONNECTED then
    /// OFFLINE, is two calls), after ``leftConnected()`` and before ``connected(generation:)``. By default,
    /// nothing.
    func entered(_ state: SessionState)

    /// The session was ended for good, by the user or the server: a LOGOUT, or ERROR on a
    /// PERMANENT_FAILURE. By default, nothing.
    func sessionEnded()
}

extension SessionHooks {
    /// Calls ``invalidateCaches()``.
    public func discardCaches() async { await invalidateCaches() }

    /// Does nothing.
    public func connected(generation: UInt64) {}

    /// Does nothing.
    public func leftConnected() {}

    /// Does nothing.
    public func entered(_ state: SessionState) {}

    /// Does nothing.
    public func sessionEnded() {}
}

extension SessionHooks {
    /// Tells the hooks of the transitions one event took, in order: CONNECTED left, each state entered, the
    /// session ended (a LOGOUT, or ERROR on a PERMANENT_FAILURE).
    func transitioned(_ transitions: [SessionTransition]) {
        guard let first = transitions.first else { return }
        if first.from == .connected { leftConnected() }
        for transition in transitions { entered(transition.to) }
        if transitions.contains(where: { $0.event == .logout || ($0.event == .permanentFailure && $0.to == .error) }) {
            sessionEnded()
        }
    }
}
