/// A permission override (stoatchat's `OverrideField`, `{"a": allow, "d": deny}`): what a role, or a channel's
/// `default_permissions`, adds to and takes from the permissions calculated before it — allowed bits first, then
/// denied ones (`PermissionValue::apply`).
public struct StoatOverride: Sendable, Equatable, Codable {
    /// The bits allowed (`a`).
    public var allow: StoatPermission
    /// The bits denied (`d`), taken away after ``allow``.
    public var deny: StoatPermission

    /// Creates an override.
    public init(allow: StoatPermission = [], deny: StoatPermission = []) {
        self.allow = allow
        self.deny = deny
    }

    /// `permissions` with this override applied.
    func applied(to permissions: StoatPermission) -> StoatPermission {
        permissions.union(allow).subtracting(deny)
    }

    enum CodingKeys: String, CodingKey {
        case allow = "a"
        case deny = "d"
    }

    /// Decodes `{"a", "d"}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        allow = StoatPermission(rawValue: UInt64(bitPattern: try container.decode(Int64.self, forKey: .allow)))
        deny = StoatPermission(rawValue: UInt64(bitPattern: try container.decode(Int64.self, forKey: .deny)))
    }

    /// Encodes `{"a", "d"}` as stoatchat writes them (signed 64-bit integers).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Int64(bitPattern: allow.rawValue), forKey: .allow)
        try container.encode(Int64(bitPattern: deny.rawValue), forKey: .deny)
    }
}

extension StoatOverride: WireEncodable {
    var wire: Wire {
        .object([
            .init(key: "a", value: .int(Int64(bitPattern: allow.rawValue))),
            .init(key: "d", value: .int(Int64(bitPattern: deny.rawValue))),
        ])
    }
}
