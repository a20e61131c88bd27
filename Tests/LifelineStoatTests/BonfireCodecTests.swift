import Foundation
import LifelineStoat
import LifelineTesting
import Testing

@Suite("The Bonfire codec")
struct BonfireCodecTests {
    let decoder = BonfireDecoder()

    @Test(
        "client frames are the JSON that bonfire reads",
        arguments: [
            (BonfireClientFrame.authenticate(token: "t0k"), #"{"type":"Authenticate","token":"t0k"}"#),
            (.ping(1_719_400_000_000), #"{"type":"Ping","data":1719400000000}"#),
            (.pong(7), #"{"type":"Pong","data":7}"#),
            (.subscribe(serverID: "S1"), #"{"type":"Subscribe","server_id":"S1"}"#),
            (.beginTyping(channel: "C1"), #"{"type":"BeginTyping","channel":"C1"}"#),
            (.endTyping(channel: "C1"), #"{"type":"EndTyping","channel":"C1"}"#),
        ])
    func clientFrames(frame: BonfireClientFrame, json: String) {
        #expect(frame.json == json)
    }

    @Test("strings in client frames are escaped, so any id or token round-trips through a JSON parser")
    func escaping() throws {
        let nasty = "a\"b\\c\nd\u{01}é😀"
        let object = try #require(
            JSONSerialization.jsonObject(with: Data(BonfireClientFrame.subscribe(serverID: nasty).json.utf8))
                as? [String: String])
        #expect(object["server_id"] == nasty)
    }

    @Test("an Authenticate frame's description never shows the token")
    func tokenRedacted() {
        let frame = BonfireClientFrame.authenticate(token: "super-secret")
        #expect(!frame.description.contains("super-secret"))
        #expect(!"\(frame)".contains("super-secret"))
    }

    /// A frame of every event Lifeline models, with the event it decodes to.
    static let wireEvents: [(String, BonfireEvent)] = [
        (#"{"type":"Authenticated"}"#, BonfireEvent.authenticated),
        (#"{"type":"Pong","data":1719400000000}"#, .pong(data: 1_719_400_000_000)),
        (#"{"type":"Pong","data":[1,2,3]}"#, .pong(data: nil)),
        (#"{"type":"Ping","data":5}"#, .ping(data: 5)),
        (#"{"type":"Logout"}"#, .logout),
        (
            #"{"type":"Error","data":{"type":"InvalidSession","location":"crates/bonfire"}}"#,
            .error(BonfireError(kind: "InvalidSession", location: "crates/bonfire"))
        ),
        (
            // Stoat's new events server says more in a `detail` (`lib/stoat_gateway/web/socket_handler.ex`).
            #"{"data":{"detail":"Invalid token provided","type":"InvalidSession"},"type":"Error"}"#,
            .error(BonfireError(kind: "InvalidSession", detail: "Invalid token provided"))
        ),
        (#"{"data":{"type":"InvalidPayload"},"type":"Error"}"#, .error(BonfireError(kind: "InvalidPayload"))),
        (#"{"type":"ChannelStartTyping","id":"C","user":"U"}"#, .channelStartTyping(channel: "C", user: "U")),
        (#"{"type":"ChannelStopTyping","id":"C","user":"U"}"#, .channelStopTyping(channel: "C", user: "U")),
        (
            #"{"type":"MessageUpdate","id":"M","channel":"C","data":{"content":"x","edited":"2025-01-01T00:00:00.000Z"}}"#,
            .messageUpdate(
                id: "M", channel: "C",
                data: PartialMessage(content: "x", edited: Date(timeIntervalSince1970: 1_735_689_600)),
                clear: [])
        ),
        (
            #"{"type":"MessageUpdate","id":"M","channel":"C","data":{},"clear":["Pinned"]}"#,
            .messageUpdate(id: "M", channel: "C", data: PartialMessage(), clear: [.pinned])
        ),
        (
            #"{"type":"MessageAppend","id":"M","channel":"C","append":{"embeds":[{"type":"Website","url":"u"}]}}"#,
            .messageAppend(id: "M", channel: "C", embeds: [Message.Embed(type: "Website", url: "u")])
        ),
        (#"{"type":"MessageDelete","id":"M","channel":"C"}"#, .messageDelete(id: "M", channel: "C")),
        (
            #"{"type":"BulkMessageDelete","channel":"C","ids":["M1","M2"]}"#,
            .bulkMessageDelete(channel: "C", ids: ["M1", "M2"])
        ),
        (
            #"{"type":"MessageReact","id":"M","channel_id":"C","user_id":"U","emoji_id":"E"}"#,
            .messageReact(id: "M", channel: "C", user: "U", emoji: "E")
        ),
        (
            #"{"type":"MessageUnreact","id":"M","channel_id":"C","user_id":"U","emoji_id":"E"}"#,
            .messageUnreact(id: "M", channel: "C", user: "U", emoji: "E")
        ),
        (
            #"{"type":"MessageRemoveReaction","id":"M","channel_id":"C","emoji_id":"E"}"#,
            .messageRemoveReaction(id: "M", channel: "C", emoji: "E")
        ),
        (
            #"{"type":"ChannelCreate","channel_type":"Group","_id":"G","name":"g","owner":"U","recipients":["U"]}"#,
            .channelCreate(Channel(id: "G", kind: .group, name: "g", owner: "U", recipients: ["U"]))
        ),
        (
            #"{"type":"ChannelUpdate","id":"C","data":{"name":"n","last_message_id":"M"},"clear":["Icon","Description"]}"#,
            .channelUpdate(
                id: "C", data: PartialChannel(name: "n", lastMessageID: "M"), clear: [.icon, .description])
        ),
        (#"{"type":"ChannelDelete","id":"C"}"#, .channelDelete(id: "C")),
        (#"{"type":"ChannelGroupJoin","id":"G","user":"U"}"#, .channelGroupJoin(channel: "G", user: "U")),
        (#"{"type":"ChannelGroupLeave","id":"G","user":"U"}"#, .channelGroupLeave(channel: "G", user: "U")),
        (
            #"{"type":"ChannelAck","id":"C","user":"U","message_id":"M"}"#,
            .channelAck(channel: "C", user: "U", messageID: "M")
        ),
        (
            #"{"type":"ServerCreate","id":"S","server":{"_id":"S","owner":"U","name":"L","channels":["C"]},"channels":[{"channel_type":"TextChannel","_id":"C","server":"S","name":"g"}],"emojis":[],"voice_states":[]}"#,
            .serverCreate(
                Server(id: "S", owner: "U", name: "L", channels: ["C"]),
                channels: [Channel(id: "C", kind: .textChannel, name: "g", server: "S")], emojis: [])
        ),
        (
            #"{"type":"ServerUpdate","id":"S","data":{"name":"New"},"clear":["Banner"]}"#,
            .serverUpdate(id: "S", data: PartialServer(name: "New"), clear: [.banner])
        ),
        (#"{"type":"ServerDelete","id":"S"}"#, .serverDelete(id: "S")),
        (
            #"{"type":"ServerMemberJoin","id":"S","user":"U","member":{"_id":{"server":"S","user":"U"},"joined_at":"2025-01-01T00:00:00.000Z"}}"#,
            .serverMemberJoin(
                server: "S", user: "U",
                member: Member(
                    id: .init(server: "S", user: "U"), joinedAt: Date(timeIntervalSince1970: 1_735_689_600)))
        ),
        (
            #"{"type":"ServerMemberJoin","id":"S","user":"U"}"#,
            .serverMemberJoin(server: "S", user: "U", member: nil)
        ),
        (
            #"{"type":"ServerMemberLeave","id":"S","user":"U","reason":"Ban"}"#,
            .serverMemberLeave(server: "S", user: "U", reason: .ban)
        ),
        (
            #"{"type":"ServerMemberUpdate","id":{"server":"S","user":"U"},"data":{"timeout":"2025-01-01T00:00:00.000Z"}}"#,
            .serverMemberUpdate(
                id: .init(server: "S", user: "U"),
                data: PartialMember(timeout: Date(timeIntervalSince1970: 1_735_689_600)),
                clear: [])
        ),
        (
            #"{"type":"ServerMemberUpdate","id":{"server":"S","user":"U"},"data":{},"clear":["Timeout","Nickname"]}"#,
            .serverMemberUpdate(
                id: .init(server: "S", user: "U"), data: PartialMember(), clear: [.timeout, .nickname])
        ),
        (
            #"{"type":"UserUpdate","id":"U","data":{"status":{"presence":"Idle"},"online":true},"clear":["StatusText"],"event_id":"e"}"#,
            .userUpdate(
                id: "U", data: PartialUser(status: User.Status(presence: "Idle"), online: true),
                clear: [.statusText])
        ),
        (
            #"{"type":"UserRelationship","id":"U","user":{"_id":"V","username":"v","discriminator":"0001","relationship":"Friend"}}"#,
            .userRelationship(
                id: "U", user: User(id: "V", username: "v", discriminator: "0001", relationship: "Friend"))
        ),
        (#"{"type":"UserPlatformWipe","user_id":"U","flags":4}"#, .userPlatformWipe(user: "U", flags: 4)),
        (
            #"{"type":"UserSlowmodes","slowmodes":[{"channel_id":"C","duration":30,"retry_after":12}]}"#,
            .userSlowmodes([ChannelSlowmode(channelID: "C", duration: 30, retryAfter: 12)])
        ),
        (
            #"{"type":"EmojiCreate","_id":"E","parent":{"type":"Server","id":"S"},"creator_id":"U","name":"wave"}"#,
            .emojiCreate(Emoji(id: "E", parent: .init(type: "Server", id: "S"), creatorID: "U", name: "wave"))
        ),
        (#"{"type":"EmojiDelete","id":"E"}"#, .emojiDelete(id: "E")),
        (
            #"{"type":"OperationFinished","id":"O","result":"timeout"}"#,
            .operationFinished(id: "O", result: "timeout")
        ),
        (#"{"type":"VoiceChannelJoin","id":"V"}"#, .unknown(type: "VoiceChannelJoin")),
        (#"{"type":"Bulk","v":[{"type":"Authenticated"},{"type":"Logout"}]}"#, .bulk([.authenticated, .logout])),
    ]

    @Test("server events decode from their wire shapes", arguments: wireEvents)
    func events(json: String, event: BonfireEvent) {
        #expect(decoder.decode(json) == .event(event))
    }

    @Test("an Error event keeps where the server raised it and what it said, which its equality does not compare")
    func errorDetails() throws {
        let json = #"{"type":"Error","data":{"type":"InvalidSession","location":"crates/bonfire","detail":"gone"}}"#
        guard case .event(.error(let error)) = decoder.decode(json) else {
            Issue.record("not an error event")
            return
        }
        #expect(error.code == .invalidSession && error.kind == "InvalidSession" && error.message == "gone")
        #expect(error.location == "crates/bonfire" && error.detail == "gone")
        #expect(error.isAuthenticationError)
        #expect("\(error)" == "InvalidSession: gone at crates/bonfire")
    }

    @Test("a Message decodes with its fields and ignores the ones Lifeline does not model")
    func message() {
        let json = #"""
            {"type":"Message","_id":"M1","nonce":"n","channel":"C1","author":"U1","content":"hi",
             "embeds":[{"type":"None","future":1}],"masquerade":{"name":"x"},"mentions":["U2"],"future":[1]}
            """#
        #expect(
            decoder.decode(json)
                == .event(
                    .message(
                        Message(
                            id: "M1", nonce: "n", channel: "C1", author: "U1", content: "hi",
                            embeds: [Message.Embed(type: "None")], mentions: ["U2"],
                            masquerade: Message.Masquerade(name: "x")))))
    }

    @Test("Ready decodes every typed field, treats missing fields as empty and ignores unknown ones")
    func ready() throws {
        let json = #"""
            {"type":"Ready",
             "users":[{"_id":"U1","username":"ana","discriminator":"0001","relationship":"User","online":true,
                       "avatar":{"_id":"A","tag":"avatars","filename":"a.png","content_type":"image/png","size":3,"metadata":{}}}],
             "servers":[{"_id":"S1","owner":"U1","name":"Lobby","channels":["C1"],"default_permissions":0,
                         "roles":{"R1":{"name":"Mod","rank":1,"permissions":{"a":0,"d":0}}}}],
             "channels":[{"channel_type":"TextChannel","_id":"C1","server":"S1","name":"general"},
                         {"channel_type":"SavedMessages","_id":"C2","user":"U1"},
                         {"channel_type":"FutureKind","_id":"C3"}],
             "members":[{"_id":{"server":"S1","user":"U1"},"joined_at":"2026-01-01T00:00:00Z","roles":["R1"]}],
             "emojis":[{"_id":"E1","parent":{"type":"Server","id":"S1"},"creator_id":"U1","name":"wave"}],
             "voice_states":[],"user_settings":{"x":[1,"y"]},"policy_changes":[]}
            """#
        guard case .event(.ready(let ready)) = decoder.decode(json) else {
            Issue.record("\(decoder.decode(json))")
            return
        }
        #expect(ready.users.first?.avatar?.contentType == "image/png")
        #expect(ready.users.first?.flags == 0, "flags is omitted when 0")
        #expect(ready.servers.first?.roles?["R1"]?.name == "Mod")
        #expect(ready.channels.map(\.kind) == [.textChannel, .savedMessages, Channel.Kind(rawValue: "FutureKind")])
        #expect(ready.members.first?.id == Member.ID(server: "S1", user: "U1"))
        #expect(ready.emojis.first?.parent.id == "S1")
        #expect(
            decoder.decode(#"{"type":"Ready"}"#) == .event(.ready(Ready())),
            "the ready filter may leave every field out")
    }

    @Test(
        "frames that are not well-formed events are undecodable, never fatal",
        arguments: [
            "", "null", "[]", "{}", #"{"type":7}"#, #"{"type":"Ready","users":[{"_id":1}]}"#,
            #"{"type":"ChannelStartTyping","id":"C"}"#, #"{"type":"Bulk","v":{}}"#, "{\"type\":\"Logout\"", "\u{FFFD}",
            #"{"type":"ServerMemberUpdate","id":{"server":"S","user":"U"},"data":{"timeout":"tomorrow"}}"#,
            #"{"type":"ServerMemberUpdate","id":"S","data":{}}"#, #"{"type":"MessageUpdate","id":"M","channel":"C"}"#,
            #"{"type":"ChannelUpdate","id":"C","data":{},"clear":"Icon"}"#, #"{"type":"ServerMemberJoin","id":"S"}"#,
            #"{"type":"UserSlowmodes","slowmodes":[{"channel_id":"C"}]}"#,
            #"{"type":"Message","_id":"M","channel":"C"}"#,
        ])
    func undecodable(text: String) {
        guard case .undecodable(let reason) = decoder.decode(text) else {
            Issue.record("decoded \(text)")
            return
        }
        #expect(!reason.isEmpty)
    }

    @Test("a frame above the configured maximum is refused without being parsed")
    func tooLarge() {
        let small = BonfireDecoder(maximumFrameSize: 17)
        #expect(small.decode(#"{"type":"Authenticated"}"#) == .tooLarge(bytes: 24))
        #expect(small.decode(#"{"type":"Logout"}"#) == .event(.logout))
    }

    @Test("seeded random mutations of real frames never crash the decoder (20 000 runs)")
    func fuzz() async {
        let seeds = [
            #"{"type":"Ready","users":[{"_id":"U1","username":"ana","discriminator":"0001","online":true}],"servers":[{"_id":"S1","owner":"U1","name":"L","channels":["C1"]}],"channels":[{"channel_type":"TextChannel","_id":"C1","server":"S1","name":"g"}],"members":[{"_id":{"server":"S1","user":"U1"},"joined_at":"2026-01-01T00:00:00Z"}],"emojis":[]}"#,
            #"{"type":"Bulk","v":[{"type":"Message","_id":"M","channel":"C","author":"U","content":"x"},{"type":"Pong","data":12}]}"#,
            #"{"type":"Error","data":{"type":"InvalidSession","location":"here"}}"#,
            #"{"type":"ServerMemberUpdate","id":{"server":"S","user":"U"},"data":{"nickname":"n","timeout":"2025-01-01T00:00:00.000Z"},"clear":["Avatar"]}"#,
            #"{"type":"MessageUpdate","id":"M","channel":"C","data":{"content":"x","edited":"2025-01-01T00:00:00.000Z"},"clear":["Pinned"]}"#,
            #"{"type":"ServerCreate","id":"S","server":{"_id":"S","owner":"U","name":"L","channels":[]},"channels":[],"emojis":[]}"#,
            #"{"type":"UserUpdate","id":"U","data":{"status":{"text":"t"}},"clear":["Avatar"]}"#,
        ].map { Array($0.utf8) }
        let alphabet = Array(#"{}[]":,0123456789.-+eE\ntrufalsn"u\#u{00}"#.utf8) + [0xC3, 0xA9, 0xFF, 0xF0]
        var random = SeededRandomNumberGenerator(seed: 2026)
        var outcomes = [0, 0, 0]
        for run in 0..<20_000 {
            // Yields now and then: a CPU-bound loop holds one of the cooperative pool's threads (two on a 2-core machine), and
            // the in-process servers of every other test wait for them (HowLifelineIsBuilt.md: "The tests").
            if run % 32 == 0 { await Task.yield() }
            var bytes = seeds.randomElement(using: &random)!
            for _ in 0..<Int.random(in: 1...6, using: &random) where !bytes.isEmpty {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<5, using: &random) {
                case 0: bytes[index] = alphabet.randomElement(using: &random)!
                case 1: bytes.remove(at: index)
                case 2: bytes.insert(alphabet.randomElement(using: &random)!, at: index)
                case 3: bytes = Array(bytes[..<index])
                default: bytes.insert(contentsOf: bytes[index..<min(bytes.count, index + 8)], at: index)
                }
            }
            switch decoder.decode(Data(bytes)) {
            case .event: outcomes[0] += 1
            case .undecodable: outcomes[1] += 1
            case .tooLarge: outcomes[2] += 1
            }
        }
        #expect(outcomes[0] > 0 && outcomes[1] > 0, "the mutations reach both outcomes: \(outcomes)")
    }
}
