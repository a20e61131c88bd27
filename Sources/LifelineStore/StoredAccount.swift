public import Foundation

/// An account that has a database in an ``AccountStore``, as the login screen lists it.
///
/// Listing accounts needs no password, so an account shows only what is in plaintext: its ``label`` (set with
/// ``AccountDatabase/setLabel(_:)``, typically the username) and the file's modification date. The email, the
/// user id and the token are sealed: sign in by account with the password alone
/// (``AccountStore/signIn(account:password:email:verifier:)``).
public struct StoredAccount: Sendable, Hashable, Identifiable {
    /// An opaque, stable identifier of the account in its store: the hash in the database's file name. It
    /// reveals nothing but whether a guessed email has an account here (see <doc:LifelineStore#Files>).
    public typealias ID = String

    /// The account's identifier in its store.
    public let id: ID

    /// The label the login screen shows, if one was set: plaintext, chosen by the client (the username).
    public let label: String?

    /// When the database file was last written: list the most recently used account first. Nil if unknown.
    public let lastModified: Date?

    /// Creates an account entry. The store creates them; the initialiser is for tests of UI code.
    ///
    /// - Parameters:
    ///   - id: The account's identifier in its store.
    ///   - label: The label the login screen shows.
    ///   - lastModified: When the database file was last written.
    public init(id: ID, label: String?, lastModified: Date?) {
        self.id = id
        self.label = label
        self.lastModified = lastModified
    }
}
