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
    /// Send a file by its path with a text (empty for the file alone) through the outbox.
    case attach(channel: String, text: String, path: String)
    /// Jump to the channel's first unread message (the model loads the history around it).
    case jumpToFirstUnread(channel: String)
    /// Load the page after the stretch jumped to, scrolling down towards the newest messages.
    case loadNewer(channel: String)
    /// Edit one of the user's messages (through the outbox: shown at once, undone if refused).
    case edit(channel: String, message: String, text: String)
    /// Delete a message (through the outbox), once the user confirmed it.
    case delete(channel: String, message: String)
    /// React to a message with an emoji (through the outbox).
    case react(channel: String, message: String, emoji: String)
    /// Take the user's reaction to a message back (through the outbox).
    case unreact(channel: String, message: String, emoji: String)
    /// Keep the composer's text as the channel's draft (in the account's store, so a restart keeps it).
    case keepDraft(channel: String, text: String)
    /// Send a failed message, or a failed edit, deletion or reaction, again.
    case resend(nonce: String)
    /// Drop a queued or failed message, or a failed action: the user's word.
    case discard(nonce: String)
    /// Show a server's member list (its model runs while it shows), or none.
    case showMembers(server: String?)
    /// Inject a fault into the embedded demo world.
    case fault(DemoFault)
}
