import Foundation
import LifelineTesting
import StoatReferenceServer
import Testing

@testable import LifelineStoat

/// The fast `Ready` path against `JSONDecoder`, the reference it must agree with.
///
/// Two levels are checked. ``BonfireDecoder/decode(_:)-(Data)`` must give exactly `JSONDecoder`'s outcome, reason
/// included, for every input. ``FastReadyDecoder`` alone must never accept what `JSONDecoder` refuses, and when
/// it accepts, give the same value; it may refuse what `JSONDecoder` accepts — the classes where it does are
/// listed in its documentation and pinned by `onlyFoundation` rows below — and then `BonfireDecoder` falls back.
@Suite("The fast Ready decoder")
struct FastReadyDecoderTests {
    /// Who accepts an input.
    enum Acceptance: Sendable, CustomStringConvertible {
        /// Both decoders, with equal values.
        case both
        /// Neither.
        case neither
        /// Only `JSONDecoder`: a lenient or intricate corner the fast path leaves to it.
        case onlyFoundation

        var description: String {
            switch self {
            case .both: "both"
            case .neither: "neither"
            case .onlyFoundation: "only JSONDecoder"
            }
        }
    }

    /// What `JSONDecoder` makes of a frame, as a `Ready` or nil.
    static func foundationReady(_ bytes: Data) -> Ready? {
        guard case .event(.ready(let ready)) = BonfireDecoder.decodeWithFoundation(bytes) else { return nil }
        return ready
    }

    /// What the fast decoder makes of a frame, as a `Ready` or nil.
    static func fastReady(_ bytes: Data) -> Ready? {
        try? FastReadyDecoder.decode(bytes)
    }

    /// Checks one frame: the public decoder's outcome is `JSONDecoder`'s, and who accepts it is `acceptance`.
    static func check(
        _ bytes: Data, _ acceptance: Acceptance, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let foundation = foundationReady(bytes)
        let fast = fastReady(bytes)
        #expect(
            BonfireDecoder().decode(bytes) == BonfireDecoder.decodeWithFoundation(bytes),
            sourceLocation: sourceLocation)
        switch acceptance {
        case .both:
            #expect(
                fast != nil && fast == foundation, "fast \(String(describing: fast))", sourceLocation: sourceLocation)
        case .neither:
            #expect(foundation == nil && fast == nil, sourceLocation: sourceLocation)
        case .onlyFoundation:
            #expect(foundation != nil && fast == nil, sourceLocation: sourceLocation)
        }
    }

    // MARK: Realistic frames

    @Test("realistic Ready frames of several sizes decode to exactly what JSONDecoder gives")
    func realisticSizes() async throws {
        let server = try await ReferenceServer.start()
        do {
            var sizes: [Int] = []
            for bytes in [20_000, 300_000, 1_500_000] {
                try await server.seedDataset(.approximateReadyBytes(bytes))
                let frame = try await server.readyFrame(for: server.defaultAccount.userID)
                sizes.append(frame.count)
                let expected = try JSONDecoder().decode(Ready.self, from: frame)
                #expect(try FastReadyDecoder.decode(frame) == expected)
                #expect(FastReadyDecoder.mightBeReady(frame))
                #expect(BonfireDecoder().decode(frame) == .event(.ready(expected)))
                #expect(!expected.users.isEmpty && !expected.servers.isEmpty && !expected.members.isEmpty)
            }
            #expect(sizes.last ?? 0 > 1_000_000, "sizes: \(sizes)")
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
    }

    @Test(
        "filtered Ready frames (the ready query) decode to what JSONDecoder gives",
        arguments: [["users"], ["servers", "channels"], ["members", "emojis"], ["voice_states", "user_settings"]])
    func filtered(fields: [String]) async throws {
        let server = try await ReferenceServer.start()
        do {
            try await server.seedDataset(
                DatasetShape(servers: 2, channelsPerServer: 3, membersPerServer: 4, emojisPerServer: 2))
            let frame = try await server.readyFrame(for: server.defaultAccount.userID, readyFields: fields)
            Self.check(frame, .both)
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
    }

    // MARK: Edge cases

    @Test("hand-written edge cases are accepted or refused as JSONDecoder does", arguments: edgeCases)
    func edgeCase(json: String, acceptance: Acceptance) {
        Self.check(Data(json.utf8), acceptance)
    }

    /// A Ready frame with one user whose members are `userFields` (after `_id` and `username`).
    static func user(_ userFields: String) -> String {
        #"{"type":"Ready","users":[{"_id":"U1","username":"ana"\#(userFields)}]}"#
    }

    static let edgeCases: [(String, Acceptance)] = [
        // Strings.
        (user(#","display_name":"a\"b\\c\/d\b\f\n\r\te""#), Acceptance.both),
        (user(#","display_name":"é😀中 raw""#), .both),
        (user(#","display_name":"\u00e9\u4E2D\u00C9""#), .both),
        (user(#","display_name":"\uD83D\uDE00 and \ud83c\udf89""#), .both),
        (user(#","display_name":"\uDBFF\uDFFF""#), .both),
        (user(#","display_name":"nul \u0000 inside""#), .both),
        (user(#","display_name":"a long string, longer than sixteen bytes, with an escape \n at its end""#), .both),
        (user(#","display_name":"\uD83D""#), .neither),
        (user(#","display_name":"\uDE00""#), .neither),
        (user(#","display_name":"\uD83D\u0041""#), .neither),
        (user(#","display_name":"\uD83D \uDE00""#), .neither),
        (user(#","display_name":"\x""#), .neither),
        (user(#","display_name":"\u12G4""#), .neither),
        (user(#","display_name":"unterminated"#), .neither),
        (user(#","_\u0069gnored":1,"\u0064isplay_name":"escaped key""#), .both),
        (user(#","note":"\uD83D""#), .both),
        (user(#","note":"\q""#), .onlyFoundation),
        // Absent fields, nulls and defaults.
        (#"{"type":"Ready"}"#, .both),
        (#"{"type":"Ready","users":[],"servers":[],"channels":[],"members":[],"emojis":[]}"#, .both),
        (#"{"type":"Ready","users":null,"servers":null,"channels":null,"members":null,"emojis":null}"#, .both),
        (
            user(#","discriminator":null,"display_name":null,"avatar":null,"flags":null,"status":null,"bot":null"#),
            .both
        ),
        (user(#","flags":4,"badges":-3,"privileged":false,"online":true,"relationship":"Friend""#), .both),
        (user(#","status":{"text":"hi","presence":"Idle"},"bot":{"owner":"U2"}"#), .both),
        (user(#","status":{},"avatar":{"_id":"A","tag":"avatars","size":0,"metadata":{"type":"Image"}}"#), .both),
        (#"{"type":"Ready","users":[{"_id":"U1"}]}"#, .neither),
        (#"{"type":"Ready","users":[{"_id":null,"username":"ana"}]}"#, .neither),
        (user(#","bot":{}"#), .neither),
        (user(#","avatar":{"_id":"A"}"#), .neither),
        (user(#","online":"yes""#), .neither),
        (user(#","flags":true"#), .neither),
        (#"{"type":"Ready","users":{}}"#, .neither),
        (#"{"type":"Ready","users":[null]}"#, .neither),
        // Servers, roles, channels, members, emojis.
        (#"{"type":"Ready","servers":[{"_id":"S","owner":"U","name":"n","channels":[],"roles":{}}]}"#, .both),
        (#"{"type":"Ready","servers":[{"_id":"S","owner":"U","name":"n","channels":["C"],"roles":null}]}"#, .both),
        (
            #"{"type":"Ready","servers":[{"_id":"S","owner":"U","name":"n","channels":["C1","C2"],"#
                + #""roles":{"R1":{"name":"Mod","colour":"red","hoist":true,"rank":-9223372036854775808},"#
                + #""R\u00e9":{"name":"Other","permissions":{"a":1,"d":0}}},"default_permissions":4000000000,"#
                + #""icon":{"_id":"I","tag":"icons"},"banner":null,"flags":2,"nsfw":false,"categories":[]}]}"#, .both
        ),
        (#"{"type":"Ready","servers":[{"_id":"S","owner":"U","name":"n"}]}"#, .neither),
        (#"{"type":"Ready","servers":[{"_id":"S","owner":"U","name":"n","channels":[null]}]}"#, .neither),
        (#"{"type":"Ready","servers":[{"_id":"S","owner":"U","name":"n","channels":[],"roles":{"R":{}}}]}"#, .neither),
        (#"{"type":"Ready","channels":[{"channel_type":"FutureKind","_id":"C","future_field":{"x":[]}}]}"#, .both),
        (
            #"{"type":"Ready","channels":[{"channel_type":"Group","_id":"C","recipients":["A","B"],"#
                + #""owner":"A","name":"g","description":null,"active":true,"last_message_id":"M","nsfw":true}]}"#,
            .both
        ),
        (#"{"type":"Ready","channels":[{"_id":"C"}]}"#, .neither),
        (#"{"type":"Ready","channels":[{"channel_type":null,"_id":"C"}]}"#, .neither),
        (
            #"{"type":"Ready","members":[{"_id":{"server":"S","user":"U"},"joined_at":"2026-01-01T00:00:00Z","#
                + #""nickname":"n","avatar":null,"roles":["R"],"timeout":"2027-01-01T00:00:00Z"}]}"#, .both
        ),
        (#"{"type":"Ready","members":[{"_id":"S:U"}]}"#, .neither),
        (#"{"type":"Ready","members":[{"_id":{"server":"S"}}]}"#, .neither),
        (#"{"type":"Ready","emojis":[{"_id":"E","parent":{"type":"Detached"},"creator_id":"U","name":"e"}]}"#, .both),
        (
            #"{"type":"Ready","emojis":[{"_id":"E","parent":{"type":"Server","id":"S"},"creator_id":"U","#
                + #""name":"e","animated":true,"nsfw":null}]}"#, .both
        ),
        (#"{"type":"Ready","emojis":[{"_id":"E","creator_id":"U","name":"e"}]}"#, .neither),
        // Unknown fields of every JSON type, nested.
        (
            #"{"type":"Ready","n":-0.5e-3,"t":true,"f":false,"z":null,"s":"x","a":[1,[2,[3,{}]],[]],"#
                + #""o":{"k":{"k":{"k":[{"v":1E+400}]}},"e":{}},"users":[]}"#, .both
        ),
        (#" {"type" : "Ready" , "users" : [ ] } "#, .both),
        (#"{"type":"Ready","users":[],"voice_states":[],"user_settings":{},"policy_changes":[]}"#, .both),
        // Numbers where the model has Int or Int64.
        (user(#","flags":0,"badges":-0"#), .both),
        (user(#","badges":9223372036854775807"#), .both),
        (user(#","badges":1e2"#), .onlyFoundation),
        (user(#","badges":1E+2"#), .onlyFoundation),
        (user(#","badges":2.0"#), .onlyFoundation),
        (user(#","badges":100e-2"#), .onlyFoundation),
        (user(#","flags":1.5"#), .neither),
        (user(#","flags":1e-2"#), .neither),
        (user(#","flags":1e20"#), .neither),
        (user(#","flags":1E400"#), .neither),
        (user(#","badges":9223372036854775808"#), .neither),
        (user(#","badges":01"#), .neither),
        (user(#","badges":-"#), .neither),
        (user(#","badges":+1"#), .neither),
        (user(#","badges":.5"#), .neither),
        (
            #"{"type":"Ready","servers":[{"_id":"S","owner":"U","name":"n","channels":[],"#
                + #""default_permissions":4e9}]}"#, .onlyFoundation
        ),
        // Duplicate keys: the first wins.
        (user(#","username":"second","display_name":"d","display_name":null"#), .both),
        (user(#","username":5"#), .both),
        (#"{"type":"Ready","users":[],"users":[{"_id":"U"}]}"#, .both),
        (#"{"type":"Ready","type":"Logout"}"#, .both),
        (
            #"{"type":"Ready","servers":[{"_id":"S","owner":"U","name":"n","channels":[],"#
                + #""roles":{"R":{"name":"first"},"R":{"name":"second"}}}]}"#, .both
        ),
        (
            #"{"type":"Ready","servers":[{"_id":"S","owner":"U","name":"n","channels":[],"#
                + #""roles":{"R":{"name":"first"},"R":{}}}]}"#, .onlyFoundation
        ),
        // The envelope.
        (#"{"type":"Logout","users":[]}"#, .neither),
        (#"{"users":[]}"#, .neither),
        (#"{"type":null}"#, .neither),
        (#"{"type":"Ready"} trailing"#, .neither),
        (#"{"type":"Ready"}{}"#, .neither),
        (#"{"type":"Ready""#, .neither),
        (#"{"type":"Ready",}"#, .onlyFoundation),
        (#"{"type":"Ready","users":[{"_id":"U","username":"u"},]}"#, .onlyFoundation),
        (#"{"type":"Ready","x":[1,2,]}"#, .onlyFoundation),
        (#"{"type":"Ready","x":01}"#, .onlyFoundation),
        (#"{"type":"Ready","x":1.}"#, .onlyFoundation),
        (#"{"type":"Ready","x":.5}"#, .neither),
        (#"{"type":"Ready","x":[1 2]}"#, .neither),
        (#"{"type":"Ready","x":{"a" 1}}"#, .neither),
        (#"{"type":"Ready","x":tru}"#, .neither),
        (#"{"type":"Ready","x":True}"#, .neither),
        (#"{"type":"Ready","\uD83D":1}"#, .neither),
        ("{\"type\":\"Ready\",\"x\":\"raw\u{01}control\"}", .onlyFoundation),
        ("{\"type\":\"Ready\",\"users\":[{\"_id\":\"U\",\"username\":\"raw\u{1F}control\"}]}", .neither),
        ("{\"type\":\"Ready\"}\u{0C}", .neither),
        ("\u{FEFF}{\"type\":\"Ready\"}", .onlyFoundation),
        ("", .neither),
        ("[]", .neither),
    ]

    @Test(
        "invalid UTF-8 is refused in a decoded string and a key, and left to JSONDecoder in a skipped string",
        arguments: [
            ([0xFF], "display_name", Acceptance.neither), ([0xC0, 0x80], "display_name", .neither),
            ([0xED, 0xA0, 0x80], "display_name", .neither), ([0xE2, 0x82], "display_name", .neither),
            ([0xFF], "note", .onlyFoundation), ([0xED, 0xA0, 0x80], "note", .onlyFoundation),
            ([0xC3, 0xA9], "note", .both), ([0xC3, 0xA9], "display_name", .both),
        ] as [([UInt8], String, Acceptance)])
    func invalidUTF8(bytes: [UInt8], field: String, acceptance: Acceptance) {
        let frame =
            Array(#"{"type":"Ready","users":[{"_id":"U","username":"u",""#.utf8) + Array(field.utf8)
            + Array(#"":"a"#.utf8) + bytes + Array(#"b"}]}"#.utf8)
        Self.check(Data(frame), acceptance)
        let key = Array(#"{"type":"Ready",""#.utf8) + bytes + Array(#"":1}"#.utf8)
        Self.check(Data(key), bytes == [0xC3, 0xA9] ? .both : .neither)
    }

    // MARK: Nesting

    @Test("100 000 nested brackets are refused without overflowing the stack", .hangBound)
    func deepNesting() throws {
        for opening in ["[", "{\"a\":"] {
            let deep = #"{"type":"Ready","x":"# + String(repeating: opening, count: 100_000)
            let data = Data(deep.utf8)
            #expect(throws: JSONScanError.self) { try FastReadyDecoder.decode(data) }
            for frame in [data, Data(String(repeating: opening, count: 100_000).utf8)] {
                guard case .undecodable = BonfireDecoder().decode(frame) else {
                    Issue.record("decoded 100 000 nested \(opening)")
                    return
                }
            }
        }
        let limit = JSONScanner.maximumDepth
        func nested(_ depth: Int) -> Data {
            // The top-level object is one level; `depth - 1` arrays make `depth`.
            Data(
                (#"{"type":"Ready","x":"# + String(repeating: "[", count: depth - 1)
                    + String(repeating: "]", count: depth - 1) + "}").utf8)
        }
        #expect(Self.fastReady(nested(limit)) == Ready())
        #expect(Self.fastReady(nested(limit + 1)) == nil)
        #expect(
            Self.foundationReady(nested(limit + 1)) == Ready(), "JSONDecoder accepts more; the fast path falls back")
    }

    // MARK: Mutations

    /// Small real frames with every field kind: two from the reference server, one written by hand, and one with
    /// every field of every model set.
    static func mutationSeeds() async throws -> [[UInt8]] {
        let server = try await ReferenceServer.start()
        do {
            try await server.seedDataset(
                DatasetShape(servers: 1, channelsPerServer: 2, membersPerServer: 3, emojisPerServer: 2))
            let full = try await server.readyFrame(for: server.defaultAccount.userID)
            let some = try await server.readyFrame(
                for: server.defaultAccount.userID, readyFields: ["servers", "members", "voice_states"])
            await server.stop()
            let handWritten = #"""
                {"type":"Ready","users":[{"_id":"U1","username":"ana","discriminator":"0001","display_name":"A\u00e9\n",
                "avatar":{"_id":"A","tag":"avatars","filename":"a.png","content_type":"image/png","size":3},
                "badges":1,"status":{"text":"hi","presence":"Online"},"flags":0,"privileged":false,"bot":{"owner":"U2"},
                "relationship":"User","online":true}],"servers":[{"_id":"S1","owner":"U1","name":"L","description":"d",
                "channels":["C1"],"roles":{"R1":{"name":"Mod","colour":"#fff","hoist":true,"rank":1}},
                "default_permissions":4000000000,"icon":null,"flags":1,"nsfw":false}],
                "channels":[{"channel_type":"DirectMessage","_id":"C2","recipients":["U1","U2"],"active":true,
                "last_message_id":"M"}],"members":[{"_id":{"server":"S1","user":"U1"},"roles":["R1"],"timeout":null}],
                "emojis":[{"_id":"E","parent":{"type":"Server","id":"S1"},"creator_id":"U1","name":"e","animated":false}],
                "extra":[1.5e3,{"k":"\ud83d\ude00"}]}
                """#
            // Every field of every model, the new ones (dates, overrides, categories) among them.
            let encoded = try JSONEncoder().encode(FastReadyDecoderKeysTests.everyField)
            let everyField = #"{"type":"Ready","#.utf8 + encoded.dropFirst()
            return [Array(full), Array(some), Array(handWritten.utf8), Array(everyField)]
        } catch {
            await server.stop()
            throw error
        }
    }

    @Test("seeded random mutations of real Ready frames: the public outcome is always JSONDecoder's (6 000 runs)")
    func mutations() async throws {
        let seeds = try await Self.mutationSeeds()
        let alphabet = Array(#"{}[]":,0123456789.-+eE\ntrufalsn"u \#u{00}"#.utf8) + [0xC3, 0xA9, 0xFF, 0x01]
        let values = [
            "null", "0", "-1", "1e2", "2.0", "1.5", "true", "\"s\"", "[]", "{}", "\"\\uD83D\"", "99999999999999999999",
        ].map { Array($0.utf8) }
        var random = SeededRandomNumberGenerator(seed: 20_260_101)
        var counts: [String: Int] = [:]
        for run in 0..<6_000 {
            // Yields now and then: a CPU-bound loop holds one of the cooperative pool's threads (two on a 2-core machine), and
            // the in-process servers of every other test wait for them (README: "Tests on a loaded machine").
            if run % 32 == 0 { await Task.yield() }
            var bytes = seeds[run % seeds.count]
            for _ in 0..<Int.random(in: 1...4, using: &random) where !bytes.isEmpty {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<7, using: &random) {
                case 0: bytes[index] = alphabet.randomElement(using: &random)!
                case 1: bytes.remove(at: index)
                case 2: bytes.insert(alphabet.randomElement(using: &random)!, at: index)
                case 3: bytes = Array(bytes[..<index])
                case 4: bytes.insert(contentsOf: bytes[index..<min(bytes.count, index + 12)], at: index)
                default:
                    // Replace the value after a colon with another value of any type.
                    guard let colon = bytes[index...].firstIndex(of: UInt8(ascii: ":")) else { break }
                    let valueEnd =
                        bytes[(colon + 1)...].firstIndex { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "}") }
                        ?? bytes.count
                    bytes.replaceSubrange((colon + 1)..<valueEnd, with: values.randomElement(using: &random)!)
                }
            }
            let data = Data(bytes)
            let foundation = Self.foundationReady(data)
            let fast = Self.fastReady(data)
            let outcome = BonfireDecoder().decode(data)
            let reference = BonfireDecoder.decodeWithFoundation(data)
            #expect(outcome == reference, "run \(run): \(String(decoding: bytes, as: UTF8.self))")
            if let fast {
                #expect(fast == foundation, "run \(run): \(String(decoding: bytes, as: UTF8.self))")
            }
            let key =
                switch (fast != nil, foundation != nil) {
                case (true, true): "both"
                case (false, false): "neither"
                case (false, true): "only JSONDecoder"
                case (true, false): "only fast"
                }
            counts[key, default: 0] += 1
        }
        #expect(counts["only fast"] == nil, "\(counts)")
        #expect(counts["both", default: 0] > 500 && counts["neither", default: 0] > 500, "\(counts)")
    }
}
