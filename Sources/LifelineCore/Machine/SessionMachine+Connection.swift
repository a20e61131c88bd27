// The facet of the machine that hears what the runtime reports about its connections.

extension SessionMachine {
    // MARK: - What the runtime reports about connections

    /// The runtime started the connection (or authentication) `generation` the machine asked for, at `now` on
    /// its clock: the machine records when the run of attempts began (``connectingSince``). LOGGING_IN's
    /// attempt starts a new run; any other keeps the run's start, so the time to CONNECTED
    /// (``timeToConnected``) counts the failed attempts and the retries' waits before it.
    ///
    /// - Returns: ``Output/updated(actions:)`` with no action, or ``Output/ignored`` for a generation that is
    ///   not the live one.
    @discardableResult
    public mutating func connectionStarted(generation: UInt64, at now: Duration) -> Output {
        guard liveGeneration == generation else { return .ignored }
        if case .loggingIn = current {
            connectingSince = now
        } else if connectingSince == nil {
            connectingSince = now
        }
        return .updated(actions: [])
    }

    /// The connection `generation` has loaded its initial data: SOCKET_CONNECTED, if it is the live one. Given
    /// `now` on the runtime's clock, the machine records when CONNECTED began (``connectedAt``), which the
    /// runtime's later reports measure the connection's age from (``connectedFor(at:)``).
    ///
    /// - Returns: The transition, or ``Output/ignored`` for a superseded generation.
    public mutating func connectionReady(
        generation: UInt64, at now: Duration? = nil, using generator: inout some RandomNumberGenerator
    ) -> Output {
        guard liveGeneration == generation else { return .ignored }
        let output = handle(.socketConnected, using: &generator)
        if case .connected = current, !output.transitions.isEmpty { connectedAt = now }
        return output
    }

    /// How long the live connection has been in CONNECTED at `now`, when the runtime said when it got there
    /// (``connectedAt``); `nil` outside CONNECTED.
    public func connectedFor(at now: Duration) -> Duration? {
        guard case .connected = current, let connectedAt else { return nil }
        return now - connectedAt
    }

    /// The connection `generation`'s run returned. A superseded connection returning is its normal end (it was
    /// closed, or it reported its end first): ``Output/ignored``, and not a stale report. The live one returning
    /// has ended without saying why: a TEMPORARY_FAILURE ``TemporaryFailureCode/socketDropped``, as
    /// ``connectionEnded(_:generation:connectedFor:using:)`` takes it.
    ///
    /// - Parameters:
    ///   - generation: The connection's generation.
    ///   - connectedFor: How long the connection had been in CONNECTED, on the runtime's clock.
    ///   - generator: The random source for the retry jitter.
    /// - Returns: What to do, or ``Output/ignored`` for a connection that is not the live one.
    public mutating func connectionReturned(
        generation: UInt64, connectedFor: Duration? = nil, using generator: inout some RandomNumberGenerator
    ) -> Output {
        guard liveGeneration == generation else { return .ignored }
        let cause = TemporaryFailureCause(code: .socketDropped, message: "the connection ended without a reason")
        return connectionEnded(.temporary(cause), generation: generation, connectedFor: connectedFor, using: &generator)
    }

    /// The onboarding check of attempt `generation` found that the account has no user yet: NO_USER.
    ///
    /// - Returns: The transition, or ``Output/ignored`` for a superseded generation.
    public mutating func onboardingNeeded(
        generation: UInt64, using generator: inout some RandomNumberGenerator
    ) -> Output {
        guard liveGeneration == generation else { return .ignored }
        return handle(.noUser, using: &generator)
    }

    /// The connection `generation` ended: decides what the ending means in the current state, so that
    /// every end of a live connection takes an edge of the table (or starts a confirmation).
    ///
    /// - A temporary end is TEMPORARY_FAILURE.
    /// - `InvalidSession` while connecting (LOGGING_IN, CONNECTING, RECONNECTING) is confirmed first: the
    ///   connection has ended and the session is checked (``SessionAction/checkSession(_:check:)``), the
    ///   state unchanged, until ``sessionChecked(_:check:using:)`` decides. With
    ///   ``SessionCheckPolicy/none`` it is PERMANENT_FAILURE at once, like any other permanent end there.
    /// - CONNECTED has no PERMANENT_FAILURE edge: a permanent end there is the socket dropping
    ///   (TEMPORARY_FAILURE); the reconnect meets the invalid session from RECONNECTING, which has the edge.
    /// - The server's logout is an external LOGOUT; in LOGGING_IN, which has no LOGOUT edge, it is
    ///   PERMANENT_FAILURE with ``PermanentFailureCode/loggedOut``.
    ///
    /// A connection that ends in CONNECTED less than ``stabilityWindow`` after it got there (`connectedFor`)
    /// does not wipe the failure history: DISCONNECTED counts from ``failuresBeforeConnected``, so a server
    /// that accepts every connection and drops it at once meets the growing retry delays of one that refuses
    /// it, instead of a reconnect every retry unit. An unknown age (`nil`, the event API) keeps the
    /// specification's count.
    ///
    /// - Parameters:
    ///   - end: Why the connection ended.
    ///   - generation: The connection's generation.
    ///   - connectedFor: How long the connection had been in CONNECTED, on the runtime's clock; `nil` when
    ///     it never got there or the runtime does not say.
    ///   - generator: The random source for the retry jitter.
    /// - Returns: What to do, or ``Output/ignored`` for a superseded generation.
    public mutating func connectionEnded(
        _ end: SessionFailure, generation: UInt64, connectedFor: Duration? = nil,
        using generator: inout some RandomNumberGenerator
    ) -> Output {
        guard liveGeneration == generation else { return .ignored }
        if case .connected = current, let connectedFor, connectedFor < stabilityWindow { endedBeforeStable = true }
        // The connection has ended: its token is forgotten, so nothing asks the runtime to close it (it returns
        // by itself).
        connection = nil
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
}
