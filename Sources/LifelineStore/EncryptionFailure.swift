public import LifelineCore

/// The database cannot be decrypted: details for the encryption failure popup.
///
/// Lifeline's one error shape (`CodedError`) over ``EncryptionFailureCode``; its details
/// (``EncryptionFailureDetails``) are read as its own properties: `eraseOption`.
public typealias EncryptionFailure = CodedError<EncryptionFailureCode>

/// Why an ``EncryptionFailure``'s data cannot be decrypted. Compare with the static members.
public struct EncryptionFailureCode: LifelineErrorCode, RawRepresentable {
    /// What an ``EncryptionFailure`` carries beside its code, message and cause.
    public typealias Details = EncryptionFailureDetails

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
    public static let passwordDoesNotUnwrapKey = Self(rawValue: "passwordDoesNotUnwrapKey")
    /// The keyring (wrapped key, salt, parameters) fails its checksum: damaged, whatever the password.
    public static let damagedKeyring = Self(rawValue: "damagedKeyring")
    /// The keyring's format or key derivation is unknown or outside the bounds the store reads.
    public static let unsupportedKeyring = Self(rawValue: "unsupportedKeyring")
    /// The key unwrapped, but a sealed record does not authenticate.
    public static let damagedRecord = Self(rawValue: "damagedRecord")
    /// The file is not a readable database, or has no keyring.
    public static let damagedFile = Self(rawValue: "damagedFile")
}

/// What an ``EncryptionFailure`` carries beside its code, message and cause.
public struct EncryptionFailureDetails: Sendable {
    /// Erases this account's database, if the user chooses to.
    public var eraseOption: EraseOption
}

extension CodedError where Code == EncryptionFailureCode {
    /// Creates a failure. The store creates them; the initialiser is for tests of UI code.
    ///
    /// - Parameters:
    ///   - code: Why the data cannot be decrypted.
    ///   - message: A sentence for people; it never contains a secret.
    ///   - cause: The error underneath, if any.
    ///   - eraseOption: The erase the UI may offer.
    public init(code: Code, message: String, cause: (any Error)? = nil, eraseOption: EraseOption) {
        self.init(
            code: code, message: message, details: EncryptionFailureDetails(eraseOption: eraseOption), cause: cause)
    }
}
