// The facet of the machine that arms timers as data and hears them fire; their ids are its tickets.

extension SessionCore {
    /// ``SessionMachine`` documents `timerFired`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func timerFired(
        _ id: UInt64, connectedFor: Duration? = nil, using generator: inout some RandomNumberGenerator
    ) -> Output {
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

    // MARK: - Arming and cancelling

    /// Arms `timer`; ``SessionMachine`` waits for its token (``SessionMachine/timerArmed(_:token:)``).
    func arm(_ timer: SessionTimer) -> Action { .armTimer(timer) }

    /// Cancels the timer `id`: ``SessionMachine`` gives the runtime back its token, when it handed one over.
    func disarm(_ id: UInt64, into actions: inout [Action]) { actions.append(.cancelTimer(id)) }

    /// ``disarm(_:into:)`` as a list of actions.
    func disarmed(_ id: UInt64) -> [Action] { [.cancelTimer(id)] }
}
