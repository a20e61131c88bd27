/// A fact that moves the session lifecycle: a transition of the specification with its payload.
///
/// The cases are the specification's transitions (LOGIN_UNCACHED, LOGIN_CACHED, NO_USER, USER_CREATED,
/// CANCEL, DISMISS, READY, SOCKET_CONNECTED, TEMPORARY_FAILURE, PERMANENT_FAILURE, RETRY, DEVICE_OFFLINE,
/// DEVICE_ONLINE, LOGOUT) plus two documented extensions, ``reconnectNow`` and ``deviceWoke``. The specification's listener
/// table also names SOCKET_DROPPED, which its graph does not draw: a dropped socket is a
/// ``temporaryFailure(_:)`` whose cause is ``TemporaryFailureCode/socketDropped``.
public enum SessionEvent: Sendable, Hashable {
    /// The user exchanged credentials at the login interface; the fresh session still has to be
    /// authenticated (onboarding check, then the socket). READY → LOGGING_IN.
    case loginUncached(SessionCredentials)

    /// A session was found in the local cache; connect with it straight away. READY → CONNECTING.
    case loginCached(SessionCredentials)

    /// The account has no user yet: onboarding must pick a username. LOGGING_IN → ONBOARDING.
    case noUser

    /// Onboarding created the user. ONBOARDING → LOGGING_IN.
    case userCreated

    /// The user cancelled onboarding. ONBOARDING → DISPOSE.
    case cancel

    /// The user dismissed the permanent error. ERROR → DISPOSE.
    case dismiss

    /// The old client was disposed of and a new one created. DISPOSE → READY.
    case ready

    /// The socket is connected and the initial data (Stoat's `Ready`) has loaded.
    case socketConnected

    /// The connection failed or dropped in a way that may heal by itself.
    case temporaryFailure(TemporaryFailureCause)

    /// The connection failed in a way that will not heal: the session is invalid.
    case permanentFailure(PermanentFailureReason)

    /// The retry timer armed on entering DISCONNECTED fired. DISCONNECTED → RECONNECTING.
    case retry

    /// The device has no network. DISCONNECTED → OFFLINE.
    case deviceOffline

    /// The device's network came back. OFFLINE → RECONNECTING.
    case deviceOnline

    /// The session ended: by the user, or — when `external` is `true` — by the server (Stoat's `Logout`
    /// frame), in which case the login screen tells the user they were logged out.
    case logout(external: Bool)

    /// Extension: the user asked to reconnect now, from DISCONNECTED (skipping the rest of the retry
    /// delay) or from OFFLINE (when the device's network monitor is wrong).
    ///
    /// It is its own event rather than RETRY so that a retry timer that fires late can never take a
    /// session out of OFFLINE; only the user can.
    case reconnectNow

    /// Extension: the device woke from a suspend (a laptop's lid opened, a phone's app came back to the
    /// foreground). A socket that slept may look open and be dead — its peer gave up on it, or a NAT forgot
    /// it — and the heartbeat would notice only up to an interval and a Pong timeout later.
    ///
    /// Handled in every state, never rejected: CONNECTED checks its socket at once
    /// (``SessionAction/checkSocket(generation:check:)``, answered within ``SessionMachine/wakeCheckTimeout``,
    /// or TEMPORARY_FAILURE ``TemporaryFailureCode/wakeCheckFailed``) without a transition; DISCONNECTED
    /// takes its retry now (DISCONNECTED → RECONNECTING: the network that failed may be another one now,
    /// and a retry timer on a clock that stood still during the suspend would wait its whole delay again);
    /// every other state ignores it (OFFLINE waits for the network; a connecting state's own deadlines bound
    /// its attempt; the others have no socket).
    case deviceWoke

    /// The event's name without its payload: the vocabulary of the transition table.
    public var kind: Kind {
        switch self {
        case .loginUncached: .loginUncached
        case .loginCached: .loginCached
        case .noUser: .noUser
        case .userCreated: .userCreated
        case .cancel: .cancel
        case .dismiss: .dismiss
        case .ready: .ready
        case .socketConnected: .socketConnected
        case .temporaryFailure: .temporaryFailure
        case .permanentFailure: .permanentFailure
        case .retry: .retry
        case .deviceOffline: .deviceOffline
        case .deviceOnline: .deviceOnline
        case .logout: .logout
        case .reconnectNow: .reconnectNow
        case .deviceWoke: .deviceWoke
        }
    }

    /// The name of a ``SessionEvent`` without its payload; the raw value is the specification's name.
    public enum Kind: String, Sendable, Hashable, CaseIterable, Codable {
        /// LOGIN_UNCACHED: credentials exchanged at the login interface.
        case loginUncached = "LOGIN_UNCACHED"
        /// LOGIN_CACHED: a cached session is used.
        case loginCached = "LOGIN_CACHED"
        /// NO_USER: onboarding is needed.
        case noUser = "NO_USER"
        /// USER_CREATED: onboarding finished.
        case userCreated = "USER_CREATED"
        /// CANCEL: onboarding was cancelled.
        case cancel = "CANCEL"
        /// DISMISS: the permanent error was dismissed.
        case dismiss = "DISMISS"
        /// READY: a new client is ready for a login.
        case ready = "READY"
        /// SOCKET_CONNECTED: connected and initial data loaded.
        case socketConnected = "SOCKET_CONNECTED"
        /// TEMPORARY_FAILURE: a failure that may heal.
        case temporaryFailure = "TEMPORARY_FAILURE"
        /// PERMANENT_FAILURE: the session is invalid.
        case permanentFailure = "PERMANENT_FAILURE"
        /// RETRY: the retry timer fired.
        case retry = "RETRY"
        /// DEVICE_OFFLINE: the device lost its network.
        case deviceOffline = "DEVICE_OFFLINE"
        /// DEVICE_ONLINE: the device's network came back.
        case deviceOnline = "DEVICE_ONLINE"
        /// LOGOUT: the session ended.
        case logout = "LOGOUT"
        /// RECONNECT_NOW (extension): the user asked to reconnect at once.
        case reconnectNow = "RECONNECT_NOW"
        /// DEVICE_WOKE (extension): the device woke from a suspend.
        case deviceWoke = "DEVICE_WOKE"

        /// Whether the specification defines this event (`false` for Lifeline's extensions).
        public var isSpec: Bool { self != .reconnectNow && self != .deviceWoke }
    }
}
