#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// A user's membership of a server.
///
/// Written in stoatchat's field order: `_id: {server, user}`, `joined_at`, `nickname` (left out when nil),
/// `roles` (left out when empty) and `timeout` (left out when nil), timestamps as ISO 8601 with milliseconds.
public struct StoatMember: Sendable, Equatable, Codable {
    /// The server's id.
    public var serverID: String
    /// The member's user id.
    public var userID: String
    /// When the user joined.
    public var joinedAt: Date
    /// The nickname in this server, if any.
    public var nickname: String?
    /// The ids of the member's roles.
    public var roles: [String]
    /// Until when the member is timed out, if they are: until then, in the server's clock, they may only view
    /// and read its channels.
    public var timeout: Date?

    /// Creates a membership.
    public init(
        serverID: String, userID: String, joinedAt: Date, nickname: String? = nil, roles: [String] = [],
        timeout: Date? = nil
    ) {
        self.serverID = serverID
        self.userID = userID
        self.joinedAt = joinedAt
        self.nickname = nickname
        self.roles = roles
        self.timeout = timeout
    }

    struct Key: Codable, Hashable {
        var server: String
        var user: String
    }

    var key: Key { Key(server: serverID, user: userID) }

    /// Whether the member is timed out at `now` (stoatchat's `in_timeout`).
    func isTimedOut(at now: Date) -> Bool {
        guard let timeout else { return false }
        return timeout > now
    }

    enum CodingKeys: String, CodingKey {
        case id = "_id"
        case joinedAt = "joined_at"
        case nickname, roles, timeout
    }

    /// Decodes a member from Stoat's wire shape.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let key = try container.decode(Key.self, forKey: .id)
        serverID = key.server
        userID = key.user
        let joined = try container.decode(String.self, forKey: .joinedAt)
        guard let date = StoatTimestamp.date(joined) else {
            throw DecodingError.dataCorruptedError(
                forKey: .joinedAt, in: container, debugDescription: "Not an ISO 8601 timestamp")
        }
        joinedAt = date
        nickname = try container.decodeIfPresent(String.self, forKey: .nickname)
        roles = try container.decodeIfPresent([String].self, forKey: .roles) ?? []
        timeout = try container.decodeIfPresent(String.self, forKey: .timeout).flatMap(StoatTimestamp.date)
    }

    /// Encodes the member in Stoat's wire shape.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(key, forKey: .id)
        try container.encode(StoatTimestamp.string(joinedAt), forKey: .joinedAt)
        try container.encodeIfPresent(nickname, forKey: .nickname)
        if !roles.isEmpty { try container.encode(roles, forKey: .roles) }
        try container.encodeIfPresent(timeout.map(StoatTimestamp.string), forKey: .timeout)
    }
}

extension StoatMember: WireEncodable {
    var wire: Wire {
        .object([
            "_id": .object(["server": .string(serverID), "user": .string(userID)]),
            "joined_at": .timestamp(joinedAt),
            "nickname": .str(nickname),
            "roles": roles.isEmpty ? nil : .strings(roles),
            "timeout": timeout.map { .timestamp($0) },
        ])
    }
}

/// Stoat's timestamp format: ISO 8601 in UTC with milliseconds (`2024-06-26T10:00:00.000Z`).
enum StoatTimestamp {
    static func string(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// The milliseconds since the Unix epoch of the instant ``string(_:)`` writes, computed from its digits
    /// (not from the `Date`'s floating-point seconds), so that the text and the number name the same
    /// millisecond.
    static func milliseconds(_ date: Date) -> Int64 {
        let digits = Array(string(date).utf8)
        func number(_ range: Range<Int>) -> Int64 {
            digits[range].reduce(0) { $0 * 10 + Int64($1 &- UInt8(ascii: "0")) }
        }
        // YYYY-MM-DDTHH:MM:SS.mmmZ
        guard digits.count == 24 else { return Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
        let (year, month, day) = (number(0..<4), number(5..<7), number(8..<10))
        // Days from the civil date (Howard Hinnant's `days_from_civil`).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = ((days * 24 + number(11..<13)) * 60 + number(14..<16)) * 60 + number(17..<19)
        return seconds * 1000 + number(20..<23)
    }

    static func date(_ string: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(string) {
            return date
        }
        return try? Date.ISO8601FormatStyle().parse(string)
    }
}
