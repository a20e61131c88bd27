/// One step of the lifecycle: from a state, on an event, to a state, with the failure count after the
/// target's entry effects and, for TEMPORARY_FAILURE and PERMANENT_FAILURE, the typed failure.
public struct SessionTransition: Sendable, Hashable, CustomStringConvertible {
    /// The state left.
    public var from: SessionState
    /// The event that moved it.
    public var event: SessionEvent.Kind
    /// The state entered.
    public var to: SessionState
    /// The failure count after entering ``to``.
    public var failures: Int
    /// Why, for a TEMPORARY_FAILURE or a PERMANENT_FAILURE: its code and message.
    public var cause: SessionFailure?

    /// Creates a transition record.
    public init(
        from: SessionState, event: SessionEvent.Kind, to: SessionState, failures: Int = 0,
        cause: SessionFailure? = nil
    ) {
        self.from = from
        self.event = event
        self.to = to
        self.failures = failures
        self.cause = cause
    }

    /// The transition in the specification's notation, with the failure count.
    public var description: String { "\(from.rawValue) -->|\(event.rawValue)| \(to.rawValue) (failures: \(failures))" }
}
