public import Observation

/// A server's member list for SwiftUI: each member with the name to show, sorted by it.
///
/// Made by ``StoatClientModel/members(of:)``; run it while the list shows: it fetches the list when the cache's
/// is stale (``StoatClient/members(of:)``) and follows every change.
@MainActor
@Observable
public final class MemberListModel {
    /// A member as the list shows it.
    public struct Row: Sendable, Hashable, Identifiable {
        /// The user's id.
        public var id: String
        /// The name to show: the nickname in the server, the display name, the username, else the id.
        public var name: String
        /// The membership (roles, timeout…).
        public var member: Member
        /// The user, when the client knows them.
        public var user: User?

        /// A row from its parts (the model makes its own; an app's previews and tests make theirs).
        ///
        /// - Parameters:
        ///   - id: The user's id.
        ///   - name: The name to show.
        ///   - member: The membership.
        ///   - user: The user, when known.
        public init(id: String, name: String, member: Member, user: User? = nil) {
            self.id = id
            self.name = name
            self.member = member
            self.user = user
        }
    }

    /// The server's id.
    public let serverID: String
    /// The members, sorted by name.
    public private(set) var rows: [Row] = []
    /// Whether the list may be out of date (not fetched since the last reconnect).
    public private(set) var isStale = true

    /// The client the model follows.
    @ObservationIgnored public let client: StoatClient

    init(client: StoatClient, server: String) {
        self.client = client
        serverID = server
        apply(client.cachedMembers(of: server))
    }

    /// Fetches the list if stale, then follows it until the calling task is cancelled.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { _ = await self.client.members(of: self.serverID) }
            group.addTask { await self.followList() }
        }
    }

    private func followList() async {
        for await list in client.memberUpdates(of: serverID) { apply(list) }
    }

    private func apply(_ list: MemberList) {
        let users = list.members.map { client.user($0.id.user) }
        let rows = zip(list.members, users).map { member, user in
            Row(
                id: member.id.user,
                name: member.nickname ?? user.map { $0.displayName ?? $0.username } ?? member.id.user,
                member: member, user: user)
        }
        .sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
        if rows != self.rows { self.rows = rows }
        if list.isStale != isStale { isStale = list.isStale }
    }
}
