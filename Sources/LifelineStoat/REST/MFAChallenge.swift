/// A second factor a login asks for: the ticket that continues it and the methods the account allows.
///
/// The ticket stands in for the password until it expires, so it is a secret: ``description`` never
/// shows it.
public struct MFAChallenge: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The ticket to send back with the answer (`ticket`). Secret: never log it.
    public var ticket: String
    /// The methods the account allows (`allowed_methods`), in the server's order.
    public var allowedMethods: [MFAMethod]

    /// Creates a challenge.
    ///
    /// - Parameters:
    ///   - ticket: The ticket that continues the login.
    ///   - allowedMethods: The methods the account allows.
    public init(ticket: String, allowedMethods: [MFAMethod]) {
        self.ticket = ticket
        self.allowedMethods = allowedMethods
    }

    /// The allowed methods; the ticket is redacted.
    public var description: String {
        "MFAChallenge(allowedMethods: \(allowedMethods.map(\.rawValue)), ticket: <redacted>)"
    }

    /// The same as ``description``: the ticket is redacted in debug output too.
    public var debugDescription: String { description }
}
