import Foundation
import LifelineStoat
import LifelineTesting
import Testing

@Suite("The Bonfire codec")
struct BonfireCodecTests {
    let decoder = BonfireDecoder()

    @Test(
        "client frames are the JSON of PROTOCOL.md",
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
            JSONSerialization.jsonObject(with: Data(BonfireClientFrame.subscribe(serverID: nasty).json.utf8)) as? [String: String])
        #expect(object["server_id"] == nasty)
    }

    @Test("an Authenticate frame's description never shows the token")
    func tokenRedacted() {
        let frame = BonfireClientFrame.authenticate(token: "super-secret")
        #expect(!frame.description.contains("super-secret"))
        #expect(!"\(frame)".contains("super-secret"))
    }

    @Test(
        "server events decode from their wire shapes",
        arguments: [
            (#"{"type":"Authenticated"}"#, BonfireEvent.authenticated),
            (#"{"type":"Pong","data":1719400000000}"#, .pong(data: 1_719_400_000_000)),
            (#"{"type":"Pong","data":[1,2,3]}"#, .pong(data: nil)),
            (#"{"type":"Ping","data":5}"#, .ping(data: 5)),
            (#"{"type":"Logout"}"#, .logout),
            (#"{"type":"Error","data":{"type":"InvalidSession","location":"crates/bonfire"}}"#,
             .error(BonfireError(kind: "InvalidSession", location: "crates/bonfire"))),
            (#"{"type":"ChannelStartTyping","id":"C","user":"U"}"#, .channelStartTyping(channel: "C", user: "U")),
            (#"{"type":"ChannelStopTyping","id":"C","user":"U"}"#, .channelStopTyping(channel: "C", user: "U")),
            (#"{"type":"MessageUpdate","id":"M","channel":"C","data":{"content":"x"}}"#, .messageUpdate(id: "M", channel: "C")),
            (#"{"type":"MessageDelete","id":"M","channel":"C"}"#, .messageDelete(id: "M", channel: "C")),
            (#"{"type":"UserUpdate","id":"U","data":{},"clear":[]}"#, .userUpdate(id: "U")),
            (#"{"type":"ServerUpdate","id":"S","data":{}}"#, .serverUpdate(id: "S")),
            (#"{"type":"ChannelUpdate","id":"C","data":{}}"#, .channelUpdate(id: "C")),
            (#"{"type":"ServerMemberJoin","id":"S","user":"U"}"#, .serverMemberJoin(server: "S", user: "U")),
            (#"{"type":"ServerMemberLeave","id":"S","user":"U","reason":"Leave"}"#, .serverMemberLeave(server: "S", user: "U")),
            (#"{"type":"ServerMemberUpdate","id":{"server":"S","user":"U"},"data":{}}"#, .serverMemberUpdate(server: "S", user: "U")),
            (#"{"type":"ServerDelete","id":"S"}"#, .serverDelete(id: "S")),
            (#"{"type":"OperationFinished","id":"O","result":"timeout"}"#, .operationFinished(id: "O", result: "timeout")),
            (#"{"type":"VoiceChannelJoin","id":"V"}"#, .unknown(type: "VoiceChannelJoin")),
            (#"{"type":"Bulk","v":[{"type":"Authenticated"},{"type":"Logout"}]}"#, .bulk([.authenticated, .logout])),
        ])
    func events(json: String, event: BonfireEvent) {
        #expect(decoder.decode(json) == .event(event))
    }

    @Test("a Message decodes with its fields and ignores the ones Lifeline does not model")
    func message() {
        let json = #"""
            {"type":"Message","_id":"M1","nonce":"n","channel":"C1","author":"U1","content":"hi",
             "embeds":[{"type":"None"}],"masquerade":{"name":"x"},"mentions":["U2"]}
            """#
        #expect(
            decoder.decode(json)
                == .event(.message(Message(id: "M1", nonce: "n", channel: "C1", author: "U1", content: "hi", mentions: ["U2"]))))
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
        #expect(decoder.decode(#"{"type":"Ready"}"#) == .event(.ready(Ready())), "the ready filter may leave every field out")
    }

    @Test(
        "frames that are not well-formed events are undecodable, never fatal",
        arguments: [
            "", "null", "[]", "{}", #"{"type":7}"#, #"{"type":"Ready","users":[{"_id":1}]}"#,
            #"{"type":"ChannelStartTyping","id":"C"}"#, #"{"type":"Bulk","v":{}}"#, "{\"type\":\"Logout\"", "\u{FFFD}",
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
    func fuzz() {
        let seeds = [
            #"{"type":"Ready","users":[{"_id":"U1","username":"ana","discriminator":"0001","online":true}],"servers":[{"_id":"S1","owner":"U1","name":"L","channels":["C1"]}],"channels":[{"channel_type":"TextChannel","_id":"C1","server":"S1","name":"g"}],"members":[{"_id":{"server":"S1","user":"U1"},"joined_at":"2026-01-01T00:00:00Z"}],"emojis":[]}"#,
            #"{"type":"Bulk","v":[{"type":"Message","_id":"M","channel":"C","author":"U","content":"x"},{"type":"Pong","data":12}]}"#,
            #"{"type":"Error","data":{"type":"InvalidSession","location":"here"}}"#,
            #"{"type":"ServerMemberUpdate","id":{"server":"S","user":"U"},"data":{"nickname":"n"}}"#,
        ].map { Array($0.utf8) }
        let alphabet = Array(#"{}[]":,0123456789.-+eE\ntrufalsn"u\#u{00}"#.utf8) + [0xC3, 0xA9, 0xFF, 0xF0]
        var random = SeededRandomNumberGenerator(seed: 2026)
        var outcomes = [0, 0, 0]
        for _ in 0..<20_000 {
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
