internal import Crypto
internal import Foundation

/// A table's sealed column, with the start of the associated data of every value in it computed once.
struct RecordTable: Sendable {
    let name: String
    /// "lifeline.store.record.v1", the table and the column, as ``ByteWriter`` encodes them.
    let prefix: [UInt8]

    init(_ name: String, column: String = "payload") {
        self.name = name
        var writer = ByteWriter()
        writer.append("lifeline.store.record.v1")
        writer.append(name)
        writer.append(column)
        prefix = writer.bytes
    }

    static let account = RecordTable("account")
    static let chat = RecordTable("chat")
    static let message = RecordTable("message")
    static let space = RecordTable("space")
    static let member = RecordTable("member")
    static let user = RecordTable("user")
    static let replay = RecordTable("replay")
    static let outbox = RecordTable("outbox")
    static let chatState = RecordTable("chatState")
    static let draft = RecordTable("draft")
}

/// Where a sealed value lives: its table, column and row, and the row's plaintext columns.
///
/// It is the associated data of the value's AES-GCM seal, so a sealed value copied to another row, column or
/// table, or a row whose plaintext ordering key was edited, fails authentication when read.
struct RecordContext {
    var table: RecordTable
    /// The row's identity: its keyed tag, or a fixed key for one-row tables.
    var row: Data
    /// The row's plaintext columns (ordering keys, chat tag), bound so they cannot be changed unnoticed.
    var bound: [Data] = []

    var associatedData: [UInt8] {
        var writer = ByteWriter()
        writer.reserveCapacity(table.prefix.count + 8 + row.count + bound.reduce(0) { $0 + 8 + $1.count })
        writer.appendRaw(table.prefix)
        writer.append(row)
        for value in bound {
            writer.append(value)
        }
        return writer.bytes
    }
}

/// Seals and opens stored values under keys derived from the account's data key, and computes row tags.
///
/// - Sealing: AES-256-GCM with a random 96-bit nonce per value; the stored form is nonce ‖ ciphertext ‖ tag
///   (28 bytes more than the plaintext).
/// - Row tags: HMAC-SHA256 of a record kind and a server id under a separate key, cut to 16 bytes. They let
///   a row be found by its id without storing the id, and reveal only whether two rows share an id.
struct RecordSealer: Sendable {
    private let sealingKey: SymmetricKey
    /// HMAC-SHA256 already keyed with the row-tag key: each tag copies it, so the key's pads are hashed once.
    private let keyedTagMAC: HMAC<SHA256>

    init(dataKey: SymmetricKey) {
        sealingKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: dataKey,
            info: Data("lifeline.store.v1.sealing".utf8),
            outputByteCount: 32
        )
        let tagKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: dataKey,
            info: Data("lifeline.store.v1.row-tags".utf8),
            outputByteCount: 32
        )
        keyedTagMAC = HMAC<SHA256>(key: tagKey)
    }

    /// Seals a value under a fresh random nonce.
    func seal(_ plaintext: some DataProtocol, _ context: RecordContext) throws -> Data {
        let box = try AES.GCM.seal(plaintext, using: sealingKey, authenticating: context.associatedData)
        // `combined` is non-nil for the default 12-byte nonce.
        guard let combined = box.combined else {
            preconditionFailure("AES.GCM.seal returned a box without a combined form for a 12-byte nonce")
        }
        return combined
    }

    /// Opens a sealed value.
    ///
    /// - Throws: ``StoreError`` with code ``StoreErrorCode/encryptionFailure`` when the value is malformed or
    ///   does not authenticate in `context`.
    func open(_ sealed: Data, _ context: RecordContext) throws(StoreError) -> Data {
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            return try AES.GCM.open(box, using: sealingKey, authenticating: context.associatedData)
        } catch {
            throw StoreError.damagedRecord(context.table.name, cause: error)
        }
    }

    /// The keyed tag that identifies the row of the record of `kind` with server id `id`.
    func rowTag(_ kind: String, _ id: String) -> Data {
        var writer = ByteWriter()
        writer.append(kind)
        writer.append(id)
        return tag(writer.bytes)
    }

    /// The keyed tag of a record identified by two ids (a member: its space and its user).
    func rowTag(_ kind: String, _ first: String, _ second: String) -> Data {
        var writer = ByteWriter()
        writer.append(kind)
        writer.append(first)
        writer.append(second)
        return tag(writer.bytes)
    }

    private func tag(_ bytes: [UInt8]) -> Data {
        var mac = keyedTagMAC
        mac.update(data: bytes)
        return mac.finalize().withUnsafeBytes { Data($0.prefix(16)) }
    }
}
