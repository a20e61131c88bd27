/// What the chat's reducer asks the program to do: calls on the client and its models, or the program's own.
///
/// The reducer never does any of it itself, so its tests read the effects a key leads to.
public enum ChatEffect: Hashable, Sendable {
    /// Leave the program (the terminal is restored).
    case quit
    /// Sign in with an email and a password (the first time on this device, or an account not listed).
    case signIn(email: String, password: String)
    /// Sign in to an account kept on this device, with its password.
    case signInStored(account: String, password: String)
    /// Answer the second factor the last sign-in asked for.
    case submitCode(String)
    /// Answer ONBOARDING with a username.
    case submitUsername(String)
    /// Leave ONBOARDING without a username (CANCEL).
    case cancelOnboarding
    /// Dismiss the permanent error (DISMISS).
    case dismissError
    /// Connect now instead of waiting for the countdown.
    case connectNow
    /// Log out.
    case logOut
    /// Show a channel: its model runs while it is shown.
    case open(channel: String)
    /// Load the page before the oldest message shown, the newest gap first.
    case loadOlder(channel: String)
    /// Acknowledge a channel up to a message that has been on screen.
    case ack(channel: String, message: String)
    /// Tell the channel the user is typing.
    case typing(channel: String)
    /// Send a message through the outbox, perhaps as a reply.
    case send(channel: String, text: String, replyTo: String?)
    /// Send a failed message again.
    case resend(nonce: String)
    /// Drop a queued or failed message: the user's word.
    case discard(nonce: String)
    /// Show a server's member list (its model runs while it shows), or none.
    case showMembers(server: String?)
    /// Inject a fault into the embedded demo world.
    case fault(DemoFault)
}
