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

    // The members each model decodes, by their wire names; the index is the field's bit in `seen`.
    static let readyKeys: [StaticString] = ["type", "users", "servers", "channels", "members", "emojis"]
    static let userKeys: [StaticString] = [
        "_id", "username", "discriminator", "display_name", "avatar", "badges", "status", "flags", "privileged",
        "bot", "relationship", "online",
    ]
    static let statusKeys: [StaticString] = ["text", "presence"]
    static let botKeys: [StaticString] = ["owner"]
    static let fileKeys: [StaticString] = ["_id", "tag", "filename", "content_type", "size"]
    static let serverKeys: [StaticString] = [
        "_id", "owner", "name", "description", "channels", "roles", "default_permissions", "icon", "banner", "flags",
        "nsfw",
    ]
    static let roleKeys: [StaticString] = ["name", "colour", "hoist", "rank"]
    static let channelKeys: [StaticString] = [
        "_id", "channel_type", "name", "server", "user", "owner", "recipients", "description", "active",
        "last_message_id", "icon", "nsfw",
    ]
    static let memberKeys: [StaticString] = ["_id", "joined_at", "nickname", "avatar", "roles", "timeout"]
    static let memberIDKeys: [StaticString] = ["server", "user"]
    static let emojiKeys: [StaticString] = ["_id", "parent", "creator_id", "name", "animated", "nsfw"]
    static let parentKeys: [StaticString] = ["type", "id"]
}

extension JSONScanner {
    /// The bit of the first field of `names` that `key` names and `seen` lacks, or nil when the member is to
    /// be skipped: unknown, or a repeat (the first occurrence wins, as in `JSONDecoder`).
    @inline(__always)
    private func field(_ key: Key, in names: [StaticString], seen: inout UInt32) -> Int? {
        for index in names.indices where self.key(key, is: names[index]) {
            guard seen & (1 << index) == 0 else { return nil }
            seen |= 1 << index
            return index
        }
        return nil
    }

    private func missing() -> JSONScanError {
        JSONScanError(code: .missingField, offset: offset)
    }

    /// Reads an array whose elements `element` reads.
    @inline(__always)
    private mutating func readArray<Element>(
        _ element: (inout JSONScanner) throws(JSONScanError) -> Element
    ) throws(JSONScanError) -> [Element] {
        var result: [Element] = []
        guard try enterArray() else { return result }
        repeat {
            result.append(try element(&self))
        } while try nextElement()
        return result
    }

    private mutating func readStrings() throws(JSONScanError) -> [String] {
        try readArray { (scanner: inout JSONScanner) throws(JSONScanError) in try scanner.readString() }
    }

    // Element readers for `readArray`, which cannot take a mutating method.
    private static func readUser(_ scanner: inout JSONScanner) throws(JSONScanError) -> User { try scanner.readUser() }
    private static func readServer(_ scanner: inout JSONScanner) throws(JSONScanError) -> Server {
        try scanner.readServer()
    }
    private static func readChannel(_ scanner: inout JSONScanner) throws(JSONScanError) -> Channel {
        try scanner.readChannel()
    }
    private static func readMember(_ scanner: inout JSONScanner) throws(JSONScanError) -> Member {
        try scanner.readMember()
    }
    private static func readEmoji(_ scanner: inout JSONScanner) throws(JSONScanError) -> Emoji {
        try scanner.readEmoji()
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
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.readyKeys, seen: &seen) {
                case 0:
                    // Fail fast on another event, wherever its `type` is: the caller decodes it with JSONDecoder.
                    type = try readString()
                    guard type == "Ready" else { throw JSONScanError(code: .notReady, offset: offset) }
                case 1: ready.users = readNull() ? [] : try readArray(Self.readUser)
                case 2: ready.servers = readNull() ? [] : try readArray(Self.readServer)
                case 3: ready.channels = readNull() ? [] : try readArray(Self.readChannel)
                case 4: ready.members = readNull() ? [] : try readArray(Self.readMember)
                case 5: ready.emojis = readNull() ? [] : try readArray(Self.readEmoji)
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
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.userKeys, seen: &seen) {
                case 0: id = try readString()
                case 1: username = try readString()
                case 2: user.discriminator = try readOptionalString() ?? ""
                case 3: user.displayName = try readOptionalString()
                case 4: user.avatar = try readOptionalFile()
                case 5: user.badges = try readOptionalInt()
                case 6: user.status = readNull() ? nil : try readStatus()
                case 7: user.flags = try readOptionalInt() ?? 0
                case 8: user.privileged = try readOptionalBool()
                case 9: user.bot = readNull() ? nil : try readBot()
                case 10: user.relationship = try readOptionalString()
                case 11: user.online = try readOptionalBool()
                default: try skipValue()
                }
            } while try nextMember()
        }
        guard let id, let username else { throw missing() }
        user.id = id
        user.username = username
        return user
    }

    mutating func readStatus() throws(JSONScanError) -> User.Status {
        var status = User.Status()
        var seen: UInt32 = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.statusKeys, seen: &seen) {
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
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.botKeys, seen: &seen) {
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
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.fileKeys, seen: &seen) {
                case 0: id = try readString()
                case 1: tag = try readString()
                case 2: file.filename = try readOptionalString()
                case 3: file.contentType = try readOptionalString()
                case 4: file.size = try readOptionalInt()
                default: try skipValue()
                }
            } while try nextMember()
        }
        guard let id, let tag else { throw missing() }
        file.id = id
        file.tag = tag
        return file
    }

    mutating func readServer() throws(JSONScanError) -> Server {
        var id: String?
        var owner: String?
        var name: String?
        var channels: [String]?
        var server = Server(id: "", owner: "", name: "")
        var seen: UInt32 = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.serverKeys, seen: &seen) {
                case 0: id = try readString()
                case 1: owner = try readString()
                case 2: name = try readString()
                case 3: server.description = try readOptionalString()
                case 4: channels = try readStrings()
                case 5: server.roles = readNull() ? nil : try readRoles()
                case 6: server.defaultPermissions = try readOptionalInt64()
                case 7: server.icon = try readOptionalFile()
                case 8: server.banner = try readOptionalFile()
                case 9: server.flags = try readOptionalInt()
                case 10: server.nsfw = try readOptionalBool()
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
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.roleKeys, seen: &seen) {
                case 0: name = try readString()
                case 1: role.colour = try readOptionalString()
                case 2: role.hoist = try readOptionalBool()
                case 3: role.rank = try readOptionalInt64()
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
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.channelKeys, seen: &seen) {
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
                case 11: channel.nsfw = try readOptionalBool()
                default: try skipValue()
                }
            } while try nextMember()
        }
        guard let id, let kind else { throw missing() }
        channel.id = id
        channel.kind = Channel.Kind(rawValue: kind)
        return channel
    }

    mutating func readMember() throws(JSONScanError) -> Member {
        var id: Member.ID?
        var member = Member(id: Member.ID(server: "", user: ""))
        var seen: UInt32 = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.memberKeys, seen: &seen) {
                case 0: id = try readMemberID()
                case 1: member.joinedAt = try readOptionalString()
                case 2: member.nickname = try readOptionalString()
                case 3: member.avatar = try readOptionalFile()
                case 4: member.roles = readNull() ? nil : try readStrings()
                case 5: member.timeout = try readOptionalString()
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
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.memberIDKeys, seen: &seen) {
                case 0: server = try readString()
                case 1: user = try readString()
                default: try skipValue()
                }
            } while try nextMember()
        }
        guard let server, let user else { throw missing() }
        return Member.ID(server: server, user: user)
    }

    mutating func readEmoji() throws(JSONScanError) -> Emoji {
        var id: String?
        var parent: Emoji.Parent?
        var creatorID: String?
        var name: String?
        var animated: Bool?
        var nsfw: Bool?
        var seen: UInt32 = 0
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.emojiKeys, seen: &seen) {
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
        if try enterObject() {
            repeat {
                let key = try readKey()
                switch field(key, in: FastReadyDecoder.parentKeys, seen: &seen) {
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
