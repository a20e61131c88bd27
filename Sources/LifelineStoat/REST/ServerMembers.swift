/// What `GET /servers/{id}/members` answers: every member of a server and their users.
public struct ServerMembers: Sendable, Hashable, Decodable {
    /// The members.
    public var members: [Member]
    /// Their users.
    public var users: [User]

    /// Creates a member list.
    public init(members: [Member], users: [User]) {
        self.members = members
        self.users = users
    }
}
