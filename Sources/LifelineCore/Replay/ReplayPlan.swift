/// The replay of significant events as pure bookkeeping: the record of what succeeded, the play queue,
/// and what to do next — events in, actions out, like ``SessionMachine``.
///
/// - **The record** holds the significant events that succeeded, in order. A new event is appended when
///   it succeeds; its opposite (unsubscribe, end typing) removes it. Replays are flagged and never
///   appended again, so three reconnects in a row play each subscription exactly once per connection.
/// - **The play queue** plays one event at a time (sequential, the default) or all at once
///   (``Mode/pipelined``). Each play succeeds (``played(_:)``), fails or times out (``failed(_:)``); a
///   failure is retried after a backoff (``ReplayAction/armRetry(_:after:)``, then ``retryTimerFired(_:)``:
///   ``retryDelay``, twice as long each time) until ``retryLimit`` attempts, then surfaced
///   (``ReplayAction/surface(_:attempts:)``) and listed in ``failures``.
/// - **A replay that runs out of attempts stays in the record** and is tried again at the next connection;
///   it stays in ``failures`` until a play of it succeeds. A new event that runs out of attempts is recorded
///   too, for the same retry. Nothing recorded is forgotten but by its opposite (unsubscribe) or
///   ``reset()``.
/// - **Replay** starts on CONNECTED (``connected()``): every recorded event is queued as a replay, ahead
///   of new events that were asked for while disconnected. A disconnection (``disconnected(after:)``) stops
///   playing; what was queued waits for the next connection.
/// - **Kinds that are not recorded** (``SignificantEvent/Kind/isRecorded``: the user's own typing) are
///   played once if connected, never retried, never queued while disconnected.
/// - **A kind the server refuses is not played again.** A connection that ends because the server refused a
///   frame (``TemporaryFailureCode/frameRefused``: Stoat's new events server closes with 1007 after a
///   `Subscribe`, which it does not take) blames the last event played on it: its kind is
///   ``unsupportedKinds`` for the rest of the session — never played, replayed or renewed again — and
///   ``ReplayAction/unsupported(_:events:)`` tells the app once, with the recorded events of that kind. The
///   reconnect that follows plays the rest, so a server that refuses a kind costs one reconnect, not one
///   per connection. The events stay in the record (the user asked for them) until their opposite or
///   ``reset()``; ``unsupportedEvents`` lists them.
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
    /// Plays sent and not yet answered, oldest first.
    public var inFlight: [Play] { Array(sent[sentHead...]) }
    /// ``inFlight``'s storage. Decision: the plays answered at its front are skipped (``sentHead``), not
    /// removed one by one: answers come in order, and removing the first of a 1 000-play replay moved the
    /// other 999 at each answer (with the queue's `removeFirst`, most of what a reconnect's replay cost the
    /// plan). The skipped front is dropped once it is half the storage, or everything is answered.
    private var sent: [Play] = []
    private var sentHead = 0
    /// Plays that failed and wait for their retry timer.
    public private(set) var waiting: [Play] = []
    /// Events that failed past the retry limit and have not succeeded since (the UI shows them).
    public private(set) var failures: [SignificantEvent] = []
    /// Whether a connection is up to play on.
    public private(set) var isConnected = false
    /// The kinds the server refused (see the type's discussion): never played again in this session.
    public private(set) var unsupportedKinds: Set<SignificantEvent.Kind> = []
    /// The last event sent on the current connection: the one a refusal of a frame is blamed on.
    public private(set) var lastPlayed: SignificantEvent?
    /// How plays are sent.
    public let mode: Mode
    /// How many attempts a play gets before its failure is surfaced.
    public let retryLimit: Int
    /// The wait before a failed play's second attempt; each later wait is twice the one before.
    public let retryDelay: Duration
    private var nextID: UInt64 = 0

    /// Creates a plan.
    ///
    /// - Parameters:
    ///   - mode: Sequential (default) or pipelined.
    ///   - retryLimit: Attempts per play before its failure is surfaced; at least 1.
    ///   - retryDelay: The wait before the second attempt, doubled for each later one; not negative.
    public init(mode: Mode = .sequential, retryLimit: Int = 3, retryDelay: Duration = .seconds(1)) {
        precondition(retryLimit >= 1, "retryLimit must be at least 1, got \(retryLimit)")
        precondition(retryDelay >= .zero, "retryDelay must not be negative, got \(retryDelay)")
        self.mode = mode
        self.retryLimit = retryLimit
        self.retryDelay = retryDelay
    }

    /// The recorded events whose kind the server refused, in order: not replayed (``unsupportedKinds``).
    public var unsupportedEvents: [SignificantEvent] {
        // Read for every snapshot the session publishes (one per play answered in a replay of 1 000): without a
        // refused kind, there is nothing to look for in the record.
        unsupportedKinds.isEmpty ? [] : record.filter { unsupportedKinds.contains($0.kind) }
    }

    /// The app asked for an event (subscribe, begin typing…).
    ///
    /// An opposite (unsubscribe, end typing) removes its counterpart from the record and from the queue at
    /// once; it is played only if the protocol has a frame for it. An event already recorded or queued is
    /// not asked for twice. An event of a kind the server refused is recorded but not played, and reported
    /// as ``ReplayAction/unsupported(_:events:)``.
    public mutating func requested(_ event: SignificantEvent, playable: Bool = true) -> [ReplayAction] {
        var actions: [ReplayAction] = []
        if let cancelled = event.kind.cancels {
            let counterpart = SignificantEvent(cancelled, event.target)
            record.removeAll { $0 == counterpart }
            queue.removeAll { $0.event == counterpart }
            failures.removeAll { $0 == counterpart }
            for play in waiting where play.event == counterpart { actions.append(.cancelRetry(play.id)) }
            waiting.removeAll { $0.event == counterpart }
        } else if record.contains(event) || queue.contains(where: { $0.event == event })
            || sent[sentHead...].contains(where: { $0.event == event })
            || waiting.contains(where: { $0.event == event })
        {
            return []
        }
        if unsupportedKinds.contains(event.kind) {
            guard event.kind.isRecorded, event.kind.cancels == nil else { return actions }
            record.append(event)
            return actions + [.unsupported(event.kind, events: [event])]
        }
        // The user's own typing is played now or never.
        guard playable, event.kind.isRecorded || isConnected else { return actions }
        nextID &+= 1
        queue.append(Play(id: nextID, event: event, isReplay: false, attempt: 1))
        return actions + next()
    }

    /// The session reached CONNECTED: replay the record, then play what waited.
    public mutating func connected() -> [ReplayAction] {
        isConnected = true
        lastPlayed = nil
        // Nothing recorded or waiting (most connections of most sessions): nothing to rebuild or allocate.
        if record.isEmpty && queue.isEmpty { return [] }
        let waiting = queue.filter { !$0.isReplay }
        let replays = record.filter { !unsupportedKinds.contains($0.kind) }.map { event -> Play in
            nextID &+= 1
            return Play(id: nextID, event: event, isReplay: true, attempt: 1)
        }
        queue = replays + waiting
        return next()
    }

    /// The connection went away: plays in flight are lost; replays will be rebuilt on the next connection,
    /// new events wait for it.
    ///
    /// - Parameter cause: Why the connection ended, if it is known. When the server refused a frame
    ///   (``TemporaryFailureCode/frameRefused``), the kind of the last event played on the connection
    ///   (``lastPlayed``) is refused for the rest of the session: its plays are dropped, it is never played
    ///   again, and ``ReplayAction/unsupported(_:events:)`` says so once. A refusal after no play blames
    ///   nothing.
    public mutating func disconnected(after cause: SessionFailure? = nil) -> [ReplayAction] {
        isConnected = false
        // Nothing played, in flight, waiting or queued: nothing to cancel, keep or blame.
        if lastPlayed == nil && sentHead == sent.count && waiting.isEmpty && queue.isEmpty { return [] }
        var actions =
            sent[sentHead...].map { ReplayAction.cancelTimeout($0.id) }
            + waiting.map { ReplayAction.cancelRetry($0.id) }
        let kept = (sent[sentHead...] + waiting).filter { !$0.isReplay } + queue.filter { !$0.isReplay }
        queue = kept.filter(\.event.kind.isRecorded).map {
            Play(id: $0.id, event: $0.event, isReplay: false, attempt: 1)
        }
        sent = []
        sentHead = 0
        waiting = []
        let refused = lastPlayed?.kind
        lastPlayed = nil
        if case .temporary(let cause)? = cause, cause.code == .frameRefused, let refused,
            !unsupportedKinds.contains(refused)
        {
            unsupportedKinds.insert(refused)
            // What waited to be played is recorded as asked (a new subscription), and played no more.
            for play in queue where play.event.kind == refused && !record.contains(play.event) {
                record.append(play.event)
            }
            queue.removeAll { $0.event.kind == refused }
            failures.removeAll { $0.kind == refused }
            actions.append(.unsupported(refused, events: record.filter { $0.kind == refused }))
        }
        return actions
    }

    /// Everything is forgotten (DISPOSE): the record, the queue, the failures.
    public mutating func reset() -> [ReplayAction] {
        let cancelled =
            sent[sentHead...].map { ReplayAction.cancelTimeout($0.id) }
            + waiting.map { ReplayAction.cancelRetry($0.id) }
        self = ReplayPlan(mode: mode, retryLimit: retryLimit, retryDelay: retryDelay)
        return cancelled
    }

    /// A play succeeded: it leaves the queue, and a new (not replayed) event is recorded — or, for an
    /// opposite, its counterpart stays removed.
    public mutating func played(_ id: UInt64) -> [ReplayAction] {
        guard let play = takeSent(id) else { return [] }  // a late answer
        let kind = play.event.kind
        if !play.isReplay && kind.isRecorded && kind.cancels == nil && !record.contains(play.event) {
            record.append(play.event)
        }
        failures.removeAll { $0 == play.event }
        return [.cancelTimeout(id)] + next()
    }

    /// A play failed or timed out: it is tried again after a backoff until the retry limit, then its
    /// failure is surfaced — and the event stays (or, new, is put) in the record, to be tried again at the
    /// next connection.
    public mutating func failed(_ id: UInt64) -> [ReplayAction] {
        guard var play = takeSent(id) else { return [] }  // a late answer
        var actions: [ReplayAction] = [.cancelTimeout(id)]
        guard play.event.kind.isRecorded else { return actions + next() }  // typing: now or never
        if play.attempt < retryLimit {
            let delay = retryDelay * (1 << min(play.attempt - 1, 30))
            play.attempt += 1
            waiting.append(play)
            actions.append(.armRetry(play.id, after: delay))
        } else {
            if !failures.contains(play.event) { failures.append(play.event) }
            // A new event that could not be played is recorded all the same: the user asked for it, and it
            // is tried again at the next connection, as a replay that failed is.
            if play.event.kind.cancels == nil && !record.contains(play.event) { record.append(play.event) }
            actions.append(.surface(play.event, attempts: play.attempt))
        }
        return actions + next()
    }

    /// The retry timer of a failed play fired: it is played again, ahead of the queue.
    public mutating func retryTimerFired(_ id: UInt64) -> [ReplayAction] {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return [] }  // cancelled meanwhile
        queue.insert(waiting.remove(at: index), at: 0)
        return next()
    }

    /// Plays recorded events of one kind again — at most `limit` of them, the oldest first — to renew
    /// them before the server forgets them (Stoat's subscriptions expire after 15 minutes). Events already
    /// queued or in flight are not queued twice.
    public mutating func renew(_ kind: SignificantEvent.Kind, limit: Int) -> [ReplayAction] {
        guard isConnected, !unsupportedKinds.contains(kind) else { return [] }
        let pending = Set(queue.map(\.event) + sent[sentHead...].map(\.event) + waiting.map(\.event))
        for event in record.filter({ $0.kind == kind && !pending.contains($0) }).prefix(limit) {
            nextID &+= 1
            queue.append(Play(id: nextID, event: event, isReplay: true, attempt: 1))
        }
        return next()
    }

    /// Whether the play `id` was sent and not yet answered (one of ``inFlight``).
    public func isInFlight(_ id: UInt64) -> Bool {
        sent[sentHead...].contains { $0.id == id }
    }

    /// The plays to send now.
    private mutating func next() -> [ReplayAction] {
        guard isConnected, let first = queue.first else { return [] }
        if mode == .pipelined {
            // The whole queue at once, in order (one by one, each `removeFirst` moved the rest of the queue).
            lastPlayed = queue[queue.count - 1].event
            sent.append(contentsOf: queue)
            defer { queue.removeAll(keepingCapacity: true) }
            return queue.map(ReplayAction.play)
        }
        // Sequential: one play at a time, and a play waiting for its retry holds the queue, to keep the order.
        guard sentHead == sent.count && waiting.isEmpty else { return [] }
        queue.removeFirst()
        sent.append(first)
        lastPlayed = first.event
        return [.play(first)]
    }

    /// The play `id` in flight, taken out of ``inFlight``; `nil` when none is (a late answer).
    private mutating func takeSent(_ id: UInt64) -> Play? {
        guard let index = sent[sentHead...].firstIndex(where: { $0.id == id }) else { return nil }
        let play = sent[index]
        if index == sentHead { sentHead += 1 } else { sent.remove(at: index) }
        if sentHead == sent.count {
            sent.removeAll(keepingCapacity: true)
            sentHead = 0
        } else if sentHead >= 32 && sentHead * 2 >= sent.count {
            sent.removeFirst(sentHead)
            sentHead = 0
        }
        return play
    }
}
