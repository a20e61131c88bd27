/// A session the server issued: what LOGIN_UNCACHED and LOGIN_CACHED carry.
///
/// The token authenticates every request and the events socket, so it is a secret: the type's
/// `description` and `debugDescription` never show it, so a session logged or printed by accident
/// leaks nothing. Read ``token`` only to put it on the wire or into an encrypted store.
public struct SessionCredentials: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The fields, in one shared box: the machine's states all carry the session, and a transition copies
    /// its state, so a session that copies as one reference (not four strings and a server) keeps the
    /// machine's transitions cheap. Copy-on-write: a mutation of a shared box copies it first.
    private final class Storage: Sendable {
        let token: String
        let userID: String?
        let sessionID: String?
        let issuer: ServerIdentity?

        init(token: String, userID: String?, sessionID: String?, issuer: ServerIdentity?) {
            self.token = token
            self.userID = userID
            self.sessionID = sessionID
            self.issuer = issuer
        }
    }

    private var storage: Storage

    /// The session token (Stoat's `X-Session-Token`). Secret: never log it.
    public var token: String {
        get { storage.token }
        set { storage = Storage(token: newValue, userID: userID, sessionID: sessionID, issuer: issuer) }
    }

    /// The id of the user this session belongs to, when known. The lifecycle uses it to look up the
    /// account's flags after the session was revoked, to tailor the permanent error.
    public var userID: String? {
        get { storage.userID }
        set { storage = Storage(token: token, userID: newValue, sessionID: sessionID, issuer: issuer) }
    }

    /// The server's id of the session itself, when known (Stoat's `_id` in the login answer).
    public var sessionID: String? {
        get { storage.sessionID }
        set { storage = Storage(token: token, userID: userID, sessionID: newValue, issuer: issuer) }
    }

    /// The server that issued the session, when known: the only server its token is sent to.
    ///
    /// Lifeline sets it on every session it obtains — a login, a session read from an account's store — and
    /// the Stoat client refuses to send the token of a session issued by another server, over REST or on
    /// the events socket. `nil` for credentials made from a bare token: whoever made them vouches for where
    /// they are sent.
    public var issuer: ServerIdentity? {
        get { storage.issuer }
        set { storage = Storage(token: token, userID: userID, sessionID: sessionID, issuer: newValue) }
    }

    /// Creates credentials for a session.
    ///
    /// - Parameters:
    ///   - token: The session token.
    ///   - userID: The user the session belongs to, when known.
    ///   - sessionID: The server's id of the session, when known.
    ///   - issuer: The server that issued the session, when known (see ``issuer``).
    public init(token: String, userID: String? = nil, sessionID: String? = nil, issuer: ServerIdentity? = nil) {
        storage = Storage(token: token, userID: userID, sessionID: sessionID, issuer: issuer)
    }

    private enum CodingKeys: String, CodingKey {
        case token, userID, sessionID, issuer
    }

    /// Decodes the four fields under their names, as the synthesized conformance did.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            token: try container.decode(String.self, forKey: .token),
            userID: try container.decodeIfPresent(String.self, forKey: .userID),
            sessionID: try container.decodeIfPresent(String.self, forKey: .sessionID),
            issuer: try container.decodeIfPresent(ServerIdentity.self, forKey: .issuer))
    }

    /// Encodes the four fields under their names (absent ones left out), as the synthesized conformance did.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(token, forKey: .token)
        try container.encodeIfPresent(userID, forKey: .userID)
        try container.encodeIfPresent(sessionID, forKey: .sessionID)
        try container.encodeIfPresent(issuer, forKey: .issuer)
    }

    /// Equal when the four fields are.
    public static func == (lhs: SessionCredentials, rhs: SessionCredentials) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.token == rhs.token && lhs.userID == rhs.userID && lhs.sessionID == rhs.sessionID
                && lhs.issuer == rhs.issuer)
    }

    /// Hashes the four fields.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(token)
        hasher.combine(userID)
        hasher.combine(sessionID)
        hasher.combine(issuer)
    }

    /// A description that names the user, the session and its issuer but never the token.
    public var description: String {
        "SessionCredentials(userID: \(userID ?? "unknown"), sessionID: \(sessionID ?? "unknown"), "
            + "issuer: \(issuer.map(\.description) ?? "unknown"), token: <redacted>)"
    }

    /// The same as ``description``: the token is redacted in debug output too.
    public var debugDescription: String { description }
}
