/// A ready-to-use account the server seeded: its credentials, a live session token and its user id.
///
/// The password and token are secrets of a test fixture: print them only where a human asked for them
/// (`lifeline serve`), never log them.
public struct SeededAccount: Sendable, Equatable, CustomStringConvertible {
    /// The login email.
    public let email: String
    /// The login password.
    public let password: String
    /// A session token that is valid now.
    public let token: String
    /// The account's user id (the user exists only once onboarded).
    public let userID: String

    /// Creates a seeded account's description.
    public init(email: String, password: String, token: String, userID: String) {
        self.email = email
        self.password = password
        self.token = token
        self.userID = userID
    }

    /// The email and user id; the password and token are redacted.
    public var description: String {
        "SeededAccount(email: \(email), userID: \(userID), password: <redacted>, token: <redacted>)"
    }
}
