internal import Crypto
internal import Foundation
internal import GRDB

/// The account's wrapped data key and what unwrapping it needs: the one row of table `keyring`.
///
/// The data key (256 random bits) is sealed with AES-256-GCM under a key-encryption key derived from the
/// password by ``keyDerivation`` with ``salt``. The seal's associated data binds the format, the function, its
/// parameters and the salt, so none of them can be changed without the unwrap failing.
///
/// ``checksum`` is an unkeyed SHA-256 of every other field. It cannot stop a deliberate change (anyone can
/// recompute it) but tells accidental damage to the keyring apart from a wrong password without asking the
/// server: a damaged keyring is an encryption failure whatever password is typed.
///
/// The `keyring` table's shape never changes across schema versions: it is read before migrations run.
struct Keyring: Sendable, Equatable {
    static let currentFormat = 1

    var format: Int
    var kdfName: String
    var kdfParameters: String
    var salt: Data
    /// nonce ‖ ciphertext ‖ tag.
    var wrappedKey: Data
    var checksum: Data

    /// Why a keyring cannot be used, whatever the password.
    enum Damage: Error {
        /// The checksum does not match the fields.
        case checksumMismatch
        /// The format or the key derivation is unknown or out of range.
        case unsupported
        /// The wrapped key is not a well-formed sealed box.
        case malformed
    }

    /// Wraps `dataKey` under a key derived from `password` with a fresh random salt.
    ///
    /// The derivation is checked against the bounds the unlock enforces first, so a keyring this writes is one
    /// ``unwrap(password:)`` accepts. The data key goes from its `SymmetricKey` straight into the seal: no copy
    /// of it is left in an unzeroed buffer.
    ///
    /// - Throws: ``StoreError`` with code ``StoreErrorCode/invalidParameter`` for a derivation outside the
    ///   bounds; a `CryptoKitError` if sealing fails.
    static func wrap(_ dataKey: SymmetricKey, password: String, using keyDerivation: KeyDerivation) throws -> Keyring {
        try keyDerivation.checkBounds()
        let salt = Data(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) })
        var keyring = Keyring(
            format: currentFormat,
            kdfName: keyDerivation.name,
            kdfParameters: keyDerivation.parameters,
            salt: salt,
            wrappedKey: Data(),
            checksum: Data()
        )
        let wrappingKey = try keyDerivation.deriveKey(password: password, salt: salt)
        let associatedData = keyring.associatedData
        let box = try dataKey.withUnsafeBytes { rawKey in
            try AES.GCM.seal(rawKey, using: wrappingKey, authenticating: associatedData)
        }
        guard let combined = box.combined else {
            preconditionFailure("AES.GCM.seal returned a box without a combined form for a 12-byte nonce")
        }
        keyring.wrappedKey = combined
        keyring.checksum = keyring.computedChecksum
        return keyring
    }

    /// The stored key derivation, after checking the keyring is intact and of a known format.
    func checkedKeyDerivation() throws(Damage) -> KeyDerivation {
        guard checksum == computedChecksum else { throw .checksumMismatch }
        guard format == Self.currentFormat, let keyDerivation = KeyDerivation(name: kdfName, parameters: kdfParameters)
        else { throw .unsupported }
        return keyDerivation
    }

    /// Unwraps the data key with `password`.
    ///
    /// - Returns: The data key, or nil when the password does not unwrap it.
    /// - Throws: ``Damage`` when no password could unwrap it.
    func unwrap(password: String) throws(Damage) -> SymmetricKey? {
        let keyDerivation = try checkedKeyDerivation()
        let box: AES.GCM.SealedBox
        do {
            box = try AES.GCM.SealedBox(combined: wrappedKey)
        } catch {
            throw .malformed
        }
        guard let wrappingKey = try? keyDerivation.deriveKey(password: password, salt: salt),
            var rawKey = try? AES.GCM.open(box, using: wrappingKey, authenticating: associatedData)
        else { return nil }
        // The opened bytes are the data key: copy them into a `SymmetricKey` (zeroed when released) and zero
        // this buffer, which nothing else references.
        defer { rawKey.withUnsafeMutableBytes { zeroize($0) } }
        guard rawKey.count == 32 else { throw .malformed }
        return SymmetricKey(data: rawKey)
    }

    /// ``unwrap(password:)`` on a thread of its own: the derivation takes tens of milliseconds at the default
    /// and up to seconds at the ceiling, too long to hold a thread of the cooperative pool.
    func unwrapOnOwnThread(password: String) async throws(Damage) -> SymmetricKey? {
        let keyring = self
        return try await onOwnThread { () throws(Damage) -> SymmetricKey? in try keyring.unwrap(password: password) }
    }

    /// The same keyring with its checksum recomputed. Tests use it to play an attacker who edits the row.
    static func withRecomputedChecksum(_ keyring: Keyring) -> Keyring {
        var copy = keyring
        copy.checksum = copy.computedChecksum
        return copy
    }

    private var associatedData: Data {
        var writer = ByteWriter()
        writer.append("lifeline.store.keyring")
        writer.append(format)
        writer.append(kdfName)
        writer.append(kdfParameters)
        writer.append(salt)
        return writer.data
    }

    private var computedChecksum: Data {
        var writer = ByteWriter()
        writer.append(associatedData)
        writer.append(wrappedKey)
        return Data(SHA256.hash(data: writer.bytes))
    }
}

// MARK: - Storage

extension Keyring {
    static let createTableSQL = """
        CREATE TABLE keyring (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            format INTEGER NOT NULL,
            kdf TEXT NOT NULL,
            kdfParameters TEXT NOT NULL,
            salt BLOB NOT NULL,
            wrappedKey BLOB NOT NULL,
            checksum BLOB NOT NULL
        )
        """

    /// Reads the keyring row; nil when the table has no row.
    static func read(_ db: Database) throws -> Keyring? {
        let sql = "SELECT format, kdf, kdfParameters, salt, wrappedKey, checksum FROM keyring WHERE id = 1"
        guard let row = try Row.fetchOne(db, sql: sql) else { return nil }
        // `decode` throws on a value of the wrong type, where a subscript would trap: the row comes from disk.
        return Keyring(
            format: try row.decode(atIndex: 0),
            kdfName: try row.decode(atIndex: 1),
            kdfParameters: try row.decode(atIndex: 2),
            salt: try row.decode(atIndex: 3),
            wrappedKey: try row.decode(atIndex: 4),
            checksum: try row.decode(atIndex: 5)
        )
    }

    /// Writes this keyring as the one row, replacing the previous one.
    func write(_ db: Database) throws {
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO keyring (id, format, kdf, kdfParameters, salt, wrappedKey, checksum)
                VALUES (1, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [format, kdfName, kdfParameters, salt, wrappedKey, checksum]
        )
    }
}
