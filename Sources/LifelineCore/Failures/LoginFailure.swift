/// Why a login at the login interface failed, as the interface shows it.
public struct LoginFailure: Sendable, Hashable {
    /// What kind of login failure this is: the server's refusal (a protocol's client names its kinds, for
    /// example Stoat's `InvalidCredentials`, `BlockedByShield`, `Disabled`) or one of the client's own codes
    /// below. Its ``rawValue`` is the `code` of `--json`'s `login_failed` line.
    public struct Code: LifelineErrorCode, RawRepresentable {
        /// The code's stable name, as printed in `--json` output.
        public var rawValue: String

        /// Creates a code from its stable name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The account needs a second factor and none was given (`MFA`).
        public static let secondFactorMissing = Code(rawValue: "MFA")
        /// The account asked for is not in the store, or the store cannot say which one was meant.
        public static let noSuchAccount = Code(rawValue: "noSuchAccount")
        /// The password opens the device's data but the server refused it: it was changed elsewhere.
        public static let passwordMismatch = Code(rawValue: "passwordMismatch")
        /// The server could not be reached.
        public static let serverUnreachable = Code(rawValue: "serverUnreachable")
        /// The account belongs to another server than the one asked.
        public static let otherServer = Code(rawValue: "otherServer")
        /// The server says the password is wrong.
        public static let wrongPassword = Code(rawValue: "wrongPassword")
        /// The password does not open the device's data and could not be checked with the server.
        public static let wrongPasswordUnconfirmed = Code(rawValue: "wrongPasswordUnconfirmed")
    }

    /// What kind of login failure this is.
    public var code: Code
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
    public init(code: Code, message: String, supportURL: String? = nil, standing: AccountStanding? = nil) {
        self.code = code
        self.message = message
        self.supportURL = supportURL
        self.standing = standing
    }
}
