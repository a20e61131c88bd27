// The facet of the machine that hears what the runtime reports about its connections.

extension SessionCore {
    // MARK: - What the runtime reports about connections

    /// ``SessionMachine`` documents `connectionStarted`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func connectionStarted(generation: UInt64, at now: Duration) -> Output {
        guard liveGeneration == generation else { return .ignored }
        if case .loggingIn = current {
            connectingSince = now
        } else if connectingSince == nil {
            connectingSince = now
        }
        return .updated(actions: [])
    }

    /// ``SessionMachine`` documents `connectionReady`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func connectionReady(
        generation: UInt64, at now: Duration? = nil, using generator: inout some RandomNumberGenerator
    ) -> Output {
        guard liveGeneration == generation else { return .ignored }
        let output = handle(.socketConnected, using: &generator)
        if case .connected = current, !output.transitions.isEmpty { connectedAt = now }
        return output
    }

    /// ``SessionMachine`` documents `connectedFor`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    func connectedFor(at now: Duration) -> Duration? {
        guard case .connected = current, let connectedAt else { return nil }
        return now - connectedAt
    }

    /// ``SessionMachine`` documents `connectionReturned`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func connectionReturned(
        generation: UInt64, connectedFor: Duration? = nil, using generator: inout some RandomNumberGenerator
    ) -> Output {
        guard liveGeneration == generation else { return .ignored }
        let cause = TemporaryFailureCause(code: .socketDropped, message: "the connection ended without a reason")
        return connectionEnded(.temporary(cause), generation: generation, connectedFor: connectedFor, using: &generator)
    }

    /// ``SessionMachine`` documents `onboardingNeeded`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func onboardingNeeded(
        generation: UInt64, using generator: inout some RandomNumberGenerator
    ) -> Output {
        guard liveGeneration == generation else { return .ignored }
        return handle(.noUser, using: &generator)
    }

    /// ``SessionMachine`` documents `connectionEnded`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func connectionEnded(
        _ end: SessionFailure, generation: UInt64, connectedFor: Duration? = nil,
        using generator: inout some RandomNumberGenerator
    ) -> Output {
        guard liveGeneration == generation else { return .ignored }
        if case .connected = current, let connectedFor, connectedFor < stabilityWindow { endedBeforeStable = true }
        defer { endedBeforeStable = false }
        switch (end, current) {
        case (.temporary(let cause), _):
            return handle(.temporaryFailure(cause), using: &generator)
        case (.permanent(let reason), .connected):
            let cause = TemporaryFailureCause(
                code: .socketDropped, message: "the server ended the connection (\(reason))", cause: reason)
            return handle(.temporaryFailure(cause), using: &generator)
        case (.permanent(let reason), _) where reason.code == .invalidSession && sessionCheckPolicy.checks > 0:
            return startConfirming(reason)
        case (.permanent(let reason), _):
            return handle(.permanentFailure(reason), using: &generator)
        case (.loggedOut, .loggingIn):
            let reason = PermanentFailureReason(code: .loggedOut, message: "the server ended the session")
            return handle(.permanentFailure(reason), using: &generator)
        case (.loggedOut, _):
            return handle(.logout(external: true), using: &generator)
        }
    }

    /// Closes the live connection: ``SessionMachine`` gives the runtime back its token — unless the connection
    /// reported its own end (``connectionEnded(_:generation:connectedFor:using:)``), whose token it forgot.
    func closeConnection(into actions: inout [Action]) {
        if let generation = liveGeneration { actions.append(.closeConnection(generation)) }
    }
}
