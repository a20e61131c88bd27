/// What `GET /channels/{id}/messages` answers: the messages and, when asked with
/// ``MessageQuery/includeUsers``, their authors and memberships.
///
/// stoatchat answers a bare array of messages, or `{messages, users, members?}` with `include_users`;
/// both decode into this, with empty ``users`` and ``members`` for the first.
public struct MessagesPage: Sendable, Hashable, Decodable {
    /// The messages, in the query's order.
    public var messages: [Message]
    /// The authors, when asked for.
    public var users: [User]
    /// The authors' memberships, when asked for in a server channel.
    public var members: [Member]

    /// Creates a page.
    public init(messages: [Message], users: [User] = [], members: [Member] = []) {
        self.messages = messages
        self.users = users
        self.members = members
    }

    enum CodingKeys: String, CodingKey {
        case messages, users, members
    }

    /// Decodes either answer shape.
    public init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var messages: [Message] = []
            while !array.isAtEnd { messages.append(try array.decode(Message.self)) }
            self.init(messages: messages)
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            messages: try container.decode([Message].self, forKey: .messages),
            users: try container.decodeIfPresent([User].self, forKey: .users) ?? [],
            members: try container.decodeIfPresent([Member].self, forKey: .members) ?? [])
    }
}
