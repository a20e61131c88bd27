public import LifelineStoatStore

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The library's values a screen shows, read from its models (`StoatClientModel`, `ChannelModel`,
/// `MemberListModel`, `SignInModel`) each time they change: the part of ``ChatState`` the client does not own.
public struct ChatModels: Hashable, Sendable {
    /// The session's latest snapshot: its state, presentation, failures, last error.
    public var session: SessionSnapshot
    /// When the session retries, on the device's clock, while DISCONNECTED waits (`StoatClientModel/retryDate`).
    public var retryDate: Date?
    /// The session's last failure, kept after it recovers (`StoatClientModel/lastFailure`).
    public var lastFailure: SessionError?
    /// When ``lastFailure`` arrived, on the device's clock.
    public var lastFailureDate: Date?
    /// The signed-in user's id, once known.
    public var currentUserID: String?
    /// The signed-in user's name, once known.
    public var currentUserName: String?
    /// The account's chats, most recently active first.
    public var chats: [Chat]
    /// The servers' names by id, for the chat list's headings.
    public var serverNames: [String: String]
    /// The open channel, while one is shown.
    public var channel: ChannelView?
    /// The member list, while it shows.
    public var members: MemberListView?
    /// The login screen's values.
    public var signIn: SignInView

    /// Values from their parts.
    public init(
        session: SessionSnapshot, retryDate: Date? = nil, lastFailure: SessionError? = nil,
        lastFailureDate: Date? = nil, currentUserID: String? = nil, currentUserName: String? = nil,
        chats: [Chat] = [], serverNames: [String: String] = [:], channel: ChannelView? = nil,
        members: MemberListView? = nil, signIn: SignInView = SignInView()
    ) {
        self.session = session
        self.retryDate = retryDate
        self.lastFailure = lastFailure ?? session.lastError
        self.lastFailureDate = lastFailureDate
        self.currentUserID = currentUserID
        self.currentUserName = currentUserName
        self.chats = chats
        self.serverNames = serverNames
        self.channel = channel
        self.members = members
        self.signIn = signIn
    }
}

/// One channel's screen as `ChannelModel` gives it: its shown history with gaps, the user's pending sends,
/// who is typing, the deadlines, the last catch-up.
public struct ChannelView: Hashable, Sendable {
    /// The channel's id.
    public var id: String
    /// The shown history, oldest first (`ChannelModel/messages`).
    public var messages: [Message]
    /// The holes in it (`ChannelModel/gaps`).
    public var gaps: [HistoryGap]
    /// Whether it may miss messages no gap records (`ChannelModel/isStale`).
    public var isStale: Bool
    /// Whether an older page is being fetched.
    public var isLoadingOlder: Bool
    /// Whether the channel's first message is shown.
    public var reachedStart: Bool
    /// The user's sends the server has not confirmed, in order.
    public var pending: [OutboxEntry]
    /// The names of the users typing now.
    public var typing: [String]
    /// Until when a slowmode holds the next send back.
    public var slowmodeUntil: Date?
    /// Until when the user is timed out in the channel's server.
    public var timeoutUntil: Date?
    /// The last failure of a send or a page, for a line under the timeline.
    public var lastError: String?
    /// What the last catch-up found in this channel (`ChannelModel/lastCatchUp`).
    public var catchUp: ChatCatchUp?
    /// The newest message the user had read when the channel was opened: the unread divider goes after it.
    public var lastRead: String?
    /// The name to show for each message's author, by message id (`ChannelModel/authorName(of:)`).
    public var authorNames: [String: String]
    /// The user's edits, deletions, reactions and unreactions the server has not confirmed, in order
    /// (`ChannelModel/pendingActions`); ``messages`` already show those in force (`ChannelModel/displayed(_:)`).
    public var actions: [OutboxEntry]
    /// The channel's draft as the library keeps it (`ChannelModel/draft`): the composer starts from it.
    public var draft: String
    /// The first unread message (`ChannelModel/firstUnread`), where Alt-J scrolls to.
    public var firstUnread: String?
    /// The newest message of the stretch jumped to while a gap parts it from the newest messages
    /// (`ChannelModel/island`): scrolling down past it loads newer pages.
    public var islandLast: String?
    /// Whether a newer page is being fetched (`ChannelModel/isLoadingNewer`).
    public var isLoadingNewer: Bool

    /// A channel's view from its parts.
    public init(
        id: String, messages: [Message] = [], gaps: [HistoryGap] = [], isStale: Bool = false,
        isLoadingOlder: Bool = false, reachedStart: Bool = false, pending: [OutboxEntry] = [], typing: [String] = [],
        slowmodeUntil: Date? = nil, timeoutUntil: Date? = nil, lastError: String? = nil, catchUp: ChatCatchUp? = nil,
        lastRead: String? = nil, authorNames: [String: String] = [:], actions: [OutboxEntry] = [], draft: String = "",
        firstUnread: String? = nil, islandLast: String? = nil, isLoadingNewer: Bool = false
    ) {
        self.id = id
        self.messages = messages
        self.gaps = gaps
        self.isStale = isStale
        self.isLoadingOlder = isLoadingOlder
        self.reachedStart = reachedStart
        self.pending = pending
        self.typing = typing
        self.slowmodeUntil = slowmodeUntil
        self.timeoutUntil = timeoutUntil
        self.lastError = lastError
        self.catchUp = catchUp
        self.lastRead = lastRead
        self.authorNames = authorNames
        self.actions = actions
        self.draft = draft
        self.firstUnread = firstUnread
        self.islandLast = islandLast
        self.isLoadingNewer = isLoadingNewer
    }

    /// The messages being deleted: a deletion in force (`ChannelModel/pendingDeletions`).
    public var pendingDeletions: Set<String> {
        Set(actionsInForce.filter { $0.kind == .delete }.compactMap(\.target))
    }

    /// The messages with an edit in force (`ChannelModel/pendingEdits`).
    public var pendingEdits: Set<String> {
        Set(actionsInForce.filter { $0.kind == .edit }.compactMap(\.target))
    }

    /// The reactions and unreactions in force, in order (`ChannelModel/pendingReactions`).
    public var pendingReactions: [OutboxEntry] {
        actionsInForce.filter { $0.kind == .react || $0.kind == .unreact }
    }

    /// The actions the server refused, with its reason (`ChannelModel/failedActions`).
    public var failedActions: [OutboxEntry] {
        actions.filter { if case .failed = $0.state { true } else { false } }
    }

    private var actionsInForce: [OutboxEntry] {
        actions.filter { if case .failed = $0.state { false } else { true } }
    }
}

/// A server's member list as `MemberListModel` gives it.
public struct MemberListView: Hashable, Sendable {
    /// The server's id.
    public var serverID: String
    /// The members, sorted by name.
    public var rows: [MemberListModel.Row]
    /// Whether the list may be out of date.
    public var isStale: Bool

    /// A list from its parts.
    public init(serverID: String, rows: [MemberListModel.Row], isStale: Bool) {
        self.serverID = serverID
        self.rows = rows
        self.isStale = isStale
    }
}

/// The login screen's values: the accounts kept on this device, the second factor asked for, the sign-in in
/// flight and what its outcome says beyond the session's notice.
public struct SignInView: Hashable, Sendable {
    /// The accounts this device keeps for the server, most recently used first.
    public var accounts: [StoredAccount]
    /// The second factor the last sign-in asks for, by the methods' names; `nil` when none is asked.
    public var secondFactor: [String]?
    /// Whether a sign-in is in flight.
    public var isSigningIn: Bool
    /// What the last sign-in's outcome says that the session's notice does not (a store that cannot be opened).
    public var outcome: String?
    /// The server signed in to, as the login screen names it.
    public var server: String

    /// A login screen's values from their parts.
    public init(
        accounts: [StoredAccount] = [], secondFactor: [String]? = nil, isSigningIn: Bool = false,
        outcome: String? = nil, server: String = ""
    ) {
        self.accounts = accounts
        self.secondFactor = secondFactor
        self.isSigningIn = isSigningIn
        self.outcome = outcome
        self.server = server
    }
}
