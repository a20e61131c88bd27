/// How ``StoatClient`` catches up after each CONNECTED: how much it fetches per chat, how many requests it
/// keeps in flight, which messages it re-verifies.
///
/// Stoat has no resume and no sequence numbers; the catch-up compares each chat's `last_message_id` (from
/// `Ready`) with the newest message the cache holds and pages forward over REST (`after=`, oldest first). See
/// <doc:BuildingAStoatApp#Nothing-silently-lost>.
public struct CatchUpPolicy: Sendable, Hashable {
    /// Whether the client catches up at all. Off, a reconnect only marks histories stale (they are refetched
    /// when asked for) and no ``CatchUpReport`` is made.
    public var isEnabled: Bool
    /// How many forward pages one chat may take per CONNECTED before the catch-up fetches the chat's newest
    /// page instead and records a ``HistoryGap`` between (default 5: 500 messages missed in one chat).
    public var pagesPerChat: Int
    /// How many messages a page asks for, 1–100 (Stoat's limit; default 100).
    public var pageSize: Int
    /// How many catch-up requests are in flight at once (default 4): enough to overlap round trips, few enough
    /// that a whole population reconnecting does not burst the API. Each request also waits for its
    /// rate-limit bucket (stoatchat's `channels` bucket, 15 per 10 s per channel, shared with acks).
    public var fetchesInFlight: Int
    /// How many of a fetched chat's newest cached messages are re-verified for edits and deletions made while
    /// the socket was away (default 10); an open channel's whole cached history is.
    public var verifiedMessages: Int
    /// How many of the most recently active chats make the first screen, caught up (and re-verified) right
    /// after the open channels (default 10).
    public var firstScreen: Int
    /// How long after CONNECTED the second pass runs (default 33 s); zero runs none.
    ///
    /// stoatchat commits a channel's `last_message_id` from a debounced task about 6 s after its last message
    /// and 31 s at most for a busy one (a worker wakes each second), and publishes nothing when it does: `Ready`
    /// may not show a message posted in the half-minute before it. So the first pass trusts `Ready` for the
    /// chats it does not fetch, and the second reads the field again once every message from before `Ready` is
    /// committed — one `GET /servers/{id}?include_channels=true` per server and one `GET /users/dms` — and
    /// fetches the chats that moved. Every chat is right within 40 s of CONNECTED. Zero suits a server whose
    /// field is written with the message.
    public var settleDelay: Duration

    /// Creates a policy. Values are clamped to what the server accepts: at least one page and one fetch,
    /// pages of 1–100 messages.
    public init(
        isEnabled: Bool = true, pagesPerChat: Int = 5, pageSize: Int = 100, fetchesInFlight: Int = 4,
        verifiedMessages: Int = 10, firstScreen: Int = 10, settleDelay: Duration = .seconds(33)
    ) {
        self.isEnabled = isEnabled
        self.pagesPerChat = max(1, pagesPerChat)
        self.pageSize = min(100, max(1, pageSize))
        self.fetchesInFlight = max(1, fetchesInFlight)
        self.verifiedMessages = max(0, verifiedMessages)
        self.firstScreen = max(0, firstScreen)
        self.settleDelay = max(.zero, settleDelay)
    }

    /// The defaults: 5 pages of 100 per chat, 4 requests in flight, the 10 newest messages of each fetched chat
    /// re-verified, a first screen of 10 chats, a second pass 33 s after CONNECTED.
    public static let standard = CatchUpPolicy()

    /// No catch-up: histories are refetched when asked for, as before catch-up existed.
    public static let disabled = CatchUpPolicy(isEnabled: false)
}

/// What one CONNECTED's catch-up did, as ``StoatClient/catchUps`` reports it once per reconnect (the first
/// connection included).
public struct CatchUpReport: Sendable, Hashable {
    /// The chats fetched.
    public var channels: Int
    /// The messages the catch-up added that the client had not seen.
    public var messages: Int
    /// Whether every chat that needed it was caught up: false when the session disconnected mid-way (the next
    /// CONNECTED resumes where it stopped) or a chat could not be fetched, and false for a first pass that a
    /// second follows (a chat it trusted `Ready` for may still be behind).
    public var isComplete: Bool
    /// The gaps outstanding across all chats afterwards.
    public var gaps: Int
    /// The messages whose deletion or edit the re-verification found.
    public var verifiedChanges: Int
    /// Which pass of the CONNECTED's catch-up this is: 1 right after CONNECTED, 2 once `last_message_id` has
    /// settled (``CatchUpPolicy/settleDelay``). Only the last can be complete.
    public var pass: Int
    /// What the catch-up found in each chat it fetched, by channel id: where a screen draws "caught up: N
    /// messages" in the chat's timeline.
    public var chats: [String: ChatCatchUp]

    /// Creates a report.
    public init(
        channels: Int, messages: Int, isComplete: Bool, gaps: Int, verifiedChanges: Int = 0, pass: Int = 1,
        chats: [String: ChatCatchUp] = [:]
    ) {
        self.pass = pass
        self.channels = channels
        self.messages = messages
        self.isComplete = isComplete
        self.gaps = gaps
        self.verifiedChanges = verifiedChanges
        self.chats = chats
    }
}

/// What one catch-up found in one chat (``CatchUpReport/chats``, ``ChannelModel/lastCatchUp``).
public struct ChatCatchUp: Sendable, Hashable {
    /// The messages it added that the client had not seen (each reached ``StoatClient/messages`` as caught up).
    public var messages: Int
    /// The oldest of them: a timeline's "caught up" marker goes above it. `nil` when it found none.
    public var oldestFound: String?

    /// Creates a chat's part of a report.
    public init(messages: Int, oldestFound: String? = nil) {
        self.messages = messages
        self.oldestFound = oldestFound
    }
}
