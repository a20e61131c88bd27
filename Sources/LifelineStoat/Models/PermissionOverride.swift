/// Permissions a role or a channel allows and denies (`{"a": allow, "d": deny}`), as bit sets.
public struct PermissionOverride: Sendable, Hashable, Codable {
    /// The permissions allowed (`a`).
    public var allow: Int64
    /// The permissions denied (`d`).
    public var deny: Int64

    /// Creates an override.
    public init(allow: Int64 = 0, deny: Int64 = 0) {
        self.allow = allow
        self.deny = deny
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case allow = "a"
        case deny = "d"
    }
}
