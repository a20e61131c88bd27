public import LifelineStoatStore
public import LifelineTerminal

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Everything a screen of `lifeline chat` is drawn from: the library's values (``models``) and the client's own
/// UI state (the composer, the scroll position, the overlay, the login form…).
///
/// A value: ``ChatReducer`` changes it for each ``ChatEvent`` and returns the ``ChatEffect``s to run, and
/// ``ChatScreen`` draws it; neither does any I/O, so both are tested without a terminal or a network.
public struct ChatState: Hashable, Sendable {
    /// Where the program's server comes from: an embedded demo world, or a real server.
    public enum Mode: Hashable, Sendable {
        /// The embedded reference server with its simulated users: the screen says so, and the help lists the
        /// fault keys.
        case demo
        /// A server by its API URL.
        case server
    }

    /// An overlay drawn over the client's screen.
    public enum Overlay: Hashable, Sendable {
        /// The keys (and the demo's fault keys).
        case help
        /// The cause of the session's last failure.
        case lastFailure
    }

    /// Where the timeline is scrolled to.
    public enum ScrollPosition: Hashable, Sendable {
        /// Following the newest messages.
        case bottom
        /// The timeline's first visible row is `line` rows below the first row of the item `item` (a message or
        /// a gap); negative: above it. Anchored to an item, the view stays put while messages arrive below and
        /// older pages load above.
        case anchored(item: String, line: Int)
    }

    /// What the composer's text is for: a message to send, or an action on a selected message.
    public enum Compose: Hashable, Sendable {
        /// A new message (the channel's draft).
        case message
        /// The new text of a message (Alt-E): Enter edits it.
        case edit(message: String)
        /// An emoji to react to a message with (Alt-A), or to take back (Alt-U): typed, or picked with Tab from
        /// the choices the picker shows (``ChatState/reactionChoices``, or the user's own reactions); Enter sends it.
        case reaction(message: String, remove: Bool)
        /// A file's path to attach (Ctrl-O): Enter sends the file with the text put aside (``composerAside``).
        case attach
    }

    /// The emoji the reaction picker offers (Alt-A), in order.
    public static let reactionChoices = ["👍", "❤️", "😂", "🎉", "😮", "😢", "👀", "✅"]

    /// The login screen's fields.
    public struct LoginForm: Hashable, Sendable {
        /// A field of the login screen.
        public enum Field: Hashable, Sendable {
            /// The list of accounts kept on this device.
            case account
            /// The email.
            case email
            /// The password.
            case password
            /// The second factor's code.
            case code
        }

        /// The email typed.
        public var email: Composer
        /// The password typed (drawn as dots, never kept beyond the sign-in).
        public var password = Composer()
        /// The second factor's code typed.
        public var code = Composer()
        /// The field the keys type into.
        public var focus: Field
        /// The account picked in the list of accounts kept on this device.
        public var account = 0

        /// A form with an email filled in (or none).
        public init(email: String = "", focus: Field = .email) {
            self.email = Composer(email)
            self.focus = focus
        }
    }

    /// The library's values.
    public var models: ChatModels
    /// The terminal's size.
    public var size: TerminalSize
    /// The device's time, for the countdowns.
    public var now: Date
    /// The time zone messages' times are shown in.
    public var timeZone: TimeZone
    /// Where the server comes from.
    public var mode: Mode
    /// The composer.
    public var composer = Composer()
    /// The overlay shown, if any.
    public var overlay: Overlay?
    /// The member list is shown beside the timeline.
    public var showsMembers = false
    /// Where the timeline is scrolled to.
    public var scroll = ScrollPosition.bottom
    /// The channel the person chose to show (the program opens its model; ``ChannelView`` follows).
    public var openChannel: String?
    /// The open channel was picked at start without knowing any chat's last message (the first server's first
    /// channel): until the person does anything, the first chat whose last message becomes known replaces it.
    public var firstChatIsProvisional = false
    /// The message the next send replies to.
    public var replyTo: String?
    /// The timeline item selected (Ctrl-↑/Ctrl-↓): a message, or a pending send, by its item id.
    public var selection: String?
    /// What the composer's text is for.
    public var compose = Compose.message
    /// The composer as it was before an edit or a reaction took it: given back when that ends.
    public var composerAside: Composer?
    /// The emoji picked in the reaction picker: an index of the choices the picker shows.
    public var reactionPick = 0
    /// Alt-J asked for the first unread message: the timeline scrolls to it once the model names it.
    public var jumpingToFirstUnread = false
    /// The message whose deletion waits for the user's confirmation (Alt-D, then Enter).
    public var confirmingDeletion: String?
    /// The channel whose draft the composer holds; `nil` until the open channel's values arrive.
    public var draftChannel: String?
    /// The draft last kept for ``draftChannel`` (what the composer held, or what the library gave).
    public var keptDraft = ""
    /// The newest message id that was on screen in the open channel: newer ones make the "new messages below"
    /// hint while scrolled up.
    public var newestSeen: String?
    /// The message each channel was acknowledged up to by this client, so each acknowledgement is sent once.
    public var acknowledged: [String: String] = [:]
    /// When the user's typing was last sent.
    public var typingSent: Date?
    /// The login form.
    public var login: LoginForm
    /// The username typed in ONBOARDING.
    public var username = Composer()
    /// Lines the login screen adds under its title (the demo world's accounts and passwords, which are no secret).
    public var loginHints: [String] = []
    /// The password the login form starts with each time it shows: the demo world's (shown on screen, no secret),
    /// else empty — a password typed for a server is never kept past its sign-in.
    public var loginPassword = ""

    /// A state before any key.
    ///
    /// - Parameters:
    ///   - models: The library's values.
    ///   - size: The terminal's size.
    ///   - now: The device's time.
    ///   - timeZone: The time zone for messages' times (tests pass UTC).
    ///   - mode: The demo world, or a server.
    ///   - email: An email to fill the login form with.
    public init(
        models: ChatModels, size: TerminalSize, now: Date, timeZone: TimeZone = .current, mode: Mode = .server,
        email: String = ""
    ) {
        self.models = models
        self.size = size
        self.now = now
        self.timeZone = timeZone
        self.mode = mode
        login = LoginForm(email: email, focus: models.signIn.accounts.isEmpty || !email.isEmpty ? .email : .account)
    }

    /// The chat shown, as the chat list holds it.
    public var openChat: Chat? { openChannel.flatMap { id in models.chats.first { $0.id == id } } }

    /// The open channel's values, when the model shown is the open channel's.
    public var channel: ChannelView? {
        guard let channel = models.channel, channel.id == openChannel else { return nil }
        return channel
    }
}
