// The facet of the machine that takes the table's edges: `handle(_:using:)`, and the entry and exit effects
// of every state.

extension SessionCore {
    // MARK: - Events

    /// ``SessionMachine`` documents `handle`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func handle(_ event: SessionEvent, using generator: inout some RandomNumberGenerator) -> Output {
        // DEVICE_WOKE is never rejected: outside DISCONNECTED (the table's edge) it checks the socket or is ignored.
        if case .deviceWoke = event, let output = deviceWoke() { return output }
        var actions: [Action] = []
        guard let steps = handle(event, using: &generator, appendingTo: &actions) else {
            return .rejected(event.kind, in: state)
        }
        var transitions = steps.transitions
        transitions[0].cause = event.failure
        switch event {
        case .temporaryFailure(let cause): lastError = .failure(.temporary(cause))
        case .permanentFailure(let reason): lastError = .failure(.permanent(reason))
        case .logout(external: true): lastError = .failure(.loggedOut)
        default: break
        }
        return .transitioned(transitions, actions: actions)
    }

    /// ``SessionMachine`` documents `handle`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func handle(
        _ event: SessionEvent,
        using generator: inout some RandomNumberGenerator,
        appendingTo actions: inout [Action]
    ) -> SessionSteps? {
        switch event {
        case .deviceOffline: isDeviceOnline = false
        case .deviceOnline: isDeviceOnline = true
        case .socketConnected, .noUser:
            guard liveGeneration != nil else {
                rejectedEvents += 1
                return nil
            }
        default: break
        }
        let from = state
        guard let to = SessionTransitionTable.target(from: from, on: event.kind) else {
            rejectedEvents += 1
            return nil
        }
        exit(to: to, on: event, into: &actions)
        enter(to, on: event, from: from, into: &actions)
        switch event {
        case .socketConnected, .loginCached, .loginUncached: lastError = nil
        default: break
        }
        // The cause is left to the caller, who has the event (`event.failure`): copying it here would cost
        // more than the rest of the transition in the allocation-free form.
        var steps = SessionSteps(firstStep: .init(from: from, event: event.kind, to: to, failures: failures))
        // DISCONNECTED's entry: "If the device is offline, trigger transition to OFFLINE."
        if to == .disconnected && !isDeviceOnline {
            steps.chainedStep = .init(from: .disconnected, event: .deviceOffline, to: .offline, failures: failures)
            enter(.offline, on: .deviceOffline, from: .disconnected, into: &actions)
        } else if case .disconnected(let credentials, _, _) = current {
            let delay = retryPolicy.delay(failures: failures, using: &generator)
            let timer = SessionTimer(id: nextTicket(), purpose: .retry(failures: failures), delay: delay)
            current = .disconnected(credentials, retryDelay: delay, timer: timer.id)
            actions.append(arm(timer))
        }
        return steps
    }

    // MARK: - Entry and exit effects

    /// The exit effects of the current state when leaving for `target` on `event`.
    mutating func exit(to target: SessionState, on event: SessionEvent, into actions: inout [Action]) {
        switch current {
        case .disconnected(_, _, let timer):
            disarm(timer, into: &actions)
        case .loggingIn(_, let attempt), .connecting(_, let attempt), .reconnecting(_, let attempt):
            switch attempt {
            case .connection:
                // SOCKET_CONNECTED keeps the connection that just connected; every other exit ends it, unless it
                // ended by itself.
                if target != .connected { closeConnection(into: &actions) }
            case .confirming:
                // The connection was closed when the confirmation began; a check in flight is ignored.
                if case .timer(let id) = confirmation?.pending { disarm(id, into: &actions) }
                confirmation = nil
            }
        case .connected:
            connectedAt = nil
            connectingSince = nil
            if let watch = deliveryWatch {
                disarm(watch.timer, into: &actions)
                deliveryWatch = nil
            }
            if let check = socketCheck {
                disarm(check.timer, into: &actions)
                socketCheck = nil
            }
            // The plays stop; a refused frame's kind is not played again (ReplayPlan's discussion).
            // The cause only matters to a plan that played something on this connection (it blames that).
            let cause = replay.lastPlayed == nil ? nil : event.failure
            if let renewal = renewalTimer {
                disarm(renewal, into: &actions)
                renewalTimer = nil
            }
            for action in replay.disconnected(after: cause) { appendReplay(action, into: &actions) }
            // The plan cancelled every play's timer; none outlives the connection, whatever the plan said.
            for id in replayTimers.keys.sorted() { disarm(id, into: &actions) }
            replayTimers = [:]
            replayTimerIDs = [:]
            closeConnection(into: &actions)
        case .ready, .onboarding, .error, .dispose, .offline:
            break
        }
    }

    /// The entry effects of `state`, entered from `from` on `event`.
    mutating func enter(
        _ state: SessionState,
        on event: SessionEvent,
        from: SessionState,
        into actions: inout [Action]
    ) {
        let credentials = self.credentials
        /// The session every state after READY carries; the table admits no other path (an invariant).
        func session() -> SessionCredentials {
            guard let session = event.credentials ?? credentials else {
                preconditionFailure("entering \(state) from \(from) on \(event.kind) without a session")
            }
            return session
        }
        switch state {
        case .ready:
            if pendingExternalLogout {
                notice = logoutStanding.map(Notice.accountStanding) ?? .loggedOut
            } else {
                notice = nil
                noticeLookup = nil
            }
            pendingExternalLogout = false
            logoutStanding = nil
            current = .ready
        case .loggingIn:
            let session = session()
            generation &+= 1
            clearNotice()
            current = .loggingIn(session, .connection(generation: generation))
            actions.append(.authenticate(session, generation: generation))
        case .onboarding:
            current = .onboarding(session())
        case .error:
            stopHealthPolling(into: &actions)
            let error: PermanentError
            var lookup: UInt64?
            switch event {
            case .permanentFailure(let reason):
                let tailors = reason.code == .invalidSession || reason.code == .loggedOut
                if tailors, let userID = credentials?.userID {
                    let id = nextTicket()
                    lookup = id
                    actions.append(.fetchAccountStanding(userID: userID, lookup: id))
                }
                error = PermanentError(failure: .permanent(reason), isCheckingAccount: lookup != nil)
            case .temporaryFailure(let cause):
                error = PermanentError(failure: .temporary(cause))
            default:
                preconditionFailure("ERROR entered on \(event.kind) from \(from); the table allows only failures")
            }
            current = .error(error, session(), lookup: lookup)
        case .dispose:
            stopHealthPolling(into: &actions)
            if case .logout(let external) = event {
                pendingExternalLogout = external
                if external, let userID = credentials?.userID {
                    let id = nextTicket()
                    noticeLookup = (id, .logout)
                    actions.append(.fetchAccountStanding(userID: userID, lookup: id))
                }
                if !external, let credentials { actions.append(.endSession(credentials)) }
            }
            // A cancelled onboarding and a dismissed error leave a session the server may still hold (a fresh
            // one from the login interface): end it, as a user's logout does. One the server already ended
            // answers as ended, which is what was asked for.
            if event.kind == .cancel || event.kind == .dismiss, let credentials {
                actions.append(.endSession(credentials))
            }
            failures = 0
            connectingSince = nil
            current = .dispose
            // The runtime disposes of every timer and task of the client (``SessionAction/dispose``): the plan's
            // timers it cancels need no action of their own.
            var disposed: [Action] = []
            for action in replay.reset() { appendReplay(action, into: &disposed) }
            actions.append(.dispose)
        case .connecting:
            let session = session()
            generation &+= 1
            clearNotice()
            current = .connecting(session, .connection(generation: generation))
            actions.append(.connect(session, generation: generation))
        case .connected:
            failuresBeforeConnected = failures
            failures = 0
            stopHealthPolling(into: &actions)
            guard let g = liveGeneration else {
                preconditionFailure("entering CONNECTED from \(from) with no live connection")
            }
            current = .connected(session(), generation: g)
            actions.append(.replaySignificantEvents(generation: g))
            if let subscriptionRenewal { actions.append(arm(armRenewal(after: subscriptionRenewal))) }
            for action in replay.connected() { appendReplay(action, into: &actions) }
        case .disconnected:
            // A connection that did not prove stable continues the count it started from (the lifecycle's
            // extension "A short connection keeps the failure count").
            if from == .connected && endedBeforeStable { failures = failuresBeforeConnected }
            failures += 1
            if pollsHealth && failures >= healthThreshold && !isPollingHealth {
                isPollingHealth = true
                actions.append(.startHealthPolling)
                lastHealthPoll &+= 1
                healthPoll = .asking(lastHealthPoll)
                actions.append(.pollHealth(poll: lastHealthPoll))
            }
            // The retry delay and timer are drawn by `handle` once it knows the device is online.
            current = .disconnected(session(), retryDelay: .zero, timer: 0)
        case .reconnecting:
            let session = session()
            actions.append(.invalidateCaches)
            generation &+= 1
            current = .reconnecting(session, .connection(generation: generation))
            actions.append(.connect(session, generation: generation))
        case .offline:
            current = .offline(session())
        }
    }

    /// A new login clears the login screen's notice and forgets the lookup that would have tailored it.
    mutating func clearNotice() {
        notice = nil
        noticeLookup = nil
        logoutStanding = nil
        pendingExternalLogout = false
    }

    mutating func stopHealthPolling(into actions: inout [Action]) {
        guard isPollingHealth else { return }
        isPollingHealth = false
        outageAlert = nil
        if case .waiting(let timer)? = healthPoll { disarm(timer, into: &actions) }
        healthPoll = nil
        actions.append(.stopHealthPolling)
    }
}
