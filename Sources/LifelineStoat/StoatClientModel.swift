public import Lifeline
public import LifelineCore
public import Observation

/// A ``StoatClient`` for SwiftUI: the session's presentation, the account's chats and its outbox as
/// `@Observable` properties on the main actor.
///
/// ```swift
/// @State var model = StoatClientModel(client: client)
///
/// var body: some View {
///     ChatList(chats: model.chats, banner: model.presentation.banner)
///         .task { await model.run() }
/// }
/// ```
///
/// The model follows the client while ``run()`` runs; a view reads its properties, and SwiftUI redraws
/// what read a property that changed. Observation works on Linux too, where Lifeline's tests check it.
@MainActor
@Observable
public final class StoatClientModel {
    /// The session's latest snapshot: its state, presentation, failures, last error.
    public private(set) var snapshot: SessionSnapshot
    /// The account's chats, most recently active first.
    public private(set) var chats: [Chat]
    /// The outbox: the messages the user sent that the server has not confirmed, `queued`, `sending` or
    /// `failed`, in the order they were queued (``StoatClient/outbox``).
    public private(set) var outbox: [OutboxEntry]

    /// What the interface shows now.
    public var presentation: Presentation { snapshot.presentation }

    /// The messages to show as pending in a channel, below its history: its outbox entries, in order.
    ///
    /// - Parameter channel: The channel's id.
    public func pendingMessages(in channel: String) -> [OutboxEntry] {
        outbox.filter { $0.channel == channel }
    }

    /// The client the model follows.
    @ObservationIgnored public let client: StoatClient

    /// Creates a model showing the client's current snapshot and chats.
    ///
    /// - Parameter client: The client to follow.
    public init(client: StoatClient) {
        self.client = client
        snapshot = client.session.snapshot
        chats = client.chats
        outbox = client.outbox
    }

    /// Follows the client's session and chats until the calling task is cancelled.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.followSession() }
            group.addTask { await self.followChats() }
            group.addTask { await self.followOutbox() }
        }
    }

    private func followSession() async {
        for await snapshot in client.session.states where snapshot != self.snapshot {
            self.snapshot = snapshot
        }
    }

    private func followOutbox() async {
        for await outbox in client.outboxUpdates where outbox != self.outbox {
            self.outbox = outbox
        }
    }

    private func followChats() async {
        for await chats in client.chatUpdates where chats != self.chats {
            self.chats = chats
        }
    }
}
