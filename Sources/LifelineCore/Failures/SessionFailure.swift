/// A failure the lifecycle takes an edge on, typed: TEMPORARY_FAILURE's cause, PERMANENT_FAILURE's reason, or
/// the server's logout. A connection (or an authenticator) ends with one (``SessionMachine``'s
/// `connectionEnded`); a ``SessionTransition`` carries the temporary or permanent one it caused, so its
/// ``code`` reaches the interface and the `--json` output as a field.
///
/// It adopts ``LifelineError`` directly rather than being a ``CodedError``: a failure is one of two coded
/// errors (``TemporaryFailureCause``, ``PermanentFailureReason``) or the server's logout, and its code is
/// theirs, typed, so an app's `switch` reaches the cause's own code in one pattern.
public indirect enum SessionFailure: LifelineError, Sendable, Hashable {
    /// A TEMPORARY_FAILURE: the lifecycle retries.
    case temporary(TemporaryFailureCause)
    /// A PERMANENT_FAILURE: the session is no longer valid — or the server says so; the machine confirms an
    /// `InvalidSession` before it believes it (``SessionCheckPolicy``).
    case permanent(PermanentFailureReason)
    /// The server ended the session (Stoat's `Logout` frame): an external LOGOUT, or a PERMANENT_FAILURE with
    /// ``PermanentFailureCode/loggedOut`` while logging in. Only a connection's end carries it: no
    /// transition does.
    case loggedOut

    /// A failure's code: the cause's or the reason's own code, typed, so an app switches on it
    /// (`case .temporary(.heartbeatTimeout)`); its ``rawValue`` is the name `--json` prints.
    public enum Code: LifelineErrorCode {
        /// A TEMPORARY_FAILURE's code.
        case temporary(TemporaryFailureCause.Code)
        /// A PERMANENT_FAILURE's code.
        case permanent(PermanentFailureReason.Code)
        /// The server's logout.
        case loggedOut

        /// The code's stable name (`heartbeatTimeout`, `invalidSession`, `loggedOut`…).
        public var rawValue: String {
            switch self {
            case .temporary(let code): code.rawValue
            case .permanent(let code): code.rawValue
            case .loggedOut: "loggedOut"
            }
        }
    }

    /// The failure's code.
    public var code: Code {
        switch self {
        case .temporary(let cause): .temporary(cause.code)
        case .permanent(let reason): .permanent(reason.code)
        case .loggedOut: .loggedOut
        }
    }

    /// The failure's message for people.
    public var message: String {
        switch self {
        case .temporary(let cause): cause.message
        case .permanent(let reason): reason.message
        case .loggedOut: "the server ended the session"
        }
    }

    /// The error that caused the cause or the reason, if any.
    public var cause: (any Error)? {
        switch self {
        case .temporary(let cause): cause.cause
        case .permanent(let reason): reason.cause
        case .loggedOut: nil
        }
    }
}
