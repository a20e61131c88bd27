internal import Foundation
internal import GRDB

/// What ``AccountDatabase/drafts()`` read: the drafts that open, and one error per row that does not.
public struct StoredDrafts: Sendable {
    /// The drafts that open, by chat id.
    public var drafts: [String: String]
    /// One ``StoreError`` (``StoreErrorCode/encryptionFailure``) per row that does not authenticate or decode:
    /// reported and skipped, never deleted.
    public var damaged: [StoreError]
}

extension AccountDatabase {
    /// The draft payload's version: the chat id, then the text.
    static let draftPayloadVersion = 1

    static func draftContext(tag: Data) -> RecordContext {
        RecordContext(table: .draft, row: tag)
    }

    /// Every chat's draft: the text the user typed in its composer and has not sent (schema `v6`).
    ///
    /// A row that does not open is skipped and reported in ``StoredDrafts/damaged``; the others are read all the
    /// same.
    ///
    /// - Throws: ``StoreError`` when the table cannot be read at all (``StoreErrorCode/storage``,
    ///   ``StoreErrorCode/closed``).
    public func drafts() async throws(StoreError) -> StoredDrafts {
        try await read("the drafts") { db, sealer in
            let rows = try Row.fetchCursor(db, sql: "SELECT tag, payload FROM draft")
            var drafts: [String: String] = [:]
            var damaged: [StoreError] = []
            while let row = try rows.next() {
                do throws(StoreError) {
                    let tag: Data = try Self.column(row, 0, table: "draft")
                    let sealed: Data = try Self.column(row, 1, table: "draft")
                    let plaintext = try sealer.open(sealed, Self.draftContext(tag: tag))
                    let (chatID, text) = try Self.decodePayload(plaintext, table: "draft") { reader, version in
                        guard version == 1 else { throw ByteReader.Malformed() }
                        return (try reader.readString(), try reader.readString())
                    }
                    // A row whose tag is not its chat's was moved from another row: damaged.
                    guard sealer.rowTag("draft", chatID) == tag else { throw StoreError.damagedRecord("draft") }
                    drafts[chatID] = text
                } catch {
                    damaged.append(error)
                }
            }
            return StoredDrafts(drafts: drafts, damaged: damaged)
        }
    }

    /// Keeps a chat's draft, replacing the one it had; an empty text removes it (``deleteDraft(chatID:)``).
    ///
    /// - Parameters:
    ///   - text: The draft's text.
    ///   - chatID: The chat's id.
    public func saveDraft(_ text: String, chatID: String) async throws(StoreError) {
        guard !text.isEmpty else {
            try await deleteDraft(chatID: chatID)
            return
        }
        try await write("a draft") { db, sealer in
            let tag = sealer.rowTag("draft", chatID)
            var payload = ByteWriter()
            payload.append(Self.draftPayloadVersion)
            payload.append(chatID)
            payload.append(text)
            let sealed = try sealer.seal(payload.bytes, Self.draftContext(tag: tag))
            try db.execute(sql: "INSERT OR REPLACE INTO draft (tag, payload) VALUES (?, ?)", arguments: [tag, sealed])
        }
    }

    /// Removes a chat's draft: it was sent, or cleared. Removing one that is not there does nothing; the old
    /// text is overwritten in the file (`secure_delete`).
    ///
    /// - Parameter chatID: The chat's id.
    public func deleteDraft(chatID: String) async throws(StoreError) {
        try await write("a draft") { db, sealer in
            try db.execute(sql: "DELETE FROM draft WHERE tag = ?", arguments: [sealer.rowTag("draft", chatID)])
        }
    }
}
