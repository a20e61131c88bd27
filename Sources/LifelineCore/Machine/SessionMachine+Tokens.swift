// The facet of the machine that holds the runtime's handles: the tokens of its armed timers and of its live
// connection, handed over when the runtime armed or made them and handed back in the action that ends them.

extension SessionMachine {
    // MARK: - Tokens the runtime hands over

    /// The runtime armed `id` (``SessionAction/armTimer(_:)``) and hands over the token that cancels it; the
    /// machine gives it back in ``SessionAction/cancelTimer(_:)`` when it no longer waits for the timer.
    ///
    /// - Returns: `nil` when the machine keeps the token, or the token itself when the machine no longer waits
    ///   for the timer (cancelled, fired or forgotten before its token came): cancel it at once.
    public mutating func timerArmed(_ id: UInt64, token: TimerToken) -> TimerToken? {
        guard case .awaitingToken? = timers[id] else { return token }
        timers[id] = .armed(token)
        return nil
    }

    /// The runtime made the connection (or authentication attempt) `generation` the machine asked for
    /// (``SessionAction/connect(_:generation:)``, ``SessionAction/authenticate(_:generation:)``) and hands over
    /// the token that closes it; the machine gives it back in ``SessionAction/closeConnection(_:)`` when it is
    /// done with the connection, and forgets it when the connection reports its own end.
    ///
    /// - Returns: `nil` when the machine keeps the token, or the token itself when `generation` is not the
    ///   live attempt (superseded before its token came): close it at once.
    public mutating func connectionMade(_ token: ConnectionToken, generation: UInt64) -> ConnectionToken? {
        guard liveGeneration == generation, connection == nil else { return token }
        connection = (generation, token)
        return nil
    }

    /// The token of the live connection (``connectionMade(_:generation:)``): what the runtime plays the
    /// significant events and checks the socket through. `nil` when no connection is live or its token has not
    /// come.
    public var liveConnection: ConnectionToken? { connection?.token }

    /// The tokens of the armed timers the runtime handed over, by timer id.
    public var timerTokens: [UInt64: TimerToken] {
        timers.compactMapValues { slot in
            if case .armed(let token) = slot { return token }
            return nil
        }
    }

    // MARK: - Arming and cancelling

    /// Arms `timer`: it waits for its token (``timerArmed(_:token:)``).
    mutating func arm(_ timer: SessionTimer) -> Action {
        timers[timer.id] = .awaitingToken
        return .armTimer(timer)
    }

    /// Cancels the timer `id`: the runtime is given back its token, when it handed one over (one that comes
    /// later is given back at once by ``timerArmed(_:token:)``).
    mutating func disarm(_ id: UInt64, into actions: inout [Action]) {
        if case .armed(let token)? = timers.removeValue(forKey: id) { actions.append(.cancelTimer(token)) }
    }

    /// ``disarm(_:into:)`` as a list of actions.
    mutating func disarmed(_ id: UInt64) -> [Action] {
        var actions: [Action] = []
        disarm(id, into: &actions)
        return actions
    }

    /// Closes the live connection: the runtime is given back its token. One that reported its own end
    /// (``connectionEnded(_:generation:connectedFor:using:)``) has no token left, and is not closed.
    mutating func closeConnection(into actions: inout [Action]) {
        if let connection = connection.take() { actions.append(.closeConnection(connection.token)) }
    }
}
