/// Why a connection (or an authentication attempt) ended: now ``SessionFailure``, which has the same cases.
@available(
    *, deprecated, renamed: "SessionFailure", message: "ConnectionEnd is SessionFailure, which has the same cases"
)
public typealias ConnectionEnd = SessionFailure
