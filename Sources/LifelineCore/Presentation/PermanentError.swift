/// The permanent error the ERROR state shows, tailored when the account's standing is known.
public struct PermanentError: Sendable, Hashable {
    /// What went wrong, before tailoring: a PERMANENT_FAILURE, or a TEMPORARY_FAILURE while logging in
    /// (the specification sends it to ERROR too).
    public typealias Failure = SessionFailure

    /// What went wrong.
    public var failure: Failure

    /// The account's standing, once the lookup answered; `nil` before, or when it failed.
    public var standing: AccountStanding?

    /// Whether the account's standing is being looked up (the interface may show "Checking your account…").
    public var isCheckingAccount: Bool

    /// Creates a permanent error.
    public init(failure: Failure, standing: AccountStanding? = nil, isCheckingAccount: Bool = false) {
        self.failure = failure
        self.standing = standing
        self.isCheckingAccount = isCheckingAccount
    }

    /// The tailored reason's stable name for machine-readable output (`loggedOut`, `suspended`, …), or the
    /// failure's code while the standing is unknown.
    public var reason: String {
        if let standing { return standing.rawValue }
        switch failure {
        case .permanent(let reason):
            return reason.code == .accountDisabled ? AccountStanding.disabled.rawValue : reason.code.rawValue
        case .temporary, .loggedOut: return failure.code.rawValue
        }
    }

    /// The message for the user.
    public var message: String {
        if let standing { return standing.message }
        switch failure {
        case .permanent(let reason) where reason.code == .accountDisabled:
            return "Your account has been disabled."
        case .permanent, .loggedOut:
            return isCheckingAccount
                ? "Your session is no longer valid. Checking your account…"
                : "Your session is no longer valid. Please log in again."
        case .temporary(let cause):
            return "Could not sign in (\(cause)). Please try again."
        }
    }
}
