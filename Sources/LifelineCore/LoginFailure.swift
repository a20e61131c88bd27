/// Why a login at the login interface failed, as the interface shows it.
public struct LoginFailure: Sendable, Hashable {
    /// A stable code for the failure (for example `InvalidCredentials`, `BlockedByShield`, `Disabled`).
    public var code: String
    /// The message for the user; never contains a secret.
    public var message: String
    /// A support article the interface should link to (Stoat's BlockedByShield article), if any.
    public var supportURL: String?
    /// Why the account cannot log in, for a login refused as `Disabled` once the account's flags were read:
    /// ``AccountStanding/disabled`` (flags 0: its owner disabled it), ``AccountStanding/suspended``,
    /// ``AccountStanding/banned``, ``AccountStanding/deleted`` or ``AccountStanding/removedAsSpam``. `nil` for
    /// every other failure, and when the flags could not be read.
    public var standing: AccountStanding?

    /// Creates a login failure.
    ///
    /// - Parameters:
    ///   - code: A stable code for the failure.
    ///   - message: The message for the user; it must not contain a secret.
    ///   - supportURL: A support article to link to, if any.
    ///   - standing: The account's standing, for a login refused as `Disabled` whose flags were read.
    public init(code: String, message: String, supportURL: String? = nil, standing: AccountStanding? = nil) {
        self.code = code
        self.message = message
        self.supportURL = supportURL
        self.standing = standing
    }
}
