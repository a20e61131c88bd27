public import Foundation
public import LifelineCore

/// An account that has a database in an ``AccountStore``, as the login screen lists it.
///
/// Listing accounts needs no password, so an account shows only what is in plaintext: its ``label`` (set with
/// ``AccountDatabase/setLabel(_:)``, typically the username), its ``server`` and the file's modification date.
/// The email, the user id and the token are sealed: sign in by account with the password alone
/// (``AccountStore/signIn(account:password:email:verifier:)``).
public struct StoredAccount: Sendable, Hashable, Identifiable {
    /// An opaque, stable identifier of the account in its store: the hash in the database's file name. It
    /// reveals nothing but whether a guessed email has an account here (see <doc:LifelineStore#Files>).
    public typealias ID = String

    /// The account's identifier in its store.
    public let id: ID

    /// The label the login screen shows, if one was set: plaintext, chosen by the client (the username).
    public let label: String?

    /// The server the account belongs to, as the file's plaintext copy names it; `nil` for a file written
    /// before accounts were bound to a server, until its next sign-in binds it (see
    /// <doc:LifelineStore#Accounts-belong-to-one-server>). The sign-in checks the sealed copy, not this one.
    public let server: ServerIdentity?

    /// When the database file was last written: list the most recently used account first. Nil if unknown.
    public let lastModified: Date?

    /// Creates an account entry. The store creates them; the initialiser is for tests of UI code.
    ///
    /// - Parameters:
    ///   - id: The account's identifier in its store.
    ///   - label: The label the login screen shows.
    ///   - server: The server the account belongs to, if the file names one.
    ///   - lastModified: When the database file was last written.
    public init(id: ID, label: String?, server: ServerIdentity? = nil, lastModified: Date?) {
        self.id = id
        self.label = label
        self.server = server
        self.lastModified = lastModified
    }
}
