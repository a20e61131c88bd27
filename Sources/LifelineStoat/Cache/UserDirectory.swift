/// The users the client fetched to name authors the cache does not know, bounded: the least recently named
/// user is forgotten first once ``capacity`` are kept.
///
/// Pure: the client's lock owns it, and a fetch in flight is shared by every caller asking for the same id.
/// A user the account cache knows (from `Ready`, a page, a member list) is never kept here: the cache follows
/// its `UserUpdate` events, which this directory does not see.
struct UserDirectory: Sendable {
    /// How many fetched users are kept.
    let capacity: Int
    private var users: [String: User] = [:]
    /// The ids, least recently used first.
    private var order: [String] = []

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many users are kept.
    var count: Int { users.count }

    /// The user with this id, if kept; marks it the most recently used.
    mutating func user(_ id: String) -> User? {
        guard let user = users[id] else { return nil }
        touch(id)
        return user
    }

    /// Keeps a fetched user, forgetting the least recently used one past the capacity.
    mutating func keep(_ user: User) {
        if users.updateValue(user, forKey: user.id) != nil {
            touch(user.id)
            return
        }
        order.append(user.id)
        while order.count > capacity {
            users.removeValue(forKey: order.removeFirst())
        }
    }

    /// Forgets every user (a new session may see other users).
    mutating func removeAll() {
        users = [:]
        order = []
    }

    private mutating func touch(_ id: String) {
        if let index = order.firstIndex(of: id) { order.remove(at: index) }
        order.append(id)
    }
}
