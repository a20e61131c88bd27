public import LifelineCore

/// An error from the account store: what went wrong (``code``), a message for people, and the cause.
///
/// Messages are fixed sentences: they never contain a password, a token or a stored value.
public struct StoreError: LifelineError {
    /// What kind of failure this is. Compare with the static members: `error.code == .encryptionFailure`.
    public struct Code: LifelineErrorCode, RawRepresentable {
        /// The code's stable name, for logs and JSON.
        public let rawValue: String

        /// Creates a code from its stable name. Prefer the static members.
        ///
        /// - Parameter rawValue: The code's stable name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// Stored data could not be authenticated: a sealed record, the wrapped data key or the file itself was
        /// damaged or tampered with. No password can fix it; erasing the account's database can.
        public static let encryptionFailure = Code(rawValue: "encryptionFailure")

        /// The server refused the password the database was opened with: the account's password was changed
        /// elsewhere. The spec's "passwords used for db encryption and for account do not match".
        public static let passwordMismatch = Code(rawValue: "passwordMismatch")

        /// Reading or writing the database failed (I/O, permissions, a lock, SQLite): ``StoreError/cause`` says
        /// why. Nothing already stored was changed by the failed write.
        public static let storage = Code(rawValue: "storage")

        /// The disk (or the file's size limit) is full: the write was rolled back whole and nothing already stored
        /// was changed. Free some space and write again.
        public static let diskFull = Code(rawValue: "diskFull")

        /// The ``AccountDatabase`` was closed: its data key is gone and it reads and writes nothing more. Sign in
        /// again for a new one.
        public static let closed = Code(rawValue: "closed")

        /// The store has no database for the account asked for (it was erased, or the identifier is not one the
        /// store listed).
        public static let noSuchAccount = Code(rawValue: "noSuchAccount")

        /// The account belongs to another server than the one asked: its database is not opened with that
        /// server, and a session another server issued is not stored in it.
        public static let otherServer = Code(rawValue: "otherServer")

        /// A parameter was refused: a key derivation outside the bounds the store can read back, a negative
        /// limit.
        public static let invalidParameter = Code(rawValue: "invalidParameter")
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
}

extension StoreError {
    /// The spec's error for a password the server refuses although the database opened with it:
    /// "passwords used for db encryption and for account do not match".
    ///
    /// The sign-in flow answers it as ``OpenedSession/passwordMismatch``; a session runtime that sees the same
    /// refusal later can show this one.
    public static let passwordMismatch = StoreError(
        code: .passwordMismatch,
        message: "passwords used for db encryption and for account do not match"
    )

    /// The error of every call on a closed ``AccountDatabase``.
    static let closed = StoreError(code: .closed, message: "the account database is closed")

    /// A sealed record that fails authentication.
    static func damagedRecord(_ table: String, cause: (any Error)? = nil) -> StoreError {
        StoreError(
            code: .encryptionFailure,
            message: "a sealed record in table \(table) does not authenticate under the data key",
            cause: cause
        )
    }
}
