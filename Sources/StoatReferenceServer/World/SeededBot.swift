/// A bot the server seeded: its user id, its owner and its bot token.
///
/// A bot calls the REST API with `X-Bot-Token: <token>` and authenticates on the events socket with the same
/// token, as stoatchat's bots do. The token is a fixture secret: never log it.
public struct SeededBot: Sendable, Equatable, CustomStringConvertible {
    /// The bot's user id.
    public let userID: String
    /// The user id of the bot's owner.
    public let ownerID: String
    /// The bot token.
    public let token: String

    /// Creates a seeded bot's description.
    public init(userID: String, ownerID: String, token: String) {
        self.userID = userID
        self.ownerID = ownerID
        self.token = token
    }

    /// The ids; the token is redacted.
    public var description: String { "SeededBot(userID: \(userID), ownerID: \(ownerID), token: <redacted>)" }
}
