/// A timer the machine asks the runtime to arm: an id, what it is for, and its delay. When it fires the
/// runtime calls ``SessionMachine/timerFired(_:connectedFor:using:)`` with the id; the machine ignores ids it no
/// longer waits for, so a timer cancelled too late changes nothing.
public struct SessionTimer: Sendable, Hashable, Identifiable {
    /// What a timer is for.
    public enum Purpose: Sendable, Hashable {
        /// DISCONNECTED's retry timer, armed for this failure count; firing sends RETRY.
        case retry(failures: Int)
        /// The wait before the next check of a session the server called invalid (``SessionCheckPolicy``).
        case sessionCheck(answers: Int)
        /// CONNECTED's delivery deadline (``DeliveryWatchPolicy``): the event of a message the server stored is
        /// awaited on the socket; firing is TEMPORARY_FAILURE ``TemporaryFailureCode/deliveryStalled``.
        case deliveryWatch
        /// The wait before the next poll of the health service while polling (the service's poll interval,
        /// kept within ``SessionMachine/healthPollBounds``); firing asks for a poll
        /// (``SessionAction/pollHealth(poll:)``).
        case healthPoll
        /// A pending play's timeout (``SessionMachine/playPending(_:)``, ``SessionMachine/replayTimeout``): firing
        /// fails the play (``ReplayPlan/failed(_:)``).
        case playTimeout(play: UInt64)
        /// The wait before a failed play's next attempt (``ReplayAction/armRetry(_:after:)``): firing plays it
        /// again (``ReplayPlan/retryTimerFired(_:)``).
        case playRetry(play: UInt64)
        /// CONNECTED's renewal of the recorded subscriptions (``SessionMachine/subscriptionRenewal``): firing
        /// plays the oldest again and arms the next.
        case renewal
        /// The deadline of the check of the socket made when the device woke (``SessionMachine/wakeCheckTimeout``):
        /// firing is TEMPORARY_FAILURE ``TemporaryFailureCode/wakeCheckFailed``.
        case socketCheck

        /// Whether firing changes only what the interface does not show (a poll asked, a play sent): the
        /// runtime publishes no snapshot for it unless it takes a transition.
        public var isQuiet: Bool {
            switch self {
            case .healthPoll, .playRetry, .renewal: true
            case .retry, .sessionCheck, .deliveryWatch, .playTimeout, .socketCheck: false
            }
        }
    }

    /// The timer's id, unique within its machine.
    public var id: UInt64
    /// What it is for.
    public var purpose: Purpose
    /// How long after the action it fires.
    public var delay: Duration

    /// Creates a timer.
    public init(id: UInt64, purpose: Purpose, delay: Duration) {
        self.id = id
        self.purpose = purpose
        self.delay = delay
    }
}
