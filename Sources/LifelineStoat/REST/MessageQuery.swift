/// Which messages `GET /channels/{id}/messages` answers: a page before or after a message, around one, or
/// the latest, optionally with their authors.
///
/// ```swift
/// let latest = try await api.messages(in: channel, query: .latest(limit: 50, includeUsers: true), credentials)
/// let older = try await api.messages(in: channel, query: .before(latest.messages.last!.id), credentials)
/// ```
public struct MessageQuery: Sendable, Hashable {
    /// The order messages come in (`sort`).
    public struct Sort: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The wire name.
        public var rawValue: String
        /// Creates a sort from its wire name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Newest first.
        public static let latest = Sort(rawValue: "Latest")
        /// Oldest first.
        public static let oldest = Sort(rawValue: "Oldest")

        /// The wire name.
        public var description: String { rawValue }
    }

    /// How many messages, 1 to 100 (`limit`); the server's default (50) when `nil`. Around a message the
    /// server answers up to `limit + 2`.
    public var limit: Int?
    /// Only messages older than this id (`before`).
    public var before: String?
    /// Only messages newer than this id (`after`).
    public var after: String?
    /// The order (`sort`); the server's default (latest first) when `nil`.
    public var sort: Sort?
    /// The messages around this id, and it (`nearby`); `before`, `after` and `sort` are then ignored.
    public var nearby: String?
    /// Whether to include the authors and, in a server, their memberships (`include_users`).
    public var includeUsers: Bool

    /// Creates a query.
    public init(
        limit: Int? = nil, before: String? = nil, after: String? = nil, sort: Sort? = nil, nearby: String? = nil,
        includeUsers: Bool = false
    ) {
        self.limit = limit
        self.before = before
        self.after = after
        self.sort = sort
        self.nearby = nearby
        self.includeUsers = includeUsers
    }

    /// The latest messages, newest first.
    public static func latest(limit: Int? = nil, includeUsers: Bool = false) -> MessageQuery {
        MessageQuery(limit: limit, sort: .latest, includeUsers: includeUsers)
    }

    /// The messages before `id`, newest first.
    public static func before(_ id: String, limit: Int? = nil, includeUsers: Bool = false) -> MessageQuery {
        MessageQuery(limit: limit, before: id, sort: .latest, includeUsers: includeUsers)
    }

    /// The messages after `id`, oldest first.
    public static func after(_ id: String, limit: Int? = nil, includeUsers: Bool = false) -> MessageQuery {
        MessageQuery(limit: limit, after: id, sort: .oldest, includeUsers: includeUsers)
    }

    /// The messages around `id`, and it.
    public static func around(_ id: String, limit: Int? = nil, includeUsers: Bool = false) -> MessageQuery {
        MessageQuery(limit: limit, nearby: id, includeUsers: includeUsers)
    }

    /// The query string, without the `?`; empty when nothing is set.
    var queryItems: String {
        var items: [String] = []
        if let limit { items.append("limit=\(limit)") }
        if let before { items.append("before=\(StoatAPI.percentEncoded(before))") }
        if let after { items.append("after=\(StoatAPI.percentEncoded(after))") }
        if let sort { items.append("sort=\(StoatAPI.percentEncoded(sort.rawValue))") }
        if let nearby { items.append("nearby=\(StoatAPI.percentEncoded(nearby))") }
        if includeUsers { items.append("include_users=true") }
        return items.joined(separator: "&")
    }
}
