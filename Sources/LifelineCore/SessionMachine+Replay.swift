// The facet of the machine that runs its replay plan (`ReplayPlan`, its sub-machine): what the app asks for
// and what the plays answer come in here, and the plan's actions go out as `SessionAction.replay`.

extension SessionMachine {
    /// The app asked for a significant event (subscribe, begin typing…): played now if connected, recorded
    /// for every reconnect when its kind is recorded (``ReplayPlan/requested(_:playable:)``).
    ///
    /// - Parameters:
    ///   - event: The event.
    ///   - playable: Whether the protocol has a frame for it (an opposite without one only updates the record).
    /// - Returns: ``Output/updated(actions:)`` with the actions, in order (the record changed, if nothing else).
    public mutating func requested(_ event: SignificantEvent, playable: Bool = true) -> Output {
        .updated(actions: replay.requested(event, playable: playable).map(SessionAction.replay))
    }

    /// A play answered: `succeeded`, or it failed. A play the plan no longer waits for (answered after its
    /// timeout or its connection's end) changes nothing: ``Output/ignored``.
    public mutating func playAnswered(_ id: UInt64, succeeded: Bool) -> Output {
        replayed(succeeded ? replay.played(id) : replay.failed(id))
    }

    /// A play's timeout passed: it failed (``ReplayPlan/failed(_:)``), unless it was answered meanwhile.
    public mutating func playTimedOut(_ id: UInt64) -> Output {
        replayed(replay.failed(id))
    }

    /// A failed play's retry timer fired: it is played again (``ReplayPlan/retryTimerFired(_:)``).
    public mutating func playRetryDue(_ id: UInt64) -> Output {
        replayed(replay.retryTimerFired(id))
    }

    /// Plays recorded events of one kind again, at most `limit`, before the server forgets them: only while
    /// CONNECTED (``ReplayPlan/renew(_:limit:)``).
    public mutating func renew(_ kind: SignificantEvent.Kind, limit: Int) -> Output {
        guard case .connected = current else { return .ignored }
        return replayed(replay.renew(kind, limit: limit))
    }

    /// The plan's answer as an output: no action is a report the plan did not act on.
    private func replayed(_ actions: [ReplayAction]) -> Output {
        actions.isEmpty ? .ignored : .updated(actions: actions.map(SessionAction.replay))
    }
}
