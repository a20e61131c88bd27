import Foundation

/// Decodes a `Ready` frame straight from its bytes into ``Ready``, several times faster than `JSONDecoder`.
///
/// It accepts a frame only when `JSONDecoder` would decode the same ``Ready`` from it: the whole frame must be
/// RFC 8259 JSON, a top-level object whose `type` member (the first, if repeated) is `"Ready"`; models' fields
/// are read with the rules of their `Codable` conformances (optional fields absent or null are `nil`,
/// `User.flags` defaults to 0, `User.discriminator` to the empty string, `Ready`'s arrays to empty; unknown
/// fields of any shape are skipped); when a key appears twice the first wins, as in `JSONDecoder`.
///
/// Where `JSONDecoder`'s behaviour is lenient or intricate it refuses instead, and ``BonfireDecoder`` decodes
/// the frame again with `JSONDecoder`: syntax errors `JSONDecoder` tolerates in values nobody decodes (trailing
/// commas, unknown escapes, leading zeros, raw control characters), integers not written as plain integer
/// literals (`1e3`, `2.0`), nesting deeper than ``JSONScanner/maximumDepth``, a byte-order mark, and a first
/// member `type` whose value is written with escapes.
enum FastReadyDecoder {
    /// Whether the fast path is worth trying on `bytes`: they start with `{` and, when the first member is
    /// `type` (Stoat writes it first), its value is `"Ready"`. ``decode(_:)-(Data)`` checks everything again,
    /// and stops as soon as it reads a `type` that is not `Ready`, wherever it is.
    static func mightBeReady(_ bytes: Data) -> Bool {
        bytes.withUnsafeBytes { raw in
            var scanner = JSONScanner(raw.bindMemory(to: UInt8.self))
            guard scanner.consume("{") else { return false }
            guard scanner.consume("\"type\""), scanner.consume(":") else { return true }
            return scanner.consume("\"Ready\"")
        }
    }

    /// Decodes a `Ready` frame.
    ///
    /// - Throws: ``JSONScanError`` when the frame is not one this decoder accepts (see the type's discussion);
    ///   `JSONDecoder` may still accept it.
    static func decode(_ bytes: Data) throws(JSONScanError) -> Ready {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(JSONScanError) -> Ready in try decode(raw.bindMemory(to: UInt8.self)) }
        }.get()
    }

    /// Decodes a `Ready` frame from UTF-8 bytes (see ``decode(_:)-(Data)``).
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONScanError) -> Ready {
        var scanner = JSONScanner(bytes)
        let ready = try scanner.readReadyFrame()
        try scanner.finish()
        return ready
    }

    /// Whether the direct MessagePack path is worth trying on `bytes`: a map whose first key, when it is
    /// `type`, has the value `"Ready"` (as ``mightBeReady(_:)`` for JSON).
    static func mightBeReady(messagePack bytes: Data) -> Bool {
        bytes.withUnsafeBytes { raw in
            var reader = MessagePackReader(raw.bindMemory(to: UInt8.self))
            guard (try? reader.enterObject()) == true else { return false }
            guard let key = try? reader.readKey(), reader.key(key, is: "type") else { return true }
            return (try? reader.readString()) == "Ready"
        }
    }

    /// Decodes a MessagePack `Ready` frame straight into ``Ready``, through the same field dispatch as JSON.
    ///
    /// - Throws: ``JSONScanError`` when ``MessagePackReader`` does not take the frame (see its discussion); the
    ///   transcoding path may still accept it.
    static func decode(messagePack bytes: Data) throws(JSONScanError) -> Ready {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(JSONScanError) -> Ready in
                var reader = MessagePackReader(raw.bindMemory(to: UInt8.self))
                let ready = try reader.readReadyFrame()
                try reader.finish()
                return ready
            }
        }.get()
    }

    // The members each model decodes, by their wire names; the index is the field's bit in `seen`. A test ties
    // each list to its model's `CodingKeys`, so a field added to a model cannot be missed here.
    static let readyKeys: [StaticString] = [
        "type", "users", "servers", "channels", "members", "emojis", "channel_unreads",
    ]
    static let userKeys: [StaticString] = [
        "_id", "username", "discriminator", "display_name", "pronouns", "avatar", "relations", "badges", "status",
        "flags", "privileged", "bot", "relationship", "online",
    ]
    static let relationshipKeys: [StaticString] = ["_id", "status"]
    static let statusKeys: [StaticString] = ["text", "presence"]
    static let botKeys: [StaticString] = ["owner"]
    static let fileKeys: [StaticString] = [
        "_id", "tag", "filename", "metadata", "content_type", "size", "deleted", "reported", "message_id", "user_id",
        "server_id", "object_id",
    ]
    static let metadataKeys: [StaticString] = ["type", "width", "height"]
    static let serverKeys: [StaticString] = [
        "_id", "owner", "name", "description", "channels", "categories", "system_messages", "roles",
        "default_permissions", "icon", "banner", "flags", "nsfw", "analytics", "discoverable",
        "approximate_member_count",
    ]
    static let categoryKeys: [StaticString] = ["id", "title", "channels"]
    static let systemMessagesKeys: [StaticString] = ["user_joined", "user_left", "user_kicked", "user_banned"]
    static let roleKeys: [StaticString] = ["_id", "name", "permissions", "colour", "hoist", "rank", "icon"]
    static let overrideKeys: [StaticString] = ["a", "d"]
    static let channelKeys: [StaticString] = [
        "_id", "channel_type", "name", "server", "user", "owner", "recipients", "description", "active",
        "last_message_id", "icon", "permissions", "default_permissions", "role_permissions", "nsfw", "voice",
        "slowmode",
    ]
    static let voiceKeys: [StaticString] = ["max_users"]
    static let memberKeys: [StaticString] = [
        "_id", "joined_at", "nickname", "pronouns", "avatar", "roles", "timeout", "can_publish", "can_receive",
    ]
    static let memberIDKeys: [StaticString] = ["server", "user"]
    static let unreadKeys: [StaticString] = ["_id", "last_id", "mentions"]
    static let unreadIDKeys: [StaticString] = ["channel", "user"]
    static let emojiKeys: [StaticString] = ["_id", "parent", "creator_id", "name", "animated", "nsfw"]
    static let parentKeys: [StaticString] = ["type", "id"]
}

extension ReadyReader {
    /// The bit of the field of `names` that `key` names and `seen` lacks, or nil when the member is to be
    /// skipped: unknown, or a repeat (the first occurrence wins, as in `JSONDecoder`).
    ///
    /// The name after the last one matched (`next`) is tried first: a server writes a model's fields in the
    /// same order every time, mostly the order of `names`, so most keys match at the first try instead of
    /// after a scan of the names before them.
    @inline(__always)
    private func field(_ key: Key, in names: [StaticString], seen: inout UInt32, next: inout Int) -> Int? {
        var match: Int?
        if next < names.count, self.key(key, is: names[next]) {
            match = next
        } else {
            match = names.indices.first { self.key(key, is: names[$0]) }
        }
        guard let index = match, seen & (1 << index) == 0 else { return nil }
        seen |= 1 << index
        next = index + 1
        return index
    }

    private func missing() -> JSONScanError {
        JSONScanError(code: .missingField, offset: offset)
    }

    /// Reads an array whose elements `element` reads.
    @inline(__always)
    private mutating func readArray<Element>(
        _ element: (inout Self) throws(JSONScanError) -> Element
    ) throws(JSONScanError) -> [Element] {
        var result: [Element] = []
        guard try enterArray() else { return result }
        result.reserveCapacity(elementCountHint(elementSize: MemoryLayout<Element>.stride))
        repeat {
            result.append(try element(&self))
        } while try nextElement()
        return result
    }

    private mutating func readStrings() throws(JSONScanError) -> [String] {
        try readArray { (scanner: inout Self) throws(JSONScanError) in try scanner.readString() }
    }

    // Element readers for `readArray`, which cannot take a mutating method.
    private static func readUser(_ scanner: inout Self) throws(JSONScanError) -> User { try scanner.readUser() }
    private static func readServer(_ scanner: inout Self) throws(JSONScanError) -> Server {
        try scanner.readServer()
    }
    private static func readChannel(_ scanner: inout Self) throws(JSONScanError) -> Channel {
        try scanner.readChannel()
    }
    private static func readMember(_ scanner: inout Self) throws(JSONScanError) -> Member {
        try scanner.readMember()
    }
    private static func readEmoji(_ scanner: inout Self) throws(JSONScanError) -> Emoji {
        try scanner.readEmoji()
    }
    private static func readChannelUnread(_ scanner: inout Self) throws(JSONScanError) -> ChannelUnread {
        try scanner.readChannelUnread()
    }
    private static func readRelationship(_ scanner: inout Self) throws(JSONScanError) -> User.Relationship {
        try scanner.readRelationship()
    }
    private static func readCategory(_ scanner: inout Self) throws(JSONScanError) -> Server.Category {
        try scanner.readCategory()
    }

    private mutating func readOptionalString() throws(JSONScanError) -> String? {
        readNull() ? nil : try readString()
    }

    private mutating func readOptionalBool() throws(JSONScanError) -> Bool? {
        readNull() ? nil : try readBool()
    }

    private mutating func readOptionalInt() throws(JSONScanError) -> Int? {
        readNull() ? nil : try readInt()
    }

    private mutating func readOptionalInt64() throws(JSONScanError) -> Int64? {
        readNull() ? nil : try readInt64()
    }

    private mutating func readOptionalFile() throws(JSONScanError) -> File? {
        readNull() ? nil : try readFile()
    }

    /// Reads the top-level object of a frame whose `type` is `Ready`.
    mutating func readReadyFrame() throws(JSONScanError) -> Ready {
        var type: String?
        var ready = Ready()
        var seen: UInt32 = 0
        var next = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.readyKeys, seen: &seen, next: &next) {
                case 0:
                    // Fail fast on another event, wherever its `type` is: the caller decodes it with JSONDecoder.
                    type = try readString()
                    guard type == "Ready" else { throw JSONScanError(code: .notReady, offset: offset) }
                case 1: ready.users = readNull() ? [] : try readArray(Self.readUser)
                case 2: ready.servers = readNull() ? [] : try readArray(Self.readServer)
                case 3: ready.channels = readNull() ? [] : try readArray(Self.readChannel)
                case 4: ready.members = readNull() ? [] : try readArray(Self.readMember)
                case 5: ready.emojis = readNull() ? [] : try readArray(Self.readEmoji)
                case 6: ready.channelUnreads = readNull() ? [] : try readArray(Self.readChannelUnread)
                default: try skipValue()
                }
            } while try nextMember()
        }
        guard type == "Ready" else { throw JSONScanError(code: .notReady, offset: 0) }
        return ready
    }

    mutating func readUser() throws(JSONScanError) -> User {
        var id: String?
        var username: String?
        var user = User(id: "", username: "", discriminator: "")
        var seen: UInt32 = 0
        var next = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.userKeys, seen: &seen, next: &next) {
                case 0: id = try readString()
                case 1: username = try readString()
                case 2: user.discriminator = try readOptionalString() ?? ""
                case 3: user.displayName = try readOptionalString()
                case 4: user.pronouns = try readOptionalString()
                case 5: user.avatar = readEmptyObject() ? nil : try readOptionalFile()  // the gateway's `{}`
                case 6: user.relations = readNull() ? nil : try readArray(Self.readRelationship)
                case 7: user.badges = try readOptionalInt()
                case 8: user.status = readNull() ? nil : try readStatus()
                case 9: user.flags = try readOptionalInt() ?? 0
                case 10: user.privileged = try readOptionalBool()
                case 11: user.bot = readNull() ? nil : try readBot()
                case 12: user.relationship = try readOptionalString()
                case 13: user.online = try readOptionalBool()
                default: try skipValue()
                }
            } while try nextMember()
        }
        guard let id, let username else { throw missing() }
        user.id = id
        user.username = username
        return user
    }

    mutating func readRelationship() throws(JSONScanError) -> User.Relationship {
        var id: String?
        var status: String?
        var seen: UInt32 = 0
        var next = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.relationshipKeys, seen: &seen, next: &next) {
                case 0: id = try readString()
                case 1: status = try readString()
                default: try skipValue()
                }
            } while try nextMember()
        }
        guard let id, let status else { throw missing() }
        return User.Relationship(userID: id, status: status)
    }

    mutating func readStatus() throws(JSONScanError) -> User.Status {
        var status = User.Status()
        var seen: UInt32 = 0
        var next = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.statusKeys, seen: &seen, next: &next) {
                case 0: status.text = try readOptionalString()
                case 1: status.presence = try readOptionalString()
                default: try skipValue()
                }
            } while try nextMember()
        }
        return status
    }

    mutating func readBot() throws(JSONScanError) -> User.Bot {
        var owner: String?
        var seen: UInt32 = 0
        var next = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.botKeys, seen: &seen, next: &next) {
                case 0: owner = try readString()
                default: try skipValue()
                }
            } while try nextMember()
        }
        guard let owner else { throw missing() }
        return User.Bot(owner: owner)
    }

    mutating func readFile() throws(JSONScanError) -> File {
        var id: String?
        var tag: String?
        var file = File(id: "", tag: "")
        var seen: UInt32 = 0
        var next = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.fileKeys, seen: &seen, next: &next) {
                case 0: id = try readString()
                case 1: tag = try readString()
                case 2: file.filename = try readOptionalString()
                case 3: file.metadata = readNull() ? nil : try readMetadata()
                case 4: file.contentType = try readOptionalString()
                case 5: file.size = try readOptionalInt()
                case 6: file.deleted = try readOptionalBool()
                case 7: file.reported = try readOptionalBool()
                case 8: file.messageID = try readOptionalString()
                case 9: file.userID = try readOptionalString()
                case 10: file.serverID = try readOptionalString()
                case 11: file.objectID = try readOptionalString()
                default: try skipValue()
                }
            } while try nextMember()
        }
        guard let id, let tag else { throw missing() }
        file.id = id
        file.tag = tag
        return file
    }

    mutating func readMetadata() throws(JSONScanError) -> File.Metadata {
        var metadata = File.Metadata(type: nil)
        var seen: UInt32 = 0
        var next = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.metadataKeys, seen: &seen, next: &next) {
                case 0: metadata.type = try readOptionalString()
                case 1: metadata.width = try readOptionalInt()
                case 2: metadata.height = try readOptionalInt()
                default: try skipValue()
                }
            } while try nextMember()
        }
        return metadata
    }

    mutating func readServer() throws(JSONScanError) -> Server {
        var id: String?
        var owner: String?
        var name: String?
        var channels: [String]?
        var server = Server(id: "", owner: "", name: "")
        var seen: UInt32 = 0
        var next = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.serverKeys, seen: &seen, next: &next) {
                case 0: id = try readString()
                case 1: owner = try readString()
                case 2: name = try readString()
                case 3: server.description = try readOptionalString()
                case 4: channels = try readStrings()
                case 5: server.categories = readNull() ? nil : try readArray(Self.readCategory)
                case 6: server.systemMessages = readNull() ? nil : try readSystemMessages()
                case 7: server.roles = readNull() ? nil : try readRoles()
                case 8: server.defaultPermissions = try readOptionalInt64()
                case 9: server.icon = try readOptionalFile()
                case 10: server.banner = try readOptionalFile()
                case 11: server.flags = try readOptionalInt()
                case 12: server.nsfw = try readOptionalBool()
                case 13: server.analytics = try readOptionalBool()
                case 14: server.discoverable = try readOptionalBool()
                case 15: server.approximateMemberCount = try readOptionalInt()
                default: try skipValue()
                }
            } while try nextMember()
        }
        guard let id, let owner, let name, let channels else { throw missing() }
        server.id = id
        server.owner = owner
        server.name = name
        server.channels = channels
        return server
    }

    mutating func readCategory() throws(JSONScanError) -> Server.Category {
        var id: String?
        var title: String?
        var channels: [String]?
        var seen: UInt32 = 0
        var next = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.categoryKeys, seen: &seen, next: &next) {
                case 0: id = try readString()
                case 1: title = try readString()
                case 2: channels = try readStrings()
                default: try skipValue()
                }
            } while try nextMember()
        }
        guard let id, let title, let channels else { throw missing() }
        return Server.Category(id: id, title: title, channels: channels)
    }

    mutating func readSystemMessages() throws(JSONScanError) -> Server.SystemMessageChannels {
        var channels = Server.SystemMessageChannels()
        var seen: UInt32 = 0
        var next = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.systemMessagesKeys, seen: &seen, next: &next) {
                case 0: channels.userJoined = try readOptionalString()
                case 1: channels.userLeft = try readOptionalString()
                case 2: channels.userKicked = try readOptionalString()
                case 3: channels.userBanned = try readOptionalString()
                default: try skipValue()
                }
            } while try nextMember()
        }
        return channels
    }

    mutating func readOverride() throws(JSONScanError) -> PermissionOverride {
        var allow: Int64?
        var deny: Int64?
        var seen: UInt32 = 0
        var next = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.overrideKeys, seen: &seen, next: &next) {
                case 0: allow = try readInt64()
                case 1: deny = try readInt64()
                default: try skipValue()
                }
            } while try nextMember()
        }
        guard let allow, let deny else { throw missing() }
        return PermissionOverride(allow: allow, deny: deny)
    }

    /// Reads permission overrides by role id; a repeated id keeps its first override, as ``readRoles()`` does.
    mutating func readOverrides() throws(JSONScanError) -> [String: PermissionOverride] {
        var overrides: [String: PermissionOverride] = [:]
        guard try enterObject() else { return overrides }
        repeat {
            let key = try readKey()
            let id = try string(of: key)
            let override = try readOverride()
            if overrides[id] == nil { overrides[id] = override }
        } while try nextMember()
        return overrides
    }

    /// Reads a server's roles by id. A repeated id keeps its first role, as in `JSONDecoder` (which does not
    /// decode the repeat; this reads it, so a malformed repeat is refused and left to `JSONDecoder`).
    mutating func readRoles() throws(JSONScanError) -> [String: Server.Role] {
        var roles: [String: Server.Role] = [:]
        guard try enterObject() else { return roles }
        repeat {
            // Two statements: `string(of:)` must see the scanner after `readKey()` (a key with escapes is in its
            // buffer), not a copy taken before the argument is evaluated.
            let key = try readKey()
            let id = try string(of: key)
            let role = try readRole()
            if roles[id] == nil { roles[id] = role }
        } while try nextMember()
        return roles
    }

    mutating func readRole() throws(JSONScanError) -> Server.Role {
        var name: String?
        var role = Server.Role(name: "")
        var seen: UInt32 = 0
        var next = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.roleKeys, seen: &seen, next: &next) {
                case 0: role.id = try readOptionalString()
                case 1: name = try readString()
                case 2: role.permissions = readNull() ? nil : try readOverride()
                case 3: role.colour = try readOptionalString()
                case 4: role.hoist = try readOptionalBool()
                case 5: role.rank = try readOptionalInt64()
                case 6: role.icon = try readOptionalFile()
                default: try skipValue()
                }
            } while try nextMember()
        }
        guard let name else { throw missing() }
        role.name = name
        return role
    }

    mutating func readChannel() throws(JSONScanError) -> Channel {
        var id: String?
        var kind: String?
        var channel = Channel(id: "", kind: .textChannel)
        var seen: UInt32 = 0
        var next = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.channelKeys, seen: &seen, next: &next) {
                case 0: id = try readString()
                case 1: kind = try readString()
                case 2: channel.name = try readOptionalString()
                case 3: channel.server = try readOptionalString()
                case 4: channel.user = try readOptionalString()
                case 5: channel.owner = try readOptionalString()
                case 6: channel.recipients = readNull() ? nil : try readStrings()
                case 7: channel.description = try readOptionalString()
                case 8: channel.active = try readOptionalBool()
                case 9: channel.lastMessageID = try readOptionalString()
                case 10: channel.icon = try readOptionalFile()
                case 11: channel.permissions = try readOptionalInt64()
                case 12: channel.defaultPermissions = readNull() ? nil : try readOverride()
                case 13: channel.rolePermissions = readNull() ? nil : try readOverrides()
                case 14: channel.nsfw = try readOptionalBool()
                case 15: channel.voice = readNull() ? nil : try readVoice()
                case 16: channel.slowmode = try readOptionalInt()
                default: try skipValue()
                }
            } while try nextMember()
        }
        guard let id, let kind else { throw missing() }
        channel.id = id
        channel.kind = Channel.Kind(rawValue: kind)
        return channel
    }

    mutating func readVoice() throws(JSONScanError) -> Channel.Voice {
        var voice = Channel.Voice()
        var seen: UInt32 = 0
        var next = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.voiceKeys, seen: &seen, next: &next) {
                case 0: voice.maxUsers = try readOptionalInt()
                default: try skipValue()
                }
            } while try nextMember()
        }
        return voice
    }

    /// Reads an optional ISO 8601 timestamp, or its milliseconds since the Unix epoch (bonfire's MessagePack,
    /// read as JSON); a string that is not one, or a number out of range, is refused, as `JSONDecoder` refuses it.
    private mutating func readOptionalTimestamp() throws(JSONScanError) -> Date? {
        if nextIsNumber() {
            guard let date = StoatDates.date(milliseconds: try readInt64()) else {
                throw JSONScanError(code: .invalidTimestamp, offset: offset)
            }
            return date
        }
        guard let string = try readOptionalString() else { return nil }
        guard let date = StoatDates.iso8601(string) else {
            throw JSONScanError(code: .invalidTimestamp, offset: offset)
        }
        return date
    }

    mutating func readMember() throws(JSONScanError) -> Member {
        var id: Member.ID?
        var member = Member(id: Member.ID(server: "", user: ""))
        var seen: UInt32 = 0
        var next = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.memberKeys, seen: &seen, next: &next) {
                case 0: id = try readMemberID()
                case 1: member.joinedAt = try readOptionalTimestamp()
                case 2: member.nickname = try readOptionalString()
                case 3: member.pronouns = try readOptionalString()
                case 4: member.avatar = try readOptionalFile()
                case 5: member.roles = readNull() ? nil : try readStrings()
                case 6: member.timeout = try readOptionalTimestamp()
                case 7: member.canPublish = try readOptionalBool()
                case 8: member.canReceive = try readOptionalBool()
                default: try skipValue()
                }
            } while try nextMember()
        }
        guard let id else { throw missing() }
        member.id = id
        return member
    }

    mutating func readMemberID() throws(JSONScanError) -> Member.ID {
        var server: String?
        var user: String?
        var seen: UInt32 = 0
        var next = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.memberIDKeys, seen: &seen, next: &next) {
                case 0: server = try readString()
                case 1: user = try readString()
                default: try skipValue()
                }
            } while try nextMember()
        }
        guard let server, let user else { throw missing() }
        return Member.ID(server: server, user: user)
    }

    mutating func readChannelUnread() throws(JSONScanError) -> ChannelUnread {
        var id: ChannelUnread.ID?
        var unread = ChannelUnread(id: .init(channel: "", user: ""))
        var seen: UInt32 = 0
        var next = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.unreadKeys, seen: &seen, next: &next) {
                case 0: id = try readUnreadID()
                case 1: unread.lastID = try readOptionalString()
                case 2: unread.mentions = readNull() ? [] : try readStrings()
                default: try skipValue()
                }
            } while try nextMember()
        }
        guard let id else { throw missing() }
        unread.id = id
        return unread
    }

    mutating func readUnreadID() throws(JSONScanError) -> ChannelUnread.ID {
        var channel: String?
        var user: String?
        var seen: UInt32 = 0
        var next = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.unreadIDKeys, seen: &seen, next: &next) {
                case 0: channel = try readString()
                case 1: user = try readString()
                default: try skipValue()
                }
            } while try nextMember()
        }
        guard let channel, let user else { throw missing() }
        return ChannelUnread.ID(channel: channel, user: user)
    }

    mutating func readEmoji() throws(JSONScanError) -> Emoji {
        var id: String?
        var parent: Emoji.Parent?
        var creatorID: String?
        var name: String?
        var animated: Bool?
        var nsfw: Bool?
        var seen: UInt32 = 0
        var next = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.emojiKeys, seen: &seen, next: &next) {
                case 0: id = try readString()
                case 1: parent = try readParent()
                case 2: creatorID = try readString()
                case 3: name = try readString()
                case 4: animated = try readOptionalBool()
                case 5: nsfw = try readOptionalBool()
                default: try skipValue()
                }
            } while try nextMember()
        }
        guard let id, let parent, let creatorID, let name else { throw missing() }
        return Emoji(id: id, parent: parent, creatorID: creatorID, name: name, animated: animated, nsfw: nsfw)
    }

    mutating func readParent() throws(JSONScanError) -> Emoji.Parent {
        var type: String?
        var id: String?
        var seen: UInt32 = 0
        var next = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.parentKeys, seen: &seen, next: &next) {
                case 0: type = try readString()
                case 1: id = try readOptionalString()
                default: try skipValue()
                }
            } while try nextMember()
        }
        guard let type else { throw missing() }
        return Emoji.Parent(type: type, id: id)
    }
}
