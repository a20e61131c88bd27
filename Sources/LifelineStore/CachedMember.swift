public import Foundation

/// A member of a space as the store caches it: who is in a space, under which name, with which roles.
///
/// Wholly sealed: in plaintext only a keyed tag of (space id, user id) and a keyed tag of the space id, which
/// lets a space's members be read through an index.
public struct CachedMember: Sendable, Hashable {
    /// The id of the space. Sealed.
    public var spaceID: String

    /// The id of the user. Sealed.
    public var userID: String

    /// The member's name in this space, when it differs from the user's. Sealed.
    public var nickname: String?

    /// The ids of the member's roles in this space. Sealed.
    public var roles: [String]

    /// Until when the member is timed out, if they are. Sealed, to the millisecond.
    public var timeout: Date?

    /// Anything else the client keeps about the member (avatar, join date), in its own encoding. The store
    /// seals it and never reads it.
    public var details: Data

    /// Creates a cached member.
    ///
    /// - Parameters:
    ///   - spaceID: The id of the space.
    ///   - userID: The id of the user.
    ///   - nickname: The member's name in this space, if it differs from the user's.
    ///   - roles: The ids of the member's roles.
    ///   - timeout: Until when the member is timed out, if they are; kept to the millisecond.
    ///   - details: Anything else the client keeps, in its own encoding.
    public init(
        spaceID: String,
        userID: String,
        nickname: String? = nil,
        roles: [String] = [],
        timeout: Date? = nil,
        details: Data = Data()
    ) {
        self.spaceID = spaceID
        self.userID = userID
        self.nickname = nickname
        self.roles = roles
        self.timeout = timeout
        self.details = details
    }
}
