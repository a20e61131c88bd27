/// Why a login at the login interface failed, as the interface shows it.
public struct LoginFailure: Sendable, Hashable {
    /// A stable code for the failure (for example `InvalidCredentials`, `BlockedByShield`, `Disabled`).
    public var code: String
    /// The message for the user; never contains a secret.
    public var message: String
    /// A support article the interface should link to (Stoat's BlockedByShield article), if any.
    public var supportURL: String?

    /// Creates a login failure.
    public init(code: String, message: String, supportURL: String? = nil) {
        self.code = code
        self.message = message
        self.supportURL = supportURL
    }
}
