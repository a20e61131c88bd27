/// A second-factor method a Stoat account allows, as `allowed_methods` names it.
///
/// A struct rather than an enum, so that methods the server adds later decode without failing.
public struct MFAMethod: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    /// The wire name (`Password`, `Recovery`, `Totp`).
    public var rawValue: String

    /// Creates a method from its wire name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The account's password again.
    public static let password = MFAMethod(rawValue: "Password")
    /// A single-use recovery code.
    public static let recoveryCode = MFAMethod(rawValue: "Recovery")
    /// A time-based one-time password from an authenticator app.
    public static let totp = MFAMethod(rawValue: "Totp")

    /// The wire name.
    public var description: String { rawValue }
}
