// The facet of the machine that runs its replay plan (`ReplayPlan`, its sub-machine): what the app asks for
// and what the plays answer come in here, and the plan's actions go out as `SessionAction.replay`.

extension SessionCore {
    /// ``SessionMachine`` documents `requested`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func requested(_ event: SignificantEvent, playable: Bool = true) -> Output {
        var actions: [Action] = []
        for action in replay.requested(event, playable: playable) { appendReplay(action, into: &actions) }
        return .updated(actions: actions)
    }

    /// ``SessionMachine`` documents `playAnswered`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func playAnswered(_ id: UInt64, succeeded: Bool) -> Output {
        replayed(succeeded ? replay.played(id) : replay.failed(id))
    }

    /// ``SessionMachine`` documents `playPending`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func playPending(_ id: UInt64) -> Output {
        guard replayTimerIDs[.playTimeout(play: id)] == nil, replay.isInFlight(id) else { return .ignored }
        return .updated(actions: [arm(armReplayTimer(.playTimeout(play: id), after: replayTimeout))])
    }

    /// ``SessionMachine`` documents `renew`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func renew(_ kind: SignificantEvent.Kind, limit: Int) -> Output {
        guard case .connected = current else { return .ignored }
        return replayed(replay.renew(kind, limit: limit))
    }

    /// The plan's answer as an output: no action is a report the plan did not act on.
    mutating func replayed(_ actions: [ReplayAction]) -> Output {
        guard !actions.isEmpty else { return .ignored }
        var output: [Action] = []
        output.reserveCapacity(actions.count)
        for action in actions { appendReplay(action, into: &output) }
        return .updated(actions: output)
    }

    /// Appends what the plan asked: its timers become the machine's (armed and cancelled by id), the rest
    /// goes to the runtime as ``SessionAction/replay(_:)``.
    mutating func appendReplay(_ action: ReplayAction, into actions: inout [Action]) {
        switch action {
        case .cancelTimeout(let play):
            // A play answered at once had no timeout armed.
            if let id = replayTimerIDs.removeValue(forKey: .playTimeout(play: play)) {
                replayTimers[id] = nil
                disarm(id, into: &actions)
            }
        case .armRetry(let play, let delay):
            actions.append(arm(armReplayTimer(.playRetry(play: play), after: delay)))
        case .cancelRetry(let play):
            if let id = replayTimerIDs.removeValue(forKey: .playRetry(play: play)) {
                replayTimers[id] = nil
                disarm(id, into: &actions)
            }
        case .play, .surface, .unsupported:
            actions.append(.replay(action))
        }
    }

    mutating func armReplayTimer(_ purpose: SessionTimer.Purpose, after delay: Duration) -> SessionTimer {
        let timer = SessionTimer(id: nextTicket(), purpose: purpose, delay: delay)
        replayTimers[timer.id] = purpose
        replayTimerIDs[purpose] = timer.id
        return timer
    }

    mutating func armRenewal(after delay: Duration) -> SessionTimer {
        let timer = SessionTimer(id: nextTicket(), purpose: .renewal, delay: delay)
        renewalTimer = timer.id
        return timer
    }

    /// One of the replay's timers fired (``timerFired(_:connectedFor:using:)``): a play's timeout fails it, a
    /// retry plays it again, the renewal plays the oldest recorded subscriptions again and arms the next.
    ///
    /// - Returns: The plan's answer, or `nil` when `id` is none of the replay's timers.
    mutating func replayTimerFired(_ id: UInt64) -> Output? {
        if id == renewalTimer, let subscriptionRenewal {
            let next = armRenewal(after: subscriptionRenewal)
            return .updated(actions: [arm(next)] + (replayed(replay.renew(.subscribe, limit: 5)).actions))
        }
        guard let purpose = replayTimers.removeValue(forKey: id) else { return nil }
        replayTimerIDs[purpose] = nil
        switch purpose {
        case .playTimeout(let play): return replayed(replay.failed(play))
        case .playRetry(let play): return replayed(replay.retryTimerFired(play))
        default: return nil
        }
    }
}
