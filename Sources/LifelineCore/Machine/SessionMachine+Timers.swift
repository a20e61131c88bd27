// The facet of the machine that arms timers as data and hears them fire; their ids are its tickets.

extension SessionMachine {
    /// A timer the machine armed (``SessionAction/armTimer(_:)``) fired: RETRY for DISCONNECTED's retry
    /// timer, the next check of a session being confirmed, the next health poll, TEMPORARY_FAILURE
    /// ``TemporaryFailureCode/deliveryStalled`` for a delivery deadline, TEMPORARY_FAILURE
    /// ``TemporaryFailureCode/wakeCheckFailed`` for the deadline of a check made on waking, a play's timeout or
    /// retry, the renewal of the subscriptions.
    ///
    /// A delivery deadline ends the connection as a connection's own end does: one that had been in CONNECTED
    /// less than ``stabilityWindow`` (`connectedFor`) keeps the failure history, so a server that stays deaf
    /// meets growing retry delays instead of a reconnect every deadline.
    ///
    /// - Parameters:
    ///   - id: The timer's id.
    ///   - connectedFor: How long the live connection had been in CONNECTED, on the runtime's clock; `nil` when
    ///     the runtime does not say (the specification's count).
    ///   - generator: The random source for the jitter.
    /// - Returns: What to do, or ``Output/ignored`` for a timer that was cancelled or superseded.
    public mutating func timerFired(
        _ id: UInt64, connectedFor: Duration? = nil, using generator: inout some RandomNumberGenerator
    ) -> Output {
        // Fired: its token is spent.
        timers[id] = nil
        if let replayed = replayTimerFired(id) { return replayed }
        if case .disconnected(_, _, let timer) = current, timer == id {
            return handle(.retry, using: &generator)
        }
        if let watch = deliveryWatch, watch.timer == id {
            // Fired: CONNECTED's exit has no timer left to cancel.
            deliveryWatch = nil
            if case .connected = current, let connectedFor, connectedFor < stabilityWindow { endedBeforeStable = true }
            defer { endedBeforeStable = false }
            let cause = TemporaryFailureCause(
                code: .deliveryStalled,
                message: "the socket delivered no event for a message the server stored, within \(watch.delay)")
            return handle(.temporaryFailure(cause), using: &generator)
        }
        if let check = socketCheck, check.timer == id {
            // Fired: CONNECTED's exit has no timer left to cancel.
            socketCheck = nil
            return socketCheckFailed(
                "the socket answered no Ping within \(wakeCheckTimeout) of the device waking",
                connectedFor: connectedFor,
                using: &generator)
        }
        if case .waiting(let timer)? = healthPoll, timer == id {
            lastHealthPoll &+= 1
            healthPoll = .asking(lastHealthPoll)
            return .updated(actions: [.pollHealth(poll: lastHealthPoll)])
        }
        guard let (credentials, waiting) = attempt, case .confirming = waiting, var confirmation,
            case .timer(let pending) = confirmation.pending, pending == id
        else { return .ignored }
        let check = nextTicket()
        confirmation.pending = .check(check)
        self.confirmation = confirmation
        return .updated(actions: [.checkSession(credentials, check: check)])
    }

    mutating func nextTicket() -> UInt64 {
        lastTicket &+= 1
        return lastTicket
    }
}
