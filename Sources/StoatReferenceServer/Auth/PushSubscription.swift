/// A Web Push subscription as stoatchat keeps it on a session (`WebPushSubscription`,
/// `crates/core/models/src/v0/sessions.rs`): where to push and the keys to encrypt for.
public struct PushSubscription: Sendable, Hashable, Codable {
    /// The push service's URL for the device.
    public var endpoint: String
    /// The device's P-256 public key (base64url).
    public var p256dh: String
    /// The device's authentication secret (base64url).
    public var auth: String

    /// Creates a subscription.
    public init(endpoint: String, p256dh: String, auth: String) {
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
    }
}

/// A session's push subscription as the admin API reads it (``ReferenceServer/pushSubscriptions()``).
public struct SessionPushSubscription: Sendable, Hashable {
    /// The session's id.
    public var sessionID: String
    /// The session's user.
    public var userID: String
    /// The subscription.
    public var subscription: PushSubscription
}
