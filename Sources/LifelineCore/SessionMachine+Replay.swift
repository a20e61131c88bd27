// The facet of the machine that runs its replay plan (`ReplayPlan`, its sub-machine): what the app asks for
// and what the plays answer come in here, and the plan's actions go out as `SessionAction.replay`.

extension SessionMachine {
    /// The app asked for a significant event (subscribe, begin typing…): played now if connected, recorded
    /// for every reconnect when its kind is recorded (``ReplayPlan/requested(_:playable:)``).
    ///
    /// - Parameters:
    ///   - event: The event.
    ///   - playable: Whether the protocol has a frame for it (an opposite without one only updates the record).
    /// - Returns: The actions, in order.
    public mutating func requested(_ event: SignificantEvent, playable: Bool = true) -> [SessionAction] {
        replay.requested(event, playable: playable).map(SessionAction.replay)
    }

    /// A play answered: `succeeded`, or it failed. A play the plan no longer waits for (answered after its
    /// timeout or its connection's end) changes nothing and returns no action.
    public mutating func playAnswered(_ id: UInt64, succeeded: Bool) -> [SessionAction] {
        (succeeded ? replay.played(id) : replay.failed(id)).map(SessionAction.replay)
    }

    /// A play's timeout passed: it failed (``ReplayPlan/failed(_:)``), unless it was answered meanwhile.
    public mutating func playTimedOut(_ id: UInt64) -> [SessionAction] {
        replay.failed(id).map(SessionAction.replay)
    }

    /// A failed play's retry timer fired: it is played again (``ReplayPlan/retryTimerFired(_:)``).
    public mutating func playRetryDue(_ id: UInt64) -> [SessionAction] {
        replay.retryTimerFired(id).map(SessionAction.replay)
    }

    /// Plays recorded events of one kind again, at most `limit`, before the server forgets them: only while
    /// CONNECTED (``ReplayPlan/renew(_:limit:)``).
    public mutating func renew(_ kind: SignificantEvent.Kind, limit: Int) -> [SessionAction] {
        guard case .connected = current else { return [] }
        return replay.renew(kind, limit: limit).map(SessionAction.replay)
    }
}
