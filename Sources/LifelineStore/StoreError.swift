/// An error from the account store: what went wrong (``code``), a message for people, and the cause.
///
/// Messages are fixed sentences: they never contain a password, a token or a stored value.
public struct StoreError: Error, CustomStringConvertible {
    /// What kind of failure this is. Compare with the static members: `error.code == .encryptionFailure`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name, for logs and JSON.
        public let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// Stored data could not be authenticated: a sealed record, the wrapped data key or the file itself was
        /// damaged or tampered with. No password can fix it; erasing the account's database can.
        public static let encryptionFailure = Code("encryptionFailure")

        /// The password does not unwrap this database's data key.
        public static let wrongPassword = Code("wrongPassword")

        /// The server refused the password the database was opened with: the account's password was changed
        /// elsewhere. The spec's "passwords used for db encryption and for account do not match".
        public static let passwordMismatch = Code("passwordMismatch")

        /// The server could not be reached to verify a password.
        public static let serverUnreachable = Code("serverUnreachable")

        /// The server answered a password verification with a failure other than a wrong password.
        public static let verificationFailed = Code("verificationFailed")

        /// Reading or writing the database failed (disk, permissions, SQLite): ``StoreError/cause`` says why.
        public static let storage = Code("storage")

        /// The store's parameters were refused: a key derivation below the recommended minimum.
        public static let invalidParameter = Code("invalidParameter")

        /// The code's name.
        public var description: String { name }
    }

    /// What kind of failure this is.
    public var code: Code

    /// A sentence for people. Never contains a secret or a stored value.
    public var message: String

    /// The error that caused this one, if any (a `DatabaseError`, a `CryptoKitError`, a file system error).
    public var cause: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - message: A sentence for people; it must not contain a secret.
    ///   - cause: The error that caused this one, if any.
    public init(code: Code, message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The code, the message and the cause.
    public var description: String {
        guard let cause else { return "\(code): \(message)" }
        return "\(code): \(message) (cause: \(cause))"
    }
}

extension StoreError {
    /// The spec's error for a password the server refuses although the database opened with it:
    /// "passwords used for db encryption and for account do not match".
    ///
    /// ``AccountDatabase/renewSession(password:verifier:)`` throws it; a session runtime that sees the same refusal
    /// elsewhere can show this one.
    public static let passwordMismatch = StoreError(
        code: .passwordMismatch,
        message: "passwords used for db encryption and for account do not match"
    )

    /// Wraps any error thrown while using the database as a ``StoreError``, keeping store errors as they are.
    static func storage(_ error: any Error, _ message: String) -> StoreError {
        if let error = error as? StoreError { return error }
        return StoreError(code: .storage, message: message, cause: error)
    }

    /// A sealed record that fails authentication.
    static func damagedRecord(_ table: String, cause: (any Error)? = nil) -> StoreError {
        StoreError(
            code: .encryptionFailure,
            message: "a sealed record in table \(table) does not authenticate under the data key",
            cause: cause
        )
    }
}
