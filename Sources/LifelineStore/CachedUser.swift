public import Foundation

/// A user as the store caches it: what the client needs to show a name.
///
/// Wholly sealed: only a keyed tag of the id is in plaintext.
public struct CachedUser: Sendable, Hashable {
    /// The server's id of the user. Sealed.
    public var id: String

    /// The user's unique name (a Stoat username, with or without its discriminator, as the client chooses).
    /// Sealed.
    public var username: String

    /// The name the user chose to be shown by, if any. Sealed.
    public var displayName: String?

    /// Anything else the client keeps about the user (avatar, presence, relationship), in its own encoding.
    /// The store seals it and never reads it.
    public var details: Data

    /// Creates a cached user.
    ///
    /// - Parameters:
    ///   - id: The server's id of the user.
    ///   - username: The user's unique name.
    ///   - displayName: The name the user chose to be shown by, if any.
    ///   - details: Anything else the client keeps, in its own encoding.
    public init(id: String, username: String, displayName: String? = nil, details: Data = Data()) {
        self.id = id
        self.username = username
        self.displayName = displayName
        self.details = details
    }
}
