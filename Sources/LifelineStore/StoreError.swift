public import LifelineCore

/// An error from the account store: what went wrong (a ``StoreErrorCode``), a message for people, and the cause
/// (`CodedError` over the code).
///
/// Messages are fixed sentences: they never contain a password, a token or a stored value.
public typealias StoreError = CodedError<StoreErrorCode>

/// What kind of failure a ``StoreError`` is. Compare with the static members: `error.code == .encryptionFailure`.
public struct StoreErrorCode: LifelineErrorCode, RawRepresentable {
    /// The code's stable name, as printed in `--json` output.
    public var rawValue: String

    /// Creates a code from its stable name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Stored data could not be authenticated: a sealed record, the wrapped data key or the file itself was
    /// damaged or tampered with. No password can fix it; erasing the account's database can.
    public static let encryptionFailure = StoreErrorCode(rawValue: "encryptionFailure")

    /// The server refused the password the database was opened with: the account's password was changed
    /// elsewhere. The spec's "passwords used for db encryption and for account do not match".
    public static let passwordMismatch = StoreErrorCode(rawValue: "passwordMismatch")

    /// Reading or writing the database failed (I/O, permissions, a lock, SQLite): `cause` says
    /// why. Nothing already stored was changed by the failed write.
    public static let storage = StoreErrorCode(rawValue: "storage")

    /// The disk (or the file's size limit) is full: the write was rolled back whole and nothing already stored
    /// was changed. Free some space and write again.
    public static let diskFull = StoreErrorCode(rawValue: "diskFull")

    /// The ``AccountDatabase`` was closed: its data key is gone and it reads and writes nothing more. Sign in
    /// again for a new one.
    public static let closed = StoreErrorCode(rawValue: "closed")

    /// The store has no database for the account asked for (it was erased, or the identifier is not one the
    /// store listed).
    public static let noSuchAccount = StoreErrorCode(rawValue: "noSuchAccount")

    /// The account belongs to another server than the one asked: its database is not opened with that
    /// server, and a session another server issued is not stored in it.
    public static let otherServer = StoreErrorCode(rawValue: "otherServer")

    /// A parameter was refused: a key derivation outside the bounds the store can read back, a negative
    /// limit.
    public static let invalidParameter = StoreErrorCode(rawValue: "invalidParameter")
}

extension StoreError {
    /// The spec's error for a password the server refuses although the database opened with it:
    /// "passwords used for db encryption and for account do not match".
    ///
    /// The sign-in flow answers it as ``OpenedSession/passwordMismatch``; a session runtime that sees the same
    /// refusal later can show this one.
    public static var passwordMismatch: StoreError {
        StoreError(code: .passwordMismatch, message: "passwords used for db encryption and for account do not match")
    }

    /// The error of every call on a closed ``AccountDatabase``.
    static var closed: StoreError { StoreError(code: .closed, message: "the account database is closed") }

    /// A sealed record that fails authentication.
    static func damagedRecord(_ table: String, cause: (any Error)? = nil) -> StoreError {
        StoreError(
            code: .encryptionFailure,
            message: "a sealed record in table \(table) does not authenticate under the data key",
            cause: cause
        )
    }
}
