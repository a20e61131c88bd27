public import LifelineCore

/// What a session is and shows at one moment: the element of ``Session/states``.
///
/// Times are offsets on the session's clock from the moment the session was created, so they work with
/// any injected clock; ``nextRetry`` minus ``time`` is the retry countdown.
public struct SessionSnapshot: Sendable, Hashable {
    /// The lifecycle state.
    public var state: SessionState
    /// What the interface shows.
    public var presentation: Presentation
    /// The connection-failure count.
    public var failures: Int
    /// In DISCONNECTED, when the retry timer fires, on the session's clock.
    public var nextRetry: Duration?
    /// The device's network, as the session's monitor last reported it.
    public var network: NetworkStatus
    /// The significant events that succeeded and are replayed after every reconnect, in order.
    public var significantEvents: [SignificantEvent]
    /// Significant events whose replay failed past the retry limit since the last connection.
    public var replayFailures: [SignificantEvent]
    /// Significant events the server does not take (it refused one of their kind and ended the connection):
    /// recorded as asked, but not played again in this session (`ReplayPlan.unsupportedEvents`).
    public var unsupportedEvents: [SignificantEvent] = []
    /// The last error the session met (a connection failure, an onboarding refusal…), if any.
    ///
    /// A connection failure has one owner in a snapshot: the transition that took its edge
    /// (`SessionTransition.cause`). While this snapshot carries that transition, the last error is read from
    /// it (`SessionError` over the failure); a later snapshot, which carries no transition with it, holds the
    /// error itself. Either way the value is the same.
    public var lastError: SessionError? {
        get {
            switch lastErrorStorage {
            case nil: nil
            case .error(let error)?: error
            case .lastTransitionCause?: transitions.last { $0.cause != nil }?.cause.map(SessionError.init)
            }
        }
        set { lastErrorStorage = Self.storage(of: newValue, in: transitions) }
    }
    /// The transitions that led from the previous snapshot this observer read to this one, each with its
    /// typed cause: empty for the first snapshot and for changes of presentation alone (an account lookup,
    /// an outage alert); two when DISCONNECTED went straight on to OFFLINE; more when the observer fell
    /// behind (see ``SessionStates``).
    public var transitions: [SessionTransition] {
        // A last error read from the old transitions is kept before they go, then stored once again.
        willSet { if case .lastTransitionCause? = lastErrorStorage { lastErrorStorage = lastError.map { .error($0) } } }
        didSet { lastErrorStorage = Self.storage(of: lastError, in: transitions) }
    }
    /// Where ``lastError`` is: held here, or the cause of the last transition that has one.
    package private(set) var lastErrorStorage: LastErrorStorage?
    /// How many transitions an observer that fell far behind did not receive before ``transitions``:
    /// beyond ``maximumPendingTransitions`` the oldest are dropped. Zero for an observer that keeps up.
    public var droppedTransitions: Int = 0
    /// Whether the server called the session invalid and the session is being checked before the
    /// lifecycle believes it (the state and its presentation stay as they were meanwhile).
    public var isConfirmingSession: Bool = false
    /// Whether the device woke and CONNECTED is checking its socket (a `Ping` awaiting its `Pong`, within
    /// `Session.Configuration.wakeCheckTimeout`): the state stays CONNECTED meanwhile.
    public var isCheckingSocket: Bool = false
    /// When the snapshot was taken, on the session's clock.
    public var time: Duration

    /// How many unread transitions a snapshot carries for an observer that fell behind.
    public static let maximumPendingTransitions = 1_000

    /// `newer`, carrying the transitions of `pending` that its observer has not read: how an observer's
    /// one-snapshot buffer merges (the oldest beyond ``maximumPendingTransitions`` are dropped and counted).
    ///
    /// - Parameters:
    ///   - pending: The snapshot the observer has not read.
    ///   - newer: The snapshot published after it.
    public static func merging(_ pending: SessionSnapshot, _ newer: SessionSnapshot) -> SessionSnapshot {
        var merged = newer
        merged.transitions = pending.transitions + newer.transitions
        merged.droppedTransitions = pending.droppedTransitions + newer.droppedTransitions
        let excess = merged.transitions.count - maximumPendingTransitions
        if excess > 0 {
            merged.transitions.removeFirst(excess)
            merged.droppedTransitions += excess
        }
        return merged
    }

    /// Creates a snapshot.
    public init(
        state: SessionState,
        presentation: Presentation,
        failures: Int,
        nextRetry: Duration? = nil,
        network: NetworkStatus = .online,
        significantEvents: [SignificantEvent] = [],
        replayFailures: [SignificantEvent] = [],
        unsupportedEvents: [SignificantEvent] = [],
        lastError: SessionError? = nil,
        transitions: [SessionTransition] = [],
        time: Duration = .zero
    ) {
        self.state = state
        self.presentation = presentation
        self.failures = failures
        self.nextRetry = nextRetry
        self.network = network
        self.significantEvents = significantEvents
        self.replayFailures = replayFailures
        self.unsupportedEvents = unsupportedEvents
        self.transitions = transitions
        self.lastErrorStorage = Self.storage(of: lastError, in: transitions)
        self.time = time
    }

    /// Where a snapshot keeps its ``lastError``, so that a failure is carried once.
    package enum LastErrorStorage: Sendable, Hashable {
        /// The error itself: not a cause of the snapshot's transitions.
        case error(SessionError)
        /// The cause of the snapshot's last transition that has one.
        case lastTransitionCause
    }

    /// Where `error` goes in a snapshot with `transitions`: the cause of the last transition that has one,
    /// when it is that failure; otherwise the error itself.
    private static func storage(of error: SessionError?, in transitions: [SessionTransition]) -> LastErrorStorage? {
        guard let error else { return nil }
        if let failure = error.failure, let cause = transitions.last(where: { $0.cause != nil })?.cause,
            cause == failure, SessionError(cause) == error
        {
            return .lastTransitionCause
        }
        return .error(error)
    }
}

extension SessionSnapshot {
    /// The snapshot of what `machine` holds now, with the retry's deadline and the transitions just taken.
    init<TimerToken, ConnectionToken>(
        _ machine: SessionMachine<TimerToken, ConnectionToken>, nextRetry: Duration? = nil,
        transitions: [SessionTransition] = [], time: Duration = .zero
    ) {
        self.init(
            state: machine.state, presentation: machine.presentation, failures: machine.failures,
            nextRetry: nextRetry, network: machine.isDeviceOnline ? .online : .offline,
            significantEvents: machine.replay.record, replayFailures: machine.replay.failures,
            unsupportedEvents: machine.replay.unsupportedEvents,
            lastError: machine.lastError.map(SessionError.init), transitions: transitions, time: time)
        isConfirmingSession = machine.isConfirmingSession
        isCheckingSocket = machine.isCheckingSocket
    }
}
