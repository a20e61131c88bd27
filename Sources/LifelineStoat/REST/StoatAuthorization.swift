/// Who an authenticated REST call is made as: a user's session (`X-Session-Token`) or a bot (`X-Bot-Token`).
///
/// ``StoatAPI``'s data calls take anything that gives an authorization: a `SessionCredentials` is a user's
/// session, and ``bot(token:)`` calls the API as a bot.
///
/// ```swift
/// let channel = try await api.channel(id, credentials)               // a user's session
/// let same = try await api.channel(id, StoatAuthorization.bot(token: botToken))
/// ```
///
/// The ``description`` never shows the token.
public struct StoatAuthorization: Sendable, Hashable, CustomStringConvertible, StoatAuthorizing {
    /// The header the token travels in: `X-Session-Token` or `X-Bot-Token`.
    public let headerName: String
    /// The token. Never logged, never part of an error.
    public let token: String

    /// A user's session token, sent as `X-Session-Token`.
    public static func session(token: String) -> StoatAuthorization {
        StoatAuthorization(headerName: "X-Session-Token", token: token)
    }

    /// A bot's token, sent as `X-Bot-Token`. stoatchat accepts it wherever a route asks for a user.
    public static func bot(token: String) -> StoatAuthorization {
        StoatAuthorization(headerName: "X-Bot-Token", token: token)
    }

    /// Itself.
    public var authorization: StoatAuthorization { self }

    /// The header's name, without the token.
    public var description: String { "\(headerName): <redacted>" }
}
