import Foundation
import LifelineTesting
import Testing

@testable import LifelineStoat
@testable import StoatReferenceServer

/// MessagePack on the socket: the same events as JSON (the differential), bounded like the JSON scanner, and
/// the client's frames as both servers read them.
@Suite("The MessagePack codec")
struct MessagePackCodecTests {
    let decoder = BonfireDecoder()

    /// Frames beyond the codec table's: a message and a Ready with every typed field.
    static let moreFrames: [String] = [
        #"{"type":"Message","_id":"M1","nonce":"n","channel":"C1","author":"U1","content":"hi \"there\"\n\u0001é😀","embeds":[{"type":"None","future":1.5}],"masquerade":{"name":"x"},"mentions":["U2"],"future":[1,-2,3.25,null,true,false]}"#,
        #"{"type":"Ready","users":[{"_id":"U1","username":"ana","discriminator":"0001","relationship":"User","online":true,"avatar":{"_id":"A","tag":"avatars","filename":"a.png","content_type":"image/png","size":3,"metadata":{}}},{"_id":"U2","username":"bo","avatar":{}}],"servers":[{"_id":"S1","owner":"U1","name":"Lobby","channels":["C1"],"default_permissions":4294967296,"roles":{"R1":{"name":"Mod","rank":1,"permissions":{"a":0,"d":0}}}}],"channels":[{"channel_type":"TextChannel","_id":"C1","server":"S1","name":"general"},{"channel_type":"SavedMessages","_id":"C2","user":"U1"}],"members":[{"_id":{"server":"S1","user":"U1"},"joined_at":"2026-01-01T00:00:00Z","roles":["R1"],"timeout":"2026-01-02T00:00:00.000Z"}],"emojis":[{"_id":"E1","parent":{"type":"Server","id":"S1"},"creator_id":"U1","name":"wave"}],"voice_states":[],"user_settings":{"x":[1,"y"]},"channel_unreads":[{"_id":{"channel":"C1","user":"U1"},"last_id":"M9","mentions":["M8"]}],"policy_changes":[]}"#,
    ]

    static var everyFrame: [String] { BonfireCodecTests.wireEvents.map(\.0) + moreFrames }

    @Test(
        "every event decodes from MessagePack to what its JSON decodes to: bonfire's (str, in order), the gateway's (bin, keys sorted)"
    )
    func differential() throws {
        for json in Self.everyFrame {
            let wire = try OrderedJSON.parse(json)
            let expected = decoder.decode(json)
            guard case .event = expected else {
                Issue.record("the JSON of \(json) does not decode: \(expected)")
                continue
            }
            #expect(decoder.decode(messagePack: Data(wire.messagePack(binaryStrings: false))) == expected, "\(json)")
            #expect(
                decoder.decode(messagePack: Data(wire.sortedKeys.messagePack(binaryStrings: true))) == expected,
                "\(json)")
        }
    }

    @Test("a Ready from both events servers decodes the same from MessagePack as from JSON")
    func serversReady() async throws {
        for events in ReferenceServer.EventsServer.all {
            let server = try await ReferenceServer.start(.init(events: events))
            do {
                let friend = try await server.addUser(username: "friend")
                try await server.makeFriends(server.defaultAccount.userID, friend.userID)
                let json = try await server.readyFrame(for: server.defaultAccount.userID)
                let packed = try await server.readyFrame(for: server.defaultAccount.userID, messagePack: true)
                guard case .event(.ready(let ready)) = decoder.decode(json) else {
                    Issue.record("\(events): the JSON Ready does not decode")
                    await server.stop()
                    continue
                }
                #expect(decoder.decode(messagePack: packed) == .event(.ready(ready)), "\(events)")
                #expect(ready.users.count == 2)
            } catch {
                await server.stop()
                throw error
            }
            await server.stop()
        }
    }

    @Test("the gateway's own Ready — viewer first, every field — decodes in both formats")
    func gatewayReady() async throws {
        let server = try await ReferenceServer.start(.init(events: .gateway))
        let friend = try await server.addUser(username: "friend")
        try await server.makeFriends(server.defaultAccount.userID, friend.userID)
        let state = server.state
        let user = try #require(await state.users[server.defaultAccount.userID])
        let wire = await state.gatewayReady(for: user, fields: .standard).0.sortedKeys
        await server.stop()
        guard case .event(.ready(let ready)) = decoder.decode(wire.text) else {
            Issue.record("the gateway's Ready does not decode: \(decoder.decode(wire.text))")
            return
        }
        #expect(ready.users.map(\.id) == [server.defaultAccount.userID, friend.userID])
        #expect(decoder.decode(messagePack: Data(wire.messagePack(binaryStrings: true))) == .event(.ready(ready)))
        #expect(BonfireDecoder.decodeWithFoundation(Data(wire.text.utf8)) == .event(.ready(ready)))
    }

    @Test("a timestamp as bonfire's MessagePack writes it, in milliseconds, decodes to the Date its text does")
    func timestamps() throws {
        var random = SeededRandomNumberGenerator(seed: 7)
        // The reference: whole seconds are exact in a `Date`, so Foundation formats them exactly; the
        // milliseconds are appended as digits.
        let seconds = Date.ISO8601FormatStyle()
        for _ in 0..<5_000 {
            let milliseconds = Int64.random(in: 0...253_402_300_799_999, using: &random)
            let whole = (milliseconds - ((milliseconds % 1000) + 1000) % 1000) / 1000
            let fraction = ((milliseconds % 1000) + 1000) % 1000
            var text = Date(timeIntervalSince1970: Double(whole)).formatted(seconds)
            text.insert(
                contentsOf: "." + String(String(fraction + 1000).dropFirst()), at: text.index(before: text.endIndex))
            #expect(StoatDates.date(milliseconds: milliseconds) == StoatDates.iso8601(text), "\(milliseconds): \(text)")
            // The server counts the milliseconds of the text it writes.
            let date = try #require(StoatDates.iso8601(text))
            let written = StoatTimestamp.string(date)
            #expect(StoatDates.date(milliseconds: StoatTimestamp.milliseconds(date)) == StoatDates.iso8601(written))
        }
        #expect(StoatDates.date(milliseconds: 253_402_300_800_000) == nil, "beyond the year 9999")
        #expect(StoatDates.date(milliseconds: Int64.min) == nil)
        #expect(StoatDates.date(milliseconds: -1) == nil, "before 1970")
        #expect(StoatDates.date(milliseconds: 0) == StoatDates.iso8601("1970-01-01T00:00:00.000Z"))
        let at = try #require(StoatDates.iso8601("2026-03-04T05:06:07.089Z"))
        for wire: Wire in [
            .object([
                "type": .string("ServerMemberUpdate"),
                "id": .object(["server": .string("S"), "user": .string("U")]),
                "data": .object(["timeout": .timestamp(at)]),
            ]),
            .object([
                "type": .string("Message"), "_id": .string("M"), "channel": .string("C"), "author": .string("U"),
                "edited": .timestamp(at),
                "member": .object([
                    "_id": .object(["server": .string("S"), "user": .string("U")]), "joined_at": .timestamp(at),
                ]),
            ]),
        ] {
            let packed = wire.messagePack(binaryStrings: false)
            #expect(packed.contains(0xCF), "the milliseconds, not the text")
            let expected = decoder.decode(wire.text)
            guard case .event = expected else {
                Issue.record("\(wire.text) does not decode: \(expected)")
                continue
            }
            #expect(decoder.decode(messagePack: Data(packed)) == expected, "\(wire.text)")
        }
    }

    @Test("the same frame limit: a frame above it, or whose JSON would be more than twice it, is too large")
    func frameLimit() {
        let small = BonfireDecoder(maximumFrameSize: 100)
        let big = Wire.object(["type": .string("Message"), "content": .string(String(repeating: "x", count: 120))])
        let bytes = big.messagePack(binaryStrings: false)
        #expect(small.decode(messagePack: Data(bytes)) == .tooLarge(bytes: bytes.count))
        // 80 control characters: 88 bytes of MessagePack, 480 of JSON.
        let controls = Wire.object(["type": .string("X"), "c": .string(String(repeating: "\u{01}", count: 80))])
        let packed = controls.messagePack(binaryStrings: false)
        #expect(packed.count <= 100)
        #expect(small.decode(messagePack: Data(packed)) == .tooLarge(bytes: packed.count))
        #expect(BonfireDecoder().decode(messagePack: Data(packed)) == .event(.unknown(type: "X")))
    }

    @Test(
        "malformed MessagePack is undecodable, never fatal, with no allocation by a stated length",
        arguments: [
            [], [0xC1], [0x81], [0x81, 0xA4, 0x74, 0x79, 0x70], [0xDD, 0xFF, 0xFF, 0xFF, 0xFF],
            [0xDF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], [0xDB, 0xFF, 0xFF, 0xFF, 0xFF, 0x41], [0xC9, 0xFF, 0xFF, 0xFF, 0xFF],
            [0x81, 0x91, 0x01, 0x01], [0x81, 0xC0, 0x01], [0x80, 0x80], [0x91], [0xA1, 0xFF],
        ] as [[UInt8]])
    func malformed(bytes: [UInt8]) {
        guard case .undecodable(let reason) = decoder.decode(messagePack: Data(bytes)) else {
            Issue.record("decoded \(bytes)")
            return
        }
        #expect(!reason.isEmpty)
    }

    @Test("nesting deeper than the JSON scanner's limit is refused without overflowing the stack")
    func deep() {
        let deep = Array(repeating: UInt8(0x91), count: 100_000) + [0x01]
        #expect(throws: MessagePackError.self) { try MessagePack.json(from: Data(deep), maximumSize: 1 << 20) }
        let shallow = Array(repeating: UInt8(0x91), count: 100) + [0x01]
        #expect(
            (try? MessagePack.json(from: Data(shallow), maximumSize: 1 << 20))
                == Array((String(repeating: "[", count: 100) + "1" + String(repeating: "]", count: 100)).utf8))
    }

    @Test("integers, floats, nil and integer keys read as serde_json writes them")
    func scalars() throws {
        func json(_ bytes: [UInt8]) throws -> String {
            String(decoding: try MessagePack.json(from: Data(bytes), maximumSize: 1 << 10), as: UTF8.self)
        }
        #expect(try json([0xCF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) == "18446744073709551615")
        #expect(try json([0xD3, 0x80, 0, 0, 0, 0, 0, 0, 0]) == "-9223372036854775808")
        #expect(try json([0xE0]) == "-32")
        #expect(try json([0xCA, 0x3D, 0xCC, 0xCC, 0xCD]) == "0.1", "an f32 as its own shortest decimal")
        #expect(try json([0xCB, 0x7F, 0xF8, 0, 0, 0, 0, 0, 0]) == "null", "NaN")
        #expect(try json([0x81, 0x07, 0xC0]) == #"{"7":null}"#)
        #expect(try json([0xD4, 0x01, 0x02]) == "null", "an extension")
    }

    @Test("seeded random mutations of real MessagePack frames never crash the decoder (20 000 runs)")
    func fuzz() async throws {
        let seeds = try Self.everyFrame.flatMap { json -> [[UInt8]] in
            let wire = try OrderedJSON.parse(json)
            return [wire.messagePack(binaryStrings: false), wire.sortedKeys.messagePack(binaryStrings: true)]
        }
        let alphabet: [UInt8] = [
            0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC4, 0xC7, 0xCA, 0xCB, 0xCF, 0xD3, 0xD9, 0xDC,
            0xDD, 0xDE, 0xDF, 0xE0, 0xFF,
        ]
        var random = SeededRandomNumberGenerator(seed: 2026)
        var outcomes = [0, 0, 0]
        let small = BonfireDecoder(maximumFrameSize: 1 << 12)
        for run in 0..<20_000 {
            // Yields now and then: a CPU-bound loop holds one of the cooperative pool's threads (two on a 2-core machine), and
            // the in-process servers of every other test wait for them (README: "Tests on a loaded machine").
            if run % 32 == 0 { await Task.yield() }
            var bytes = seeds.randomElement(using: &random)!
            for _ in 0..<Int.random(in: 1...6, using: &random) where !bytes.isEmpty {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<5, using: &random) {
                case 0: bytes[index] = alphabet.randomElement(using: &random)!
                case 1: bytes.remove(at: index)
                case 2: bytes.insert(UInt8.random(in: 0...255, using: &random), at: index)
                case 3: bytes = Array(bytes[..<index])
                default: bytes.insert(contentsOf: bytes[index..<min(bytes.count, index + 8)], at: index)
                }
            }
            switch small.decode(messagePack: Data(bytes)) {
            case .event: outcomes[0] += 1
            case .undecodable: outcomes[1] += 1
            case .tooLarge: outcomes[2] += 1
            }
        }
        #expect(outcomes[0] > 0 && outcomes[1] > 0, "the mutations reach both outcomes: \(outcomes)")
    }

    @Test("client frames are maps with bin strings: bonfire reads them as its JSON frames, the gateway matches them")
    func clientFrames() {
        for frame in [
            BonfireClientFrame.authenticate(token: "t0k"), .ping(1_719_400_000_000), .pong(-7), .pong(200),
            .subscribe(serverID: String(repeating: "S", count: 300)), .beginTyping(channel: "C1"),
            .endTyping(channel: "C1"),
        ] {
            let value = MessagePackValue(bytes: frame.messagePack)
            #expect(
                value?.bonfireJSON == (try? JSONDecoder().decode(JSONValue.self, from: Data(frame.json.utf8))),
                "\(frame)")
            #expect(GatewayTerm(messagePack: frame.messagePack)?["type"] != nil, "a bin key the gateway matches")
            guard case .map(let pairs)? = value else { continue }
            for (key, _) in pairs {
                if case .bin = key {} else { Issue.record("a key that is not bin in \(frame)") }
            }
        }
    }
}

/// A JSON parser for the tests' own frames that keeps each object's key order, as a ``Wire``.
enum OrderedJSON {
    struct Failure: Error {}

    static func parse(_ text: String) throws -> Wire {
        var parser = Parser(bytes: Array(text.utf8))
        let value = try parser.value()
        parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw Failure() }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
        }

        mutating func value() throws -> Wire {
            skipSpace()
            guard index < bytes.count else { throw Failure() }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var fields: [Wire.Field] = []
                skipSpace()
                if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(fields)
                }
                while true {
                    skipSpace()
                    guard case .string(let key) = try value() else { throw Failure() }
                    skipSpace()
                    guard bytes[index] == UInt8(ascii: ":") else { throw Failure() }
                    index += 1
                    fields.append(.init(key: key, value: try value()))
                    skipSpace()
                    index += 1
                    if bytes[index - 1] == UInt8(ascii: "}") { return .object(fields) }
                }
            case UInt8(ascii: "["):
                index += 1
                var elements: [Wire] = []
                skipSpace()
                if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(elements)
                }
                while true {
                    elements.append(try value())
                    skipSpace()
                    index += 1
                    if bytes[index - 1] == UInt8(ascii: "]") { return .array(elements) }
                }
            case UInt8(ascii: "\""):
                let start = index
                index += 1
                while bytes[index] != UInt8(ascii: "\"") { index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1 }
                index += 1
                return .string(try JSONDecoder().decode(String.self, from: Data(bytes[start..<index])))
            case UInt8(ascii: "t"):
                index += 4
                return .bool(true)
            case UInt8(ascii: "f"):
                index += 5
                return .bool(false)
            case UInt8(ascii: "n"):
                index += 4
                return .null
            default:
                let start = index
                while index < bytes.count, Array("+-0123456789.eE".utf8).contains(bytes[index]) { index += 1 }
                let text = String(decoding: bytes[start..<index], as: UTF8.self)
                if let value = Int64(text) { return .int(value) }
                if let value = UInt64(text) { return .uint(value) }
                guard let value = Double(text) else { throw Failure() }
                return .double(value)
            }
        }
    }
}
