/// The replay of significant events as pure bookkeeping: the record of what succeeded, the play queue,
/// and what to do next — events in, actions out, like ``SessionMachine``.
///
/// - **The record** holds the significant events that succeeded, in order. A new event is appended when
///   it succeeds; its opposite (unsubscribe, end typing) removes it. Replays are flagged and never
///   appended again, so three reconnects in a row play each subscription exactly once per connection.
/// - **The play queue** plays one event at a time (sequential, the default) or all at once
///   (``Mode/pipelined``). Each play succeeds (``played(_:)``), fails or times out (``failed(_:)``); a
///   failure is retried until ``retryLimit`` attempts, then surfaced (``ReplayAction/surface(_:attempts:)``).
/// - **Replay** starts on CONNECTED (``connected()``): every recorded event is queued as a replay, ahead
///   of new events that were asked for while disconnected. A disconnection (``disconnected()``) stops
///   playing; what was queued waits for the next connection.
public struct ReplayPlan: Sendable {
    /// How plays are sent.
    public enum Mode: Sendable, Hashable {
        /// One play at a time, each after the previous succeeded.
        case sequential
        /// Every queued play at once (independent events only).
        case pipelined
    }

    /// One play of an event.
    public struct Play: Sendable, Hashable, Identifiable {
        /// A number unique within the plan.
        public var id: UInt64
        /// The event.
        public var event: SignificantEvent
        /// Whether it replays a recorded event (then it is never recorded again).
        public var isReplay: Bool
        /// How many times it has been tried, this one included.
        public var attempt: Int
    }

    /// The events that succeeded, in order.
    public private(set) var record: [SignificantEvent] = []
    /// Plays waiting to be sent.
    public private(set) var queue: [Play] = []
    /// Plays sent and not yet answered.
    public private(set) var inFlight: [Play] = []
    /// Events that failed past the retry limit since the last connection (the UI shows them).
    public private(set) var failures: [SignificantEvent] = []
    /// Whether a connection is up to play on.
    public private(set) var isConnected = false
    /// How plays are sent.
    public let mode: Mode
    /// How many attempts a play gets before its failure is surfaced.
    public let retryLimit: Int
    private var nextID: UInt64 = 0

    /// Creates a plan.
    ///
    /// - Parameters:
    ///   - mode: Sequential (default) or pipelined.
    ///   - retryLimit: Attempts per play before its failure is surfaced; at least 1.
    public init(mode: Mode = .sequential, retryLimit: Int = 3) {
        precondition(retryLimit >= 1, "retryLimit must be at least 1, got \(retryLimit)")
        self.mode = mode
        self.retryLimit = retryLimit
    }

    /// The app asked for an event (subscribe, begin typing…).
    ///
    /// An opposite (unsubscribe, end typing) removes its counterpart from the record and from the queue at
    /// once; it is played only if the protocol has a frame for it. An event already recorded or queued is
    /// not asked for twice.
    public mutating func requested(_ event: SignificantEvent, playable: Bool = true) -> [ReplayAction] {
        if let cancelled = event.kind.cancels {
            let counterpart = SignificantEvent(cancelled, event.target)
            record.removeAll { $0 == counterpart }
            queue.removeAll { $0.event == counterpart }
        } else if record.contains(event) || queue.contains(where: { $0.event == event })
            || inFlight.contains(where: { $0.event == event })
        {
            return []
        }
        guard playable else { return [] }
        nextID &+= 1
        queue.append(Play(id: nextID, event: event, isReplay: false, attempt: 1))
        return next()
    }

    /// The session reached CONNECTED: replay the record, then play what waited.
    public mutating func connected() -> [ReplayAction] {
        isConnected = true
        failures = []
        let waiting = queue.filter { !$0.isReplay }
        let replays = record.map { event -> Play in
            nextID &+= 1
            return Play(id: nextID, event: event, isReplay: true, attempt: 1)
        }
        queue = replays + waiting
        return next()
    }

    /// The connection went away: plays in flight are lost; replays will be rebuilt on the next connection,
    /// new events wait for it.
    public mutating func disconnected() -> [ReplayAction] {
        isConnected = false
        let cancelled = inFlight.map { ReplayAction.cancelTimeout($0.id) }
        queue = inFlight.filter { !$0.isReplay }.map { Play(id: $0.id, event: $0.event, isReplay: false, attempt: 1) }
            + queue.filter { !$0.isReplay }
        inFlight = []
        return cancelled
    }

    /// Everything is forgotten (DISPOSE): the record, the queue, the failures.
    public mutating func reset() -> [ReplayAction] {
        let cancelled = inFlight.map { ReplayAction.cancelTimeout($0.id) }
        self = ReplayPlan(mode: mode, retryLimit: retryLimit)
        return cancelled
    }

    /// A play succeeded: it leaves the queue, and a new (not replayed) event is recorded — or, for an
    /// opposite, its counterpart stays removed.
    public mutating func played(_ id: UInt64) -> [ReplayAction] {
        guard let index = inFlight.firstIndex(where: { $0.id == id }) else { return [] }  // a late answer
        let play = inFlight.remove(at: index)
        if !play.isReplay && play.event.kind.cancels == nil && !record.contains(play.event) {
            record.append(play.event)
        }
        return [.cancelTimeout(id)] + next()
    }

    /// A play failed or timed out: it is tried again until the retry limit, then its failure is surfaced.
    public mutating func failed(_ id: UInt64) -> [ReplayAction] {
        guard let index = inFlight.firstIndex(where: { $0.id == id }) else { return [] }  // a late answer
        var play = inFlight.remove(at: index)
        var actions: [ReplayAction] = [.cancelTimeout(id)]
        if play.attempt < retryLimit {
            play.attempt += 1
            queue.insert(play, at: 0)
        } else {
            failures.append(play.event)
            if play.isReplay { record.removeAll { $0 == play.event } }
            actions.append(.surface(play.event, attempts: play.attempt))
        }
        return actions + next()
    }

    /// Plays recorded events of one kind again — at most `limit` of them, the oldest first — to renew
    /// them before the server forgets them (Stoat's subscriptions expire after 15 minutes). Events already
    /// queued or in flight are not queued twice.
    public mutating func renew(_ kind: SignificantEvent.Kind, limit: Int) -> [ReplayAction] {
        guard isConnected else { return [] }
        let pending = Set(queue.map(\.event) + inFlight.map(\.event))
        for event in record.filter({ $0.kind == kind && !pending.contains($0) }).prefix(limit) {
            nextID &+= 1
            queue.append(Play(id: nextID, event: event, isReplay: true, attempt: 1))
        }
        return next()
    }

    /// The plays to send now.
    private mutating func next() -> [ReplayAction] {
        guard isConnected else { return [] }
        var actions: [ReplayAction] = []
        while !queue.isEmpty && (mode == .pipelined || inFlight.isEmpty) {
            let play = queue.removeFirst()
            inFlight.append(play)
            actions.append(.play(play))
        }
        return actions
    }
}

/// What the runtime must do for the replay.
public enum ReplayAction: Sendable, Hashable {
    /// Play the event on the current connection and arm its timeout; report ``ReplayPlan/played(_:)`` or
    /// ``ReplayPlan/failed(_:)``.
    case play(ReplayPlan.Play)
    /// The play with this id is answered or abandoned: disarm its timeout.
    case cancelTimeout(UInt64)
    /// The event failed past the retry limit: show it to the user.
    case surface(SignificantEvent, attempts: Int)
}
