public import LifelineCore

/// Something a REST call can be authorized with: ``StoatAuthorization``, or a session's `SessionCredentials`.
public protocol StoatAuthorizing: Sendable {
    /// The header and token the call is sent with.
    var authorization: StoatAuthorization { get }
}

extension SessionCredentials: StoatAuthorizing {
    /// The session's token as `X-Session-Token`, bound to the session's `SessionCredentials.issuer`.
    public var authorization: StoatAuthorization { .session(token: token, issuer: issuer) }
}
