// The facet of the machine that hears the device wake from a suspend (`SessionEvent.deviceWoke`).

extension SessionCore {
    // MARK: - Waking from a suspend

    /// DEVICE_WOKE outside its table edge: CONNECTED checks its socket, every state but DISCONNECTED ignores
    /// it. `nil` for DISCONNECTED, whose edge (→ RECONNECTING, the pending retry taken now) the table holds.
    ///
    /// One check at a time: a wake while a check is pending changes nothing (its deadline is already near).
    mutating func deviceWoke() -> Output? {
        switch current {
        case .disconnected:
            return nil
        case .connected(_, let generation):
            guard socketCheck == nil else { return .ignored }
            let check = nextTicket()
            let timer = SessionTimer(id: nextTicket(), purpose: .socketCheck, delay: wakeCheckTimeout)
            socketCheck = SocketCheck(check: check, timer: timer.id)
            return .updated(actions: [.checkSocket(generation: generation, check: check), arm(timer)])
        case .ready, .loggingIn, .onboarding, .error, .dispose, .connecting, .reconnecting, .offline:
            return .ignored
        }
    }

    /// ``SessionMachine`` documents `isCheckingSocket`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    var isCheckingSocket: Bool { socketCheck != nil }

    /// ``SessionMachine`` documents `socketChecked`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func socketChecked(
        check: UInt64, answered: Bool, connectedFor: Duration? = nil, using generator: inout some RandomNumberGenerator
    ) -> Output {
        guard let pending = socketCheck, pending.check == check else { return .ignored }
        guard !answered else {
            socketCheck = nil
            return .updated(actions: disarmed(pending.timer))
        }
        return socketCheckFailed(
            "the socket could not be checked after the device woke", connectedFor: connectedFor, using: &generator)
    }

    /// CONNECTED leaves a socket its check on waking found dead.
    mutating func socketCheckFailed(
        _ message: String, connectedFor: Duration?, using generator: inout some RandomNumberGenerator
    ) -> Output {
        if case .connected = current, let connectedFor, connectedFor < stabilityWindow { endedBeforeStable = true }
        defer { endedBeforeStable = false }
        let cause = TemporaryFailureCause(code: .wakeCheckFailed, message: message)
        return handle(.temporaryFailure(cause), using: &generator)
    }
}
