/// What the interface shows for a session at one moment: derived from the lifecycle, never stored.
///
/// Each state of the specification's node table maps to a ``Screen``; the logged-in states add a
/// ``Banner``. On top of that: the permanent error with its tailored reason, a notice after an external
/// logout or a failed login, the outage alert from the health service, and the delay of the armed retry.
public struct Presentation: Sendable, Hashable {
    /// The screen the interface shows.
    public enum Screen: Sendable, Hashable {
        /// The login interface (READY).
        case login
        /// A loading indicator (LOGGING_IN, DISPOSE).
        case loading
        /// The username selection (ONBOARDING).
        case usernameSelection
        /// The permanent error, with an option to dismiss it (ERROR).
        case permanentError(PermanentError)
        /// The client UI (the five logged-in states), perhaps with a ``Banner``.
        case client
    }

    /// The screen to show.
    public var screen: Screen

    /// The banner over the client UI, or `nil` when there is none (CONNECTED, and every logged-out state).
    public var banner: Banner?

    /// A one-off message for the login screen: "You were logged out", or why a login failed.
    public var notice: Notice?

    /// The health service's outage alert, while there is one and the failures are high enough to ask.
    public var outageAlert: OutageAlert?

    /// In DISCONNECTED, how long the armed retry timer waits (the runtime turns it into an instant).
    public var retryDelay: Duration?

    /// Creates a presentation.
    public init(
        screen: Screen,
        banner: Banner? = nil,
        notice: Notice? = nil,
        outageAlert: OutageAlert? = nil,
        retryDelay: Duration? = nil
    ) {
        self.screen = screen
        self.banner = banner
        self.notice = notice
        self.outageAlert = outageAlert
        self.retryDelay = retryDelay
    }
}

/// The banner over the client UI in a logged-in state other than CONNECTED.
public enum Banner: String, Sendable, Hashable, CaseIterable, Codable {
    /// CONNECTING.
    case connecting = "Connecting"
    /// DISCONNECTED.
    case disconnected = "Disconnected"
    /// RECONNECTING.
    case reconnecting = "Reconnecting"
    /// OFFLINE.
    case deviceOffline = "Device offline"

    /// The banner's text, exactly as the specification words it.
    public var text: String { rawValue }
}

/// A message the login screen shows once, beyond the screen itself.
public enum Notice: Sendable, Hashable {
    /// The server ended the session (an external LOGOUT): "You were logged out".
    case loggedOut
    /// A login at the login interface failed (wrong password, blocked, disabled…).
    case loginFailed(LoginFailure)
    /// The account's standing explains an external logout or a login refused as `Disabled`: the account
    /// is suspended, banned, deleted or removed as spam (never ``AccountStanding/loggedOut``, which keeps
    /// the notice it tailors).
    case accountStanding(AccountStanding)

    /// The notice's text for the user.
    public var text: String {
        switch self {
        case .loggedOut: "You were logged out."
        case .loginFailed(let failure): failure.message
        case .accountStanding(let standing): standing.message
        }
    }
}

/// Why a login at the login interface failed, as the interface shows it.
public struct LoginFailure: Sendable, Hashable {
    /// A stable code for the failure (for example `InvalidCredentials`, `BlockedByShield`, `Disabled`).
    public var code: String
    /// The message for the user; never contains a secret.
    public var message: String
    /// A support article the interface should link to (Stoat's BlockedByShield article), if any.
    public var supportURL: String?

    /// Creates a login failure.
    public init(code: String, message: String, supportURL: String? = nil) {
        self.code = code
        self.message = message
        self.supportURL = supportURL
    }
}

/// An outage alert from the health service (see the lifecycle's decisions: health polling).
public struct OutageAlert: Sendable, Hashable, Codable {
    /// A link the alert offers.
    public struct Action: Sendable, Hashable, Codable {
        /// The link's text.
        public var text: String
        /// Where it leads.
        public var href: String
        /// Whether it leaves the app (`external`) or stays in it (`internal`).
        public var isExternal: Bool

        /// Creates an action.
        public init(text: String, href: String, isExternal: Bool) {
            self.text = text
            self.href = href
            self.isExternal = isExternal
        }
    }

    /// The alert's text.
    public var text: String
    /// Whether the user may dismiss it.
    public var isDismissable: Bool
    /// Links the alert offers.
    public var actions: [Action]

    /// Creates an alert.
    public init(text: String, isDismissable: Bool = true, actions: [Action] = []) {
        self.text = text
        self.isDismissable = isDismissable
        self.actions = actions
    }
}

/// The standing of an account, as a lookup after a permanent failure, an external logout or a login
/// refused as `Disabled` reports it.
///
/// For Stoat, the `GET /users/{id}/flags` bits: 4 banned, 8 removed as spam, 2 deleted, 1 suspended, and
/// 0 for an account in good standing — whose session was simply logged out.
public enum AccountStanding: String, Sendable, Hashable, CaseIterable, Codable {
    /// The account is fine: the session was logged out (elsewhere, or expired).
    case loggedOut
    /// The owner disabled the account.
    case disabled
    /// The account is suspended.
    case suspended
    /// The account is banned.
    case banned
    /// The account was deleted.
    case deleted
    /// The account was removed as spam.
    case removedAsSpam

    /// The sentence that tells the user.
    public var message: String {
        switch self {
        case .loggedOut: "You have been logged out. Please log in again."
        case .disabled: "Your account has been disabled."
        case .suspended: "Your account has been suspended."
        case .banned: "Your account has been banned."
        case .deleted: "Your account has been deleted."
        case .removedAsSpam: "Your account was removed as spam."
        }
    }
}

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
        case .temporary(let cause): return cause.code.rawValue
        }
    }

    /// The message for the user.
    public var message: String {
        if let standing { return standing.message }
        switch failure {
        case .permanent(let reason) where reason.code == .accountDisabled:
            return "Your account has been disabled."
        case .permanent:
            return isCheckingAccount
                ? "Your session is no longer valid. Checking your account…"
                : "Your session is no longer valid. Please log in again."
        case .temporary(let cause):
            return "Could not sign in (\(cause)). Please try again."
        }
    }
}
