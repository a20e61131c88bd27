public import LifelineCore

/// The database cannot be decrypted: details for the encryption failure popup.
public struct EncryptionFailure: LifelineError {
    /// Why the data cannot be decrypted. Compare with the static members.
    public struct Code: LifelineErrorCode, RawRepresentable {
        /// The code's stable name, for logs and JSON.
        public let rawValue: String

        /// Creates a code from its stable name. Prefer the static members.
        ///
        /// - Parameter rawValue: The code's stable name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The server verified the password, but it does not unwrap the data key: the wrapped key or its
        /// parameters were changed, or the database was keyed with another password.
        public static let passwordDoesNotUnwrapKey = Code(rawValue: "passwordDoesNotUnwrapKey")
        /// The keyring (wrapped key, salt, parameters) fails its checksum: damaged, whatever the password.
        public static let damagedKeyring = Code(rawValue: "damagedKeyring")
        /// The keyring's format or key derivation is unknown or outside the bounds the store reads.
        public static let unsupportedKeyring = Code(rawValue: "unsupportedKeyring")
        /// The key unwrapped, but a sealed record does not authenticate.
        public static let damagedRecord = Code(rawValue: "damagedRecord")
        /// The file is not a readable database, or has no keyring.
        public static let damagedFile = Code(rawValue: "damagedFile")
    }

    /// Why the data cannot be decrypted.
    public var code: Code

    /// A sentence for people. Never contains a secret.
    public var message: String

    /// The error underneath, if any.
    public var cause: (any Error)?

    /// Erases this account's database, if the user chooses to.
    public var eraseOption: EraseOption

    /// Creates a failure. The store creates them; the initialiser is for tests of UI code.
    ///
    /// - Parameters:
    ///   - code: Why the data cannot be decrypted.
    ///   - message: A sentence for people.
    ///   - cause: The error underneath, if any.
    ///   - eraseOption: The erase the UI may offer.
    public init(code: Code, message: String, cause: (any Error)? = nil, eraseOption: EraseOption) {
        self.code = code
        self.message = message
        self.cause = cause
        self.eraseOption = eraseOption
    }
}
