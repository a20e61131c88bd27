public import Foundation

/// A space as the store caches it: a group of chats (a Stoat server).
///
/// Wholly sealed: only a keyed tag of its id is in plaintext.
public struct CachedSpace: Sendable, Hashable {
    /// The server's id of the space (a Stoat server id). Sealed.
    public var id: String

    /// The space's display name. Sealed.
    public var name: String

    /// Anything else the client keeps about the space (icon, roles, channel order), in its own encoding. The
    /// store seals it and never reads it.
    public var details: Data

    /// Creates a cached space.
    ///
    /// - Parameters:
    ///   - id: The server's id of the space.
    ///   - name: The space's display name.
    ///   - details: Anything else the client keeps, in its own encoding.
    public init(id: String, name: String, details: Data = Data()) {
        self.id = id
        self.name = name
        self.details = details
    }
}
