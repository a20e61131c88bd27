public import Lifeline
public import LifelineCore
public import Observation

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A ``StoatClient`` for SwiftUI: the session (state, banner, notice, the retry countdown as a date, its
/// actions), the signed-in user and the account's chats, with their unread flags, mentions and last messages, as
/// `@Observable` properties on the main actor; ``channel(_:)`` and ``members(of:)`` make the models of one
/// channel's screen and one server's member list.
///
/// ```swift
/// @State var model = StoatClientModel(client: client)
///
/// var body: some View {
///     ChatList(chats: model.chats, banner: model.banner)
///         .task { await model.run() }
/// }
/// ```
///
/// The model follows the client while ``run()`` runs; a view reads its properties, and SwiftUI redraws what read
/// a property that changed. Each property is assigned only when its value changes, so an observer is told once
/// per change a view would show — never for a snapshot that differs only in what no property shows (its time,
/// its transitions). Observation works on Linux too, where Lifeline's tests check it.
@MainActor
@Observable
public final class StoatClientModel {
    /// The session's latest snapshot: its state, presentation, failures, last error. Changes with every snapshot
    /// the session publishes; a view reads ``state``, ``presentation``, ``banner``… to redraw less often.
    public private(set) var snapshot: SessionSnapshot
    /// The lifecycle state.
    public private(set) var state: SessionState
    /// What the interface shows now: the screen, the banner, the notice, an outage alert.
    public private(set) var presentation: Presentation
    /// When the session will try to reconnect, on the device's clock, while DISCONNECTED waits to retry: the
    /// banner's countdown (`Text(retryDate, style: .timer)`). Computed when the snapshot arrives, from the
    /// session's own clock: the countdown never depends on the device's clock being right.
    public private(set) var retryDate: Date?
    /// The session's last failure, kept after the session recovers: a snapshot's `lastError` is cleared at
    /// CONNECTED, so a "why did it drop?" control reads this one. Nil until the first failure; a failure the
    /// observer received only as a transition's cause (two snapshots merged) counts too.
    public private(set) var lastFailure: SessionError?
    /// When ``lastFailure`` arrived, on the device's clock.
    public private(set) var lastFailureDate: Date?
    /// The signed-in user, once known (``StoatClient/currentUser``).
    public private(set) var currentUser: User?
    /// The account's chats, most recently active first, each with its unread flag, mention count and last
    /// message (``Chat``). Filled from the store at sign-in, and from `Ready` for an account that has none yet.
    public private(set) var chats: [Chat]
    /// The outbox: the messages the user sent, and the user's actions on messages (edits, deletions, reactions,
    /// unreactions: ``OutboxEntry/kind``), that the server has not confirmed, `queued`, `sending` or `failed`,
    /// in the order they were queued (``StoatClient/outbox``).
    public private(set) var outbox: [OutboxEntry]

    /// The banner to show above the content, if any ("Connecting", "Disconnected"…).
    public var banner: Banner? { presentation.banner }
    /// The notice to show, if any (a login refused, an external logout…).
    public var notice: Notice? { presentation.notice }
    /// How many chats have messages the user has not acknowledged.
    public var unreadChats: Int { chats.count { $0.isUnread } }

    /// The messages to show as pending in a channel, below its history: its outbox sends, in order.
    ///
    /// - Parameter channel: The channel's id.
    public func pendingMessages(in channel: String) -> [OutboxEntry] {
        outbox.filter { $0.channel == channel && $0.kind == .send }
    }

    /// The user's actions on messages in a channel not confirmed yet (``ChannelModel/pendingActions``): to mark
    /// the messages they act on in a list of chats or a notification.
    ///
    /// - Parameter channel: The channel's id.
    public func pendingActions(in channel: String) -> [OutboxEntry] {
        outbox.filter { $0.channel == channel && $0.kind != .send }
    }

    /// The client the model follows.
    @ObservationIgnored public let client: StoatClient
    /// The device's clock, for ``retryDate``.
    @ObservationIgnored let now: @Sendable () -> Date

    /// Creates a model showing the client's current snapshot and chats.
    ///
    /// - Parameters:
    ///   - client: The client to follow.
    ///   - now: The device's clock (tests pass a fixed one).
    public init(client: StoatClient, now: @escaping @Sendable () -> Date = { Date() }) {
        self.client = client
        self.now = now
        let snapshot = client.session.snapshot
        self.snapshot = snapshot
        state = snapshot.state
        presentation = snapshot.presentation
        retryDate = Self.retryDate(of: snapshot, receivedAt: now())
        lastFailure = snapshot.lastError
        lastFailureDate = snapshot.lastError.map { _ in now() }
        currentUser = client.currentUser
        chats = client.chats
        outbox = client.outbox
    }

    /// Follows the client's session, chats and outbox until the calling task is cancelled.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.followSession() }
            group.addTask { await self.followChats() }
            group.addTask { await self.followOutbox() }
        }
    }

    // MARK: - Actions

    /// Reconnects now instead of waiting for the countdown: the banner's "Reconnect now".
    ///
    /// - Returns: Whether the session was waiting to retry.
    @discardableResult
    public func reconnectNow() async -> Bool { await client.reconnectNow() }

    /// Logs out: the server's session ends, the cache is discarded.
    ///
    /// - Returns: Whether there was a session to log out of.
    @discardableResult
    public func logOut() async -> Bool { await client.logOut() }

    /// Dismisses the notice READY shows after a failure.
    ///
    /// - Returns: Whether there was one.
    @discardableResult
    public func dismissError() async -> Bool { await client.dismissError() }

    // MARK: - Screens

    /// The model of one channel's screen: its history, composer and deadlines. Run it (``ChannelModel/run()``)
    /// while the screen shows.
    ///
    /// - Parameter channel: The channel's id.
    public func channel(_ channel: String) -> ChannelModel {
        ChannelModel(client: client, channel: channel, now: now)
    }

    /// The model of a server's member list, with names. Run it (``MemberListModel/run()``) while it shows.
    ///
    /// - Parameter server: The server's id.
    public func members(of server: String) -> MemberListModel {
        MemberListModel(client: client, server: server)
    }

    // MARK: - Following the client

    /// When a snapshot's retry timer fires on the device's clock: the countdown it states (on the session's
    /// clock, from when it was taken) added to `receivedAt`.
    nonisolated static func retryDate(of snapshot: SessionSnapshot, receivedAt: Date) -> Date? {
        guard let nextRetry = snapshot.nextRetry else { return nil }
        let countdown = max(.zero, nextRetry - snapshot.time)
        let (seconds, attoseconds) = countdown.components
        return receivedAt.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
    }

    private func followSession() async {
        for await snapshot in client.session.states {
            apply(snapshot)
        }
    }

    /// Assigns what changed, and only that.
    func apply(_ snapshot: SessionSnapshot) {
        let previousRetry = self.snapshot.nextRetry
        // Each transition with a cause is a failure of its own (the same cause twice is two failures); an error
        // without a transition (an onboarding refusal) is new when the snapshot's last error changed.
        if let cause = snapshot.transitions.last(where: { $0.cause != nil })?.cause {
            noteFailure(SessionError(cause))
        } else if let error = snapshot.lastError, error != self.snapshot.lastError {
            noteFailure(error)
        }
        if snapshot != self.snapshot { self.snapshot = snapshot }
        if snapshot.state != state { state = snapshot.state }
        if snapshot.presentation != presentation { presentation = snapshot.presentation }
        // A new date only for a new timer: the same timer restated keeps its date.
        if snapshot.nextRetry == nil {
            if retryDate != nil { retryDate = nil }
        } else if retryDate == nil || previousRetry != snapshot.nextRetry {
            retryDate = Self.retryDate(of: snapshot, receivedAt: now())
        }
        let user = client.currentUser
        if user != currentUser { currentUser = user }
    }

    private func noteFailure(_ error: SessionError) {
        lastFailure = error
        lastFailureDate = now()
    }

    private func followOutbox() async {
        for await outbox in client.outboxUpdates where outbox != self.outbox {
            self.outbox = outbox
        }
    }

    private func followChats() async {
        for await chats in client.chatUpdates {
            if chats != self.chats { self.chats = chats }
            let user = client.currentUser
            if user != currentUser { currentUser = user }
        }
    }
}
