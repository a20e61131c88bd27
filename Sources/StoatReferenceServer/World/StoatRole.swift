/// A server's role (stoatchat's `Role`): a name, the permissions it overrides and its rank (lower is higher).
///
/// Written in stoatchat's field order: `name`, `permissions` (`{"a","d"}`), `colour` (left out when nil) and `rank`.
/// Members hold roles by id (``StoatMember/roles``); a message mentions one as `<%ROLE_ID>`.
public struct StoatRole: Sendable, Equatable, Codable {
    /// The role's name.
    public var name: String
    /// What the role allows and denies in the server's channels, applied over the server's default permissions.
    public var permissions: StoatOverride
    /// Its colour, as CSS, if any.
    public var colour: String?
    /// Its rank: the lower, the higher the role, and the later its override is applied.
    public var rank: Int64

    /// Creates a role.
    public init(name: String, permissions: StoatOverride = StoatOverride(), colour: String? = nil, rank: Int64 = 0) {
        self.name = name
        self.permissions = permissions
        self.colour = colour
        self.rank = rank
    }
}

extension StoatRole: WireEncodable {
    var wire: Wire {
        var fields: [Wire.Field] = [
            .init(key: "name", value: .string(name)), .init(key: "permissions", value: permissions.wire),
        ]
        if let colour { fields.append(.init(key: "colour", value: .string(colour))) }
        fields.append(.init(key: "rank", value: .int(rank)))
        return .object(fields)
    }
}
