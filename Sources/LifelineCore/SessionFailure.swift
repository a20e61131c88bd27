/// A failure the lifecycle took an edge on, typed: TEMPORARY_FAILURE's cause or PERMANENT_FAILURE's
/// reason. It rides on the ``SessionTransition`` it caused, so its code reaches the interface and the
/// `--json` output as a field.
public indirect enum SessionFailure: Sendable, Hashable, CustomStringConvertible {
    /// A TEMPORARY_FAILURE.
    case temporary(TemporaryFailureCause)
    /// A PERMANENT_FAILURE.
    case permanent(PermanentFailureReason)

    /// The failure's stable code (`heartbeatTimeout`, `invalidSession`, …).
    public var code: String {
        switch self {
        case .temporary(let cause): cause.code.rawValue
        case .permanent(let reason): reason.code.rawValue
        }
    }

    /// The failure's message for people.
    public var message: String {
        switch self {
        case .temporary(let cause): cause.message
        case .permanent(let reason): reason.message
        }
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
