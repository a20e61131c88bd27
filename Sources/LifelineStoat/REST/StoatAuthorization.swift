public import LifelineCore

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
/// The ``description`` never shows the token. An authorization with an ``issuer`` is sent only to that
/// server: ``StoatAPI`` refuses it for any other with ``StoatAPIErrorCode/foreignCredentials``.
public struct StoatAuthorization: Sendable, Hashable, CustomStringConvertible, StoatAuthorizing {
    /// The header the token travels in: `X-Session-Token` or `X-Bot-Token`.
    public let headerName: String
    /// The token. Never logged, never part of an error.
    public let token: String
    /// The server that issued the token, when known: the only API it is sent to. `nil` for a token given
    /// bare, which whoever gave it vouches for.
    public let issuer: ServerIdentity?

    /// A user's session token, sent as `X-Session-Token`.
    ///
    /// - Parameters:
    ///   - token: The session token.
    ///   - issuer: The server that issued it, when known: then no other server's API is sent it.
    public static func session(token: String, issuer: ServerIdentity? = nil) -> StoatAuthorization {
        StoatAuthorization(headerName: "X-Session-Token", token: token, issuer: issuer)
    }

    /// A bot's token, sent as `X-Bot-Token`. stoatchat accepts it wherever a route asks for a user.
    public static func bot(token: String) -> StoatAuthorization {
        StoatAuthorization(headerName: "X-Bot-Token", token: token, issuer: nil)
    }

    /// Itself.
    public var authorization: StoatAuthorization { self }

    /// The header's name, without the token.
    public var description: String { "\(headerName): <redacted>" }
}
