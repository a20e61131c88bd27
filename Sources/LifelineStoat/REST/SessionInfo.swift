/// One of the account's sessions, as `GET /auth/session/all` lists them.
public struct SessionInfo: Sendable, Hashable, Decodable, Identifiable {
    /// The session's id (`_id`).
    public var id: String
    /// Its friendly name.
    public var name: String

    /// Creates a session description.
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }

    enum CodingKeys: String, CodingKey {
        case id = "_id"
        case name
    }
}
