/// A kind of second factor. Compare with the static members; a verifier may add its own.
public struct SecondFactorMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method's stable name.
    public let rawValue: String

    /// Creates a method from its stable name.
    ///
    /// - Parameter rawValue: The method's stable name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A code from an authenticator app.
    public static let totp = SecondFactorMethod(rawValue: "totp")
    /// A single-use recovery code.
    public static let recoveryCode = SecondFactorMethod(rawValue: "recoveryCode")
    /// The account's password, asked again.
    public static let password = SecondFactorMethod(rawValue: "password")

    /// The method's name.
    public var description: String { rawValue }
}
