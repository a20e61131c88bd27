/// A session the server issued: what LOGIN_UNCACHED and LOGIN_CACHED carry.
///
/// The token authenticates every request and the events socket, so it is a secret: the type's
/// `description` and `debugDescription` never show it, so a session logged or printed by accident
/// leaks nothing. Read ``token`` only to put it on the wire or into an encrypted store.
public struct SessionCredentials: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The session token (Stoat's `X-Session-Token`). Secret: never log it.
    public var token: String

    /// The id of the user this session belongs to, when known. The lifecycle uses it to look up the
    /// account's flags after the session was revoked, to tailor the permanent error.
    public var userID: String?

    /// The server's id of the session itself, when known (Stoat's `_id` in the login answer).
    public var sessionID: String?

    /// The server that issued the session, when known: the only server its token is sent to.
    ///
    /// Lifeline sets it on every session it obtains — a login, a session read from an account's store — and
    /// the Stoat client refuses to send the token of a session issued by another server, over REST or on
    /// the events socket. `nil` for credentials made from a bare token: whoever made them vouches for where
    /// they are sent.
    public var issuer: ServerIdentity?

    /// Creates credentials for a session.
    ///
    /// - Parameters:
    ///   - token: The session token.
    ///   - userID: The user the session belongs to, when known.
    ///   - sessionID: The server's id of the session, when known.
    ///   - issuer: The server that issued the session, when known (see ``issuer``).
    public init(token: String, userID: String? = nil, sessionID: String? = nil, issuer: ServerIdentity? = nil) {
        self.token = token
        self.userID = userID
        self.sessionID = sessionID
        self.issuer = issuer
    }

    /// A description that names the user, the session and its issuer but never the token.
    public var description: String {
        "SessionCredentials(userID: \(userID ?? "unknown"), sessionID: \(sessionID ?? "unknown"), "
            + "issuer: \(issuer.map(\.description) ?? "unknown"), token: <redacted>)"
    }

    /// The same as ``description``: the token is redacted in debug output too.
    public var debugDescription: String { description }
}
