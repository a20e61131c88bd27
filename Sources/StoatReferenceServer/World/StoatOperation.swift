#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// An operation awaiting the user's decision (for example a login to approve on another device), listed by
/// `GET /operations` until it finishes or expires.
///
/// Lifeline's own extension: stoatchat has no operations API and no `OperationFinished` event.
public struct StoatOperation: Sendable, Equatable, Codable {
    /// The operation's id.
    public var id: String
    /// What kind of operation it is, free text (`"login_approval"`, …).
    public var kind: String
    /// The user who owns it; its end is announced to this user's sockets.
    public var userID: String
    /// When it expires, in the server's clock.
    public var expiresAt: Date

    /// Creates an operation.
    public init(id: String, kind: String, userID: String, expiresAt: Date) {
        self.id = id
        self.kind = kind
        self.userID = userID
        self.expiresAt = expiresAt
    }
}
