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
