import Foundation
import Testing

@testable import LifelineStoat

/// The fast Ready decoder and the models' `Codable` conformances read the same keys, so a field added to a
/// model cannot decode in one and silently stay `nil` in the other.
@Suite("The fast Ready decoder's keys")
struct FastReadyDecoderKeysTests {
    static func names(_ keys: [StaticString]) -> Set<String> { Set(keys.map { "\($0)" }) }

    static func wire<Key: CodingKey & CaseIterable>(_: Key.Type) -> Set<String> {
        Set(Key.allCases.map(\.stringValue))
    }

    @Test("each model's key list is exactly its CodingKeys")
    func keyLists() {
        #expect(Self.names(FastReadyDecoder.readyKeys) == Self.wire(Ready.CodingKeys.self).union(["type"]))
        #expect(Self.names(FastReadyDecoder.userKeys) == Self.wire(User.CodingKeys.self))
        #expect(Self.names(FastReadyDecoder.relationshipKeys) == Self.wire(User.Relationship.CodingKeys.self))
        #expect(Self.names(FastReadyDecoder.statusKeys) == Self.wire(User.Status.CodingKeys.self))
        #expect(Self.names(FastReadyDecoder.botKeys) == Self.wire(User.Bot.CodingKeys.self))
        #expect(Self.names(FastReadyDecoder.fileKeys) == Self.wire(File.CodingKeys.self))
        #expect(Self.names(FastReadyDecoder.metadataKeys) == Self.wire(File.Metadata.CodingKeys.self))
        #expect(Self.names(FastReadyDecoder.serverKeys) == Self.wire(Server.CodingKeys.self))
        #expect(Self.names(FastReadyDecoder.categoryKeys) == Self.wire(Server.Category.CodingKeys.self))
        #expect(
            Self.names(FastReadyDecoder.systemMessagesKeys) == Self.wire(Server.SystemMessageChannels.CodingKeys.self))
        #expect(Self.names(FastReadyDecoder.roleKeys) == Self.wire(Server.Role.CodingKeys.self))
        #expect(Self.names(FastReadyDecoder.overrideKeys) == Self.wire(PermissionOverride.CodingKeys.self))
        #expect(Self.names(FastReadyDecoder.channelKeys) == Self.wire(Channel.CodingKeys.self))
        #expect(Self.names(FastReadyDecoder.voiceKeys) == Self.wire(Channel.Voice.CodingKeys.self))
        #expect(Self.names(FastReadyDecoder.memberKeys) == Self.wire(Member.CodingKeys.self))
        #expect(Self.names(FastReadyDecoder.memberIDKeys) == Self.wire(Member.ID.CodingKeys.self))
        #expect(Self.names(FastReadyDecoder.unreadKeys) == Self.wire(ChannelUnread.CodingKeys.self))
        #expect(Self.names(FastReadyDecoder.unreadIDKeys) == Self.wire(ChannelUnread.ID.CodingKeys.self))
        #expect(Self.names(FastReadyDecoder.emojiKeys) == Self.wire(Emoji.CodingKeys.self))
        #expect(Self.names(FastReadyDecoder.parentKeys) == Self.wire(Emoji.Parent.CodingKeys.self))
    }

    /// A file with every field set.
    static let file = File(
        id: "F", tag: "avatars", filename: "a.png", metadata: .init(type: "Image", width: 1, height: 2),
        contentType: "image/png", size: 3, deleted: false, reported: true, messageID: "M", userID: "U", serverID: "S",
        objectID: "O")

    /// A Ready with every field of every model set, nothing left `nil`.
    static let everyField = Ready(
        users: [
            User(
                id: "U", username: "ann", discriminator: "0001", displayName: "Ann", pronouns: "she", avatar: file,
                relations: [.init(userID: "V", status: "Friend")], badges: 4,
                status: .init(text: "t", presence: "Idle"),
                flags: 2, privileged: true, bot: .init(owner: "O"), relationship: "User", online: true)
        ],
        servers: [
            Server(
                id: "S", owner: "U", name: "L", description: "d", channels: ["C"],
                categories: [.init(id: "K", title: "T", channels: ["C"])],
                systemMessages: .init(userJoined: "C", userLeft: "C", userKicked: "C", userBanned: "C"),
                roles: [
                    "R": .init(
                        id: "R", name: "Mod", permissions: .init(allow: 1, deny: 2), colour: "red", hoist: true,
                        rank: 3,
                        icon: file)
                ], defaultPermissions: 5, icon: file, banner: file, flags: 1, nsfw: true, analytics: true,
                discoverable: true, approximateMemberCount: 9)
        ],
        channels: [
            Channel(
                id: "C", kind: .textChannel, name: "g", server: "S", user: "U", owner: "U", recipients: ["U"],
                description: "d", active: true, lastMessageID: "M", icon: file, permissions: 7,
                defaultPermissions: .init(allow: 1, deny: 0), rolePermissions: ["R": .init(allow: 0, deny: 1)],
                nsfw: false, voice: .init(maxUsers: 4), slowmode: 30)
        ],
        members: [
            Member(
                id: .init(server: "S", user: "U"), joinedAt: Date(timeIntervalSince1970: 1_735_689_600.25),
                nickname: "n", pronouns: "p", avatar: file, roles: ["R"],
                timeout: Date(timeIntervalSince1970: 1_900_000_000.5), canPublish: false, canReceive: true)
        ],
        emojis: [
            Emoji(
                id: "E", parent: .init(type: "Server", id: "S"), creatorID: "U", name: "wave", animated: true,
                nsfw: true)
        ],
        channelUnreads: [ChannelUnread(id: .init(channel: "C", user: "U"), lastID: "M", mentions: ["M2"])])

    /// The paths of every optional left `nil` in `value`, however deep.
    static func unset(_ value: Any, path: String = "") -> [String] {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return [path] }
            return unset(wrapped, path: path)
        }
        guard [.struct, .collection, .dictionary, .tuple].contains(mirror.displayStyle), !(value is Date) else {
            return []
        }
        return mirror.children.enumerated().flatMap { index, child in
            unset(child.value, path: path + "." + (child.label ?? "\(index)"))
        }
    }

    @Test("a Ready with every field set reads back the same through both decoders")
    func everyFieldRoundTrips() throws {
        #expect(Self.unset(Self.everyField) == [], "the fixture must set every field of every model")
        let encoded = try JSONEncoder().encode(Self.everyField)
        let frame = Data(#"{"type":"Ready","#.utf8) + encoded.dropFirst()
        #expect(try FastReadyDecoder.decode(frame) == Self.everyField)
        #expect(try JSONDecoder().decode(Ready.self, from: frame) == Self.everyField)
    }

    @Test("a member's timeout that is not a timestamp is refused by both decoders")
    func badTimestamp() {
        let frame = Data(
            #"{"type":"Ready","members":[{"_id":{"server":"S","user":"U"},"timeout":"next week"}]}"#.utf8)
        #expect((try? FastReadyDecoder.decode(frame)) == nil)
        guard case .undecodable = BonfireDecoder().decode(frame) else {
            Issue.record("decoded a member whose timeout is not a date")
            return
        }
    }
}
