// The facet of the machine that hears the device wake from a suspend (`SessionEvent.deviceWoke`).

extension SessionMachine {
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

    /// Whether CONNECTED is checking its socket after the device woke (a check pending, its deadline armed).
    public var isCheckingSocket: Bool { socketCheck != nil }

    /// The check of the socket the machine asked for on waking (``SessionAction/checkSocket(generation:check:)``)
    /// finished: `answered` — the peer answered (a `Pong`) — cancels its deadline; otherwise the socket could
    /// not be checked (it is not open, the frame could not be written) and CONNECTED leaves it at once, as the
    /// deadline would: TEMPORARY_FAILURE ``TemporaryFailureCode/wakeCheckFailed``.
    ///
    /// - Parameters:
    ///   - check: The check's id.
    ///   - answered: Whether the peer answered.
    ///   - connectedFor: How long the live connection had been in CONNECTED, on the runtime's clock (the
    ///     stability window applies, as for a delivery deadline).
    ///   - generator: The random source for the retry jitter.
    /// - Returns: What to do, or ``Output/ignored`` for a check that is not pending (superseded, or its
    ///   deadline passed first).
    public mutating func socketChecked(
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
