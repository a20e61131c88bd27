// The facet of the machine that holds the runtime's handles: the tokens of its armed timers and of its live
// connection, handed over when the runtime armed or made them and handed back in the action that ends them.
// The core (`SessionCore`) names a timer by its id and a connection by its generation; this facet, inlined
// into its caller and so specialized to the runtime's tokens, puts the tokens in.

extension SessionMachine {
    // MARK: - Tokens the runtime hands over

    /// The runtime armed `id` (``SessionAction/armTimer(_:)``) and hands over the token that cancels it; the
    /// machine gives it back in ``SessionAction/cancelTimer(_:)`` when it no longer waits for the timer.
    ///
    /// - Returns: `nil` when the machine keeps the token, or the token itself when the machine no longer waits
    ///   for the timer (cancelled, fired or forgotten before its token came): cancel it at once.
    @inlinable
    public mutating func timerArmed(_ id: UInt64, token: TimerToken) -> TimerToken? {
        guard let index = timers.firstIndex(where: { $0.id == id }), timers[index].token == nil else { return token }
        timers[index].token = token
        return nil
    }

    /// The runtime made the connection (or authentication attempt) `generation` the machine asked for
    /// (``SessionAction/connect(_:generation:)``, ``SessionAction/authenticate(_:generation:)``) and hands over
    /// the token that closes it; the machine gives it back in ``SessionAction/closeConnection(_:)`` when it is
    /// done with the connection, and forgets it when the connection reports its own end.
    ///
    /// - Returns: `nil` when the machine keeps the token, or the token itself when `generation` is not the
    ///   live attempt (superseded before its token came): close it at once.
    @inlinable
    public mutating func connectionMade(_ token: ConnectionToken, generation: UInt64) -> ConnectionToken? {
        guard core.liveGeneration == generation, connection == nil else { return token }
        connection = (generation, token)
        return nil
    }

    /// The token of the live connection (``connectionMade(_:generation:)``): what the runtime plays the
    /// significant events and checks the socket through. `nil` when no connection is live or its token has not
    /// come.
    @inlinable
    public var liveConnection: ConnectionToken? { connection?.token }

    /// The tokens of the armed timers the runtime handed over, by timer id.
    @inlinable
    public var timerTokens: [UInt64: TimerToken] {
        Dictionary(timers.compactMap { slot in slot.token.map { (slot.id, $0) } }, uniquingKeysWith: { $1 })
    }

    /// An armed timer in ``timers``: its id, and its token once the runtime handed it over.
    @usableFromInline
    struct TimerSlot: Sendable {
        @usableFromInline var id: UInt64
        /// `nil` while the runtime has not handed the token over (``SessionAction/armTimer(_:)`` asked for it).
        @usableFromInline var token: TimerToken?

        @inlinable
        init(id: UInt64, token: TimerToken?) {
            self.id = id
            self.token = token
        }
    }

    /// Forgets the timer `id`, and returns what was kept of it.
    @inlinable
    mutating func removeTimer(_ id: UInt64) -> TimerSlot? {
        guard let index = timers.firstIndex(where: { $0.id == id }) else { return nil }
        timers.swapAt(index, timers.count - 1)
        return timers.removeLast()
    }

    // MARK: - The core's actions, with the tokens put in

    /// The live connection `generation` reported its own end: its token is forgotten, so nothing asks the
    /// runtime to close it (it returns by itself).
    @inlinable
    mutating func forgetEndedConnection(_ generation: UInt64) {
        if core.liveGeneration == generation { connection = nil }
    }

    /// The core's output with the runtime's tokens in its actions.
    @inlinable
    mutating func translated(_ output: SessionCore.Output) -> Output {
        switch output {
        case .transitioned(let transitions, let actions): .transitioned(transitions, actions: translated(actions))
        case .updated(let actions): .updated(actions: translated(actions))
        case .rejected(let kind, let state): .rejected(kind, in: state)
        case .ignored: .ignored
        }
    }

    /// ``translate(_:into:)`` over a list of actions.
    @inlinable
    mutating func translated(_ coreActions: [SessionCore.Action]) -> [Action] {
        var actions: [Action] = []
        actions.reserveCapacity(coreActions.count)
        for action in coreActions { translate(action, into: &actions) }
        return actions
    }

    /// Appends the core's `action` with the runtime's tokens: an armed timer waits for its token
    /// (``timerArmed(_:token:)``); a cancelled one gives its token back, or nothing when none came (one that
    /// comes later is given back at once); a closed connection gives its token back, or nothing when it
    /// reported its own end; DISPOSE forgets every token (the runtime disposes of every timer and task of the
    /// client).
    @inlinable
    mutating func translate(_ action: SessionCore.Action, into actions: inout [Action]) {
        switch action {
        case .authenticate(let credentials, let generation):
            actions.append(.authenticate(credentials, generation: generation))
        case .connect(let credentials, let generation):
            actions.append(.connect(credentials, generation: generation))
        case .closeConnection:
            if let connection = connection.take() { actions.append(.closeConnection(connection.token)) }
        case .invalidateCaches:
            actions.append(.invalidateCaches)
        case .armTimer(let timer):
            _ = removeTimer(timer.id)
            timers.append(TimerSlot(id: timer.id, token: nil))
            actions.append(.armTimer(timer))
        case .cancelTimer(let id):
            if let token = removeTimer(id)?.token { actions.append(.cancelTimer(token)) }
        case .checkSession(let credentials, let check):
            actions.append(.checkSession(credentials, check: check))
        case .startHealthPolling:
            actions.append(.startHealthPolling)
        case .pollHealth(let poll):
            actions.append(.pollHealth(poll: poll))
        case .stopHealthPolling:
            actions.append(.stopHealthPolling)
        case .fetchAccountStanding(let userID, let lookup):
            actions.append(.fetchAccountStanding(userID: userID, lookup: lookup))
        case .replaySignificantEvents(let generation):
            actions.append(.replaySignificantEvents(generation: generation))
        case .replay(let replayAction):
            actions.append(.replay(replayAction))
        case .checkSocket(let generation, let check):
            actions.append(.checkSocket(generation: generation, check: check))
        case .endSession(let credentials):
            actions.append(.endSession(credentials))
        case .dispose:
            timers.removeAll(keepingCapacity: true)
            connection = nil
            actions.append(.dispose)
        }
    }
}
