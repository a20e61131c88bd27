/// A node of the session lifecycle: where a session is, and therefore what the interface shows.
///
/// The ten states are exactly the nodes of the Stoat session-lifecycle specification. Five of them are
/// *logged in* (the client UI is shown, perhaps with a banner); five are *logged out* (the sign-in flow
/// or a loading indicator is shown). The raw value is the specification's own name, as printed by
/// `lifeline spec` and in `--json` output.
public enum SessionState: String, Sendable, Hashable, CaseIterable, Codable {
    /// The login interface is shown, waiting for the user to sign in.
    ///
    /// Can transition to: ``loggingIn`` (LOGIN_UNCACHED), ``connecting`` (LOGIN_CACHED).
    case ready = "READY"

    /// A loading indicator is shown while a fresh session is authenticated: the onboarding check, then the
    /// socket until the initial data has loaded.
    ///
    /// Can transition to: ``onboarding`` (NO_USER), ``error`` (PERMANENT_FAILURE, TEMPORARY_FAILURE),
    /// ``connected`` (SOCKET_CONNECTED).
    case loggingIn = "LOGGING_IN"

    /// The username selection is shown: the account has no user yet.
    ///
    /// Can transition to: ``loggingIn`` (USER_CREATED), ``dispose`` (CANCEL).
    case onboarding = "ONBOARDING"

    /// The permanent error is shown, tailored to the account's state, with an option to dismiss it.
    ///
    /// Can transition to: ``dispose`` (DISMISS).
    case error = "ERROR"

    /// A loading indicator is shown while the current client is disposed of and a new one created.
    ///
    /// Can transition to: ``ready`` (READY).
    case dispose = "DISPOSE"

    /// The client UI is shown with the banner "Connecting" while the socket connects with a cached session.
    ///
    /// Can transition to: ``connected`` (SOCKET_CONNECTED), ``disconnected`` (TEMPORARY_FAILURE),
    /// ``error`` (PERMANENT_FAILURE), ``dispose`` (LOGOUT).
    case connecting = "CONNECTING"

    /// The client UI is shown; the socket is up and the initial data has loaded.
    ///
    /// Can transition to: ``disconnected`` (TEMPORARY_FAILURE), ``dispose`` (LOGOUT).
    case connected = "CONNECTED"

    /// The client UI is shown with the banner "Disconnected" while the retry timer runs.
    ///
    /// Can transition to: ``reconnecting`` (RETRY), ``offline`` (DEVICE_OFFLINE), ``dispose`` (LOGOUT).
    case disconnected = "DISCONNECTED"

    /// The client UI is shown with the banner "Reconnecting": cached data was invalidated and the socket
    /// connects again.
    ///
    /// Can transition to: ``connected`` (SOCKET_CONNECTED), ``disconnected`` (TEMPORARY_FAILURE),
    /// ``error`` (PERMANENT_FAILURE), ``dispose`` (LOGOUT).
    case reconnecting = "RECONNECTING"

    /// The client UI is shown with the banner "Device offline" until the device's network comes back.
    ///
    /// Can transition to: ``reconnecting`` (DEVICE_ONLINE; RETRY as an extension), ``dispose`` (LOGOUT).
    case offline = "OFFLINE"

    /// Whether the state belongs to the specification's "Logged In" group, where the client UI is shown.
    public var isLoggedIn: Bool {
        switch self {
        case .connecting, .connected, .disconnected, .reconnecting, .offline: true
        case .ready, .loggingIn, .onboarding, .error, .dispose: false
        }
    }
}
