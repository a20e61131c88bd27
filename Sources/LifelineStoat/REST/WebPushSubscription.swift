/// A device's Web Push subscription, as `POST /push/subscribe` takes it (stoatchat's `WebPushSubscription`):
/// the push service's endpoint for the device and the keys a push is encrypted for, as the browser's (or the
/// platform's) `PushSubscription` gives them.
///
/// stoatchat keeps it on the session: it ends with the session, so every new login subscribes again
/// (`StoatClient.subscribePush(_:)` does).
public struct WebPushSubscription: Sendable, Hashable, Codable {
    /// The push service's URL for this device.
    public var endpoint: String
    /// The device's P-256 ECDH public key, base64url (`p256dh`).
    public var p256dh: String
    /// The device's authentication secret, base64url (`auth`).
    public var auth: String

    /// Creates a subscription.
    ///
    /// - Parameters:
    ///   - endpoint: The push service's URL for this device.
    ///   - p256dh: The device's public key, base64url.
    ///   - auth: The device's authentication secret, base64url.
    public init(endpoint: String, p256dh: String, auth: String) {
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
    }
}
