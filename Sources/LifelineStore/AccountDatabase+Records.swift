internal import Foundation
internal import GRDB
internal import LifelineCore

/// The account row's sealed content.
struct AccountRecord: Sendable {
    var email: String
    /// The server the account belongs to; nil in a file written before accounts were bound to a server.
    var server: ServerIdentity?
    /// The account's user id, as the last session stored named it; kept when the session is cleared.
    var userID: String?
    /// The cached session, its issuer the record's server.
    var session: SessionCredentials? {
        didSet { if let userID = session?.userID { self.userID = userID } }
    }

    init(email: String, server: ServerIdentity?, session: SessionCredentials?, userID: String? = nil) {
        self.email = email
        self.server = server
        self.userID = userID ?? session?.userID
        self.session = session
    }
}

// MARK: - Contexts

extension AccountDatabase {
    static let accountContext = RecordContext(table: .account, row: Data("1".utf8))

    static func chatContext(tag: Data, lastActivity: Int64) -> RecordContext {
        RecordContext(table: .chat, row: tag, bound: [bytes(lastActivity)])
    }

    static func messageContext(tag: Data, chatTag: Data, sentAt: Int64) -> RecordContext {
        RecordContext(table: .message, row: tag, bound: [chatTag, bytes(sentAt)])
    }

    static func spaceContext(tag: Data) -> RecordContext {
        RecordContext(table: .space, row: tag)
    }

    static func memberContext(tag: Data, spaceTag: Data) -> RecordContext {
        RecordContext(table: .member, row: tag, bound: [spaceTag])
    }

    static func userContext(tag: Data) -> RecordContext {
        RecordContext(table: .user, row: tag)
    }

    static func chatStateContext(tag: Data) -> RecordContext {
        RecordContext(table: .chatState, row: tag)
    }

    static func replayContext(position: Int64) -> RecordContext {
        RecordContext(table: .replay, row: bytes(position))
    }

    private static func bytes(_ value: Int64) -> Data {
        var writer = ByteWriter()
        writer.append(value)
        return writer.data
    }
}

// MARK: - Payloads

// Every payload starts with its version. A version is added when a record gains fields; the older versions
// keep decoding, so no migration has to re-seal rows.
extension AccountDatabase {
    /// Account payload 1 (schema v1): email, token, user id, session id. Payload 2 adds the server and the
    /// account's user id, kept when the session is cleared.
    static let accountPayloadVersion = 2
    /// Chat payload 1 (schema v1): id, name, unread count. Payload 2: id, kind, name, parent id, last message
    /// id, unread count, details.
    static let chatPayloadVersion = 2
    /// Message payload 1 (schema v1): id, chat id, author id, body. Payload 2 adds the edit date and details.
    static let messagePayloadVersion = 2
    static let spacePayloadVersion = 1
    static let memberPayloadVersion = 1
    static let userPayloadVersion = 1
    /// Chat state payload 1 (schema v4): chat id, last read id, mention ids, gaps (after and before, in pairs),
    /// catch-up cursor.
    static let chatStatePayloadVersion = 1

    static func writeAccount(_ account: AccountRecord, _ db: Database, _ sealer: RecordSealer) throws {
        var payload = ByteWriter()
        payload.append(accountPayloadVersion)
        payload.append(account.email)
        payload.append(account.server?.description)
        payload.append(account.userID)
        payload.append(account.session?.token)
        payload.append(account.session?.userID)
        payload.append(account.session?.sessionID)
        let sealed = try sealer.seal(payload.bytes, accountContext)
        try db.execute(sql: "INSERT OR REPLACE INTO account (id, payload) VALUES (1, ?)", arguments: [sealed])
    }

    static func readAccount(_ db: Database, _ sealer: RecordSealer) throws -> AccountRecord {
        guard let sealed = try Data.fetchOne(db, sql: "SELECT payload FROM account WHERE id = 1") else {
            throw StoreError(code: .encryptionFailure, message: "the account record is missing")
        }
        return try decodePayload(sealer.open(sealed, accountContext), table: "account") { reader, version in
            guard version == 1 || version == 2 else { throw ByteReader.Malformed() }
            let email = try reader.readString()
            var server: ServerIdentity?
            var accountUserID: String?
            if version == 2 {
                if let text = try reader.readOptionalString() {
                    guard let parsed = ServerIdentity(text) else { throw ByteReader.Malformed() }
                    server = parsed
                }
                accountUserID = try reader.readOptionalString()
            }
            let token = try reader.readOptionalString()
            let userID = try reader.readOptionalString()
            let sessionID = try reader.readOptionalString()
            let session = token.map {
                SessionCredentials(token: $0, userID: userID, sessionID: sessionID, issuer: server)
            }
            return AccountRecord(email: email, server: server, session: session, userID: accountUserID)
        }
    }

    static func chatPayload(_ chat: CachedChat) -> ByteWriter {
        var payload = ByteWriter()
        payload.reserveCapacity(64 + chat.id.utf8.count + chat.name.utf8.count + chat.details.count)
        payload.append(chatPayloadVersion)
        payload.append(chat.id)
        payload.append(chat.kind.rawValue)
        payload.append(chat.name)
        payload.append(chat.parentID)
        payload.append(chat.lastMessageID)
        payload.append(chat.unreadCount)
        payload.append(chat.details)
        return payload
    }

    static func decodeChat(_ plaintext: Data, lastActivity: Int64) throws(StoreError) -> CachedChat {
        try decodePayload(plaintext, table: "chat") { reader, version in
            switch version {
            case 1:
                CachedChat(
                    id: try reader.readString(),
                    kind: .unknown,
                    name: try reader.readString(),
                    lastActivity: Date(storedMilliseconds: lastActivity),
                    unreadCount: try reader.readInt()
                )
            case 2:
                CachedChat(
                    id: try reader.readString(),
                    kind: CachedChat.Kind(rawValue: try reader.readString()),
                    name: try reader.readString(),
                    parentID: try reader.readOptionalString(),
                    lastActivity: Date(storedMilliseconds: lastActivity),
                    lastMessageID: try reader.readOptionalString(),
                    unreadCount: try reader.readInt(),
                    details: try reader.readData()
                )
            default:
                throw ByteReader.Malformed()
            }
        }
    }

    static func messagePayload(_ message: CachedMessage) -> ByteWriter {
        var payload = ByteWriter()
        payload.reserveCapacity(
            80 + message.id.utf8.count + message.chatID.utf8.count + message.authorID.utf8.count
                + message.body.utf8.count + message.details.count
        )
        payload.append(messagePayloadVersion)
        payload.append(message.id)
        payload.append(message.chatID)
        payload.append(message.authorID)
        payload.append(message.body)
        payload.append(message.editedAt?.storedMilliseconds)
        payload.append(message.details)
        return payload
    }

    static func decodeMessage(_ plaintext: Data, sentAt: Int64) throws(StoreError) -> CachedMessage {
        try decodePayload(plaintext, table: "message") { reader, version in
            guard version == 1 || version == 2 else { throw ByteReader.Malformed() }
            var message = CachedMessage(
                id: try reader.readString(),
                chatID: try reader.readString(),
                authorID: try reader.readString(),
                body: try reader.readString(),
                sentAt: Date(storedMilliseconds: sentAt)
            )
            if version == 2 {
                message.editedAt = try reader.readOptionalInt64().map(Date.init(storedMilliseconds:))
                message.details = try reader.readData()
            }
            return message
        }
    }

    static func spacePayload(_ space: CachedSpace) -> ByteWriter {
        var payload = ByteWriter()
        payload.append(spacePayloadVersion)
        payload.append(space.id)
        payload.append(space.name)
        payload.append(space.details)
        return payload
    }

    static func decodeSpace(_ plaintext: Data) throws(StoreError) -> CachedSpace {
        try decodePayload(plaintext, table: "space") { reader, version in
            guard version == 1 else { throw ByteReader.Malformed() }
            return CachedSpace(
                id: try reader.readString(), name: try reader.readString(), details: try reader.readData())
        }
    }

    static func memberPayload(_ member: CachedMember) -> ByteWriter {
        var payload = ByteWriter()
        payload.append(memberPayloadVersion)
        payload.append(member.spaceID)
        payload.append(member.userID)
        payload.append(member.nickname)
        payload.append(member.roles)
        payload.append(member.timeout?.storedMilliseconds)
        payload.append(member.details)
        return payload
    }

    static func decodeMember(_ plaintext: Data) throws(StoreError) -> CachedMember {
        try decodePayload(plaintext, table: "member") { reader, version in
            guard version == 1 else { throw ByteReader.Malformed() }
            return CachedMember(
                spaceID: try reader.readString(),
                userID: try reader.readString(),
                nickname: try reader.readOptionalString(),
                roles: try reader.readStrings(),
                timeout: try reader.readOptionalInt64().map(Date.init(storedMilliseconds:)),
                details: try reader.readData()
            )
        }
    }

    static func userPayload(_ user: CachedUser) -> ByteWriter {
        var payload = ByteWriter()
        payload.append(userPayloadVersion)
        payload.append(user.id)
        payload.append(user.username)
        payload.append(user.displayName)
        payload.append(user.details)
        return payload
    }

    static func decodeUser(_ plaintext: Data) throws(StoreError) -> CachedUser {
        try decodePayload(plaintext, table: "user") { reader, version in
            guard version == 1 else { throw ByteReader.Malformed() }
            return CachedUser(
                id: try reader.readString(),
                username: try reader.readString(),
                displayName: try reader.readOptionalString(),
                details: try reader.readData()
            )
        }
    }

    static func chatStatePayload(_ state: CachedChatState) -> ByteWriter {
        var payload = ByteWriter()
        payload.append(chatStatePayloadVersion)
        payload.append(state.chatID)
        payload.append(state.lastReadID)
        payload.append(state.mentionIDs)
        payload.append(state.gaps.flatMap { [$0.after, $0.before] })
        payload.append(state.catchUpCursor)
        return payload
    }

    static func decodeChatState(_ plaintext: Data) throws(StoreError) -> CachedChatState {
        try decodePayload(plaintext, table: "chatState") { reader, version in
            guard version == 1 else { throw ByteReader.Malformed() }
            let chatID = try reader.readString()
            let lastReadID = try reader.readOptionalString()
            let mentionIDs = try reader.readStrings()
            let ends = try reader.readStrings()
            guard ends.count.isMultiple(of: 2) else { throw ByteReader.Malformed() }
            let gaps = stride(from: 0, to: ends.count, by: 2).map {
                CachedChatState.Gap(after: ends[$0], before: ends[$0 + 1])
            }
            return CachedChatState(
                chatID: chatID, lastReadID: lastReadID, mentionIDs: mentionIDs, gaps: gaps,
                catchUpCursor: try reader.readOptionalString())
        }
    }

    static func insertReplayEntry(_ entry: Data, at position: Int64, _ db: Database, _ sealer: RecordSealer) throws {
        let sealed = try sealer.seal(entry, replayContext(position: position))
        try db.execute(sql: "INSERT INTO replay (position, payload) VALUES (?, ?)", arguments: [position, sealed])
    }

    /// Decodes a row's column, turning a value of the wrong type (damage) into an encryption failure.
    static func column<T: DatabaseValueConvertible>(_ row: Row, _ index: Int, table: String) throws(StoreError) -> T {
        do {
            return try row.decode(atIndex: index)
        } catch {
            throw StoreError.damagedRecord(table, cause: error)
        }
    }

    /// Reads an authenticated payload: its version, then what `body` reads for that version, then nothing more.
    static func decodePayload<T>(
        _ plaintext: Data,
        table: String,
        _ body: (inout ByteReader, Int) throws -> T
    ) throws(StoreError) -> T {
        var reader = ByteReader(plaintext)
        do {
            let version = try reader.readInt()
            let value = try body(&reader, version)
            guard reader.isAtEnd else { throw ByteReader.Malformed() }
            return value
        } catch {
            throw StoreError.damagedRecord(table, cause: error)
        }
    }
}
