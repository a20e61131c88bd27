import Foundation
import LifelineTesting
import Testing

@testable import LifelineStoat
@testable import StoatReferenceServer

/// The direct MessagePack `Ready` reader against the transcoding path (MessagePack read as JSON, then the JSON
/// decoders), the reference it must agree with: when it takes a frame it gives the `Ready` the JSON of the same
/// frame gives, and whatever it refuses, the public outcome is the transcoding path's.
@Suite("The direct MessagePack Ready reader")
struct MessagePackReadyReaderTests {
    let decoder = BonfireDecoder()

    /// The direct reader's own verdict, with no fallback.
    static func direct(_ bytes: [UInt8]) -> Result<Ready, JSONScanError> {
        Result { () throws(JSONScanError) -> Ready in try FastReadyDecoder.decode(messagePack: Data(bytes)) }
    }

    /// Both encodings of a wire value: bonfire's (`str`, in order) and the gateway's (`bin`, keys sorted).
    static func encodings(_ wire: Wire) -> [[UInt8]] {
        [wire.messagePack(binaryStrings: false), wire.sortedKeys.messagePack(binaryStrings: true)]
    }

    @Test("a Ready from both events servers, seeded, is read directly into what its JSON decodes to")
    func serversReady() async throws {
        for events in ReferenceServer.EventsServer.all {
            let server = try await ReferenceServer.start(.init(events: events))
            do {
                try await server.seedDataset(.approximateReadyBytes(200_000))
                let json = try await server.readyFrame(for: server.defaultAccount.userID)
                let packed = try await server.readyFrame(for: server.defaultAccount.userID, messagePack: true)
                await server.stop()
                let expected = try JSONDecoder().decode(Ready.self, from: json)
                #expect(!expected.users.isEmpty && !expected.servers.isEmpty && !expected.members.isEmpty)
                #expect(FastReadyDecoder.mightBeReady(messagePack: packed), "\(events)")
                #expect(try FastReadyDecoder.decode(messagePack: packed) == expected, "\(events)")
                #expect(decoder.decode(messagePack: packed) == .event(.ready(expected)), "\(events)")
                #expect(decoder.decodeByTranscoding(messagePack: packed) == .event(.ready(expected)), "\(events)")
            } catch {
                await server.stop()
                throw error
            }
        }
    }

    @Test("every field of every model, in both encodings and with timestamps in milliseconds, is read directly")
    func everyField() throws {
        let encoded = try JSONEncoder().encode(FastReadyDecoderKeysTests.everyField)
        var frames = [
            try OrderedJSON.parse(MessagePackCodecTests.moreFrames[1]),
            try OrderedJSON.parse(#"{"type":"Ready","# + String(decoding: encoded.dropFirst(), as: UTF8.self)),
        ]
        let at = try #require(StoatDates.iso8601("2026-03-04T05:06:07.089Z"))
        frames.append(
            .object([
                "type": .string("Ready"),
                // Integers in every width and sign, where fields read them.
                "users": .array(
                    [-5, -100, -30_000, -2_000_000_000, 100, 200, 60_000, 4_000_000_000, Int64.min, Int64.max].map {
                        .object([
                            "_id": .string("U\($0)"), "username": .string("ü\($0) — 😀 long enough for a word"),
                            "badges": .int($0),
                            "flags": .int($0 / 3),
                        ])
                    }),
                "members": .array([
                    .object([
                        "_id": .object(["server": .string("S"), "user": .string("U")]), "joined_at": .timestamp(at),
                        "timeout": .timestamp(at), "roles": .array([]),
                    ])
                ]),
                // Integer keys, floats, extensions and nested values in a field nobody reads are skipped.
                "voice_states": .array([.double(1.5), .uint(UInt64.max), .int(-40_000), .null, .bool(true)]),
            ]))
        for wire in frames {
            let expected = decoder.decode(wire.text)
            guard case .event(.ready(let ready)) = expected else {
                Issue.record("the JSON of \(wire.text) does not decode: \(expected)")
                continue
            }
            for packed in Self.encodings(wire) {
                #expect(Self.direct(packed) == .success(ready), "\(wire.text)")
                #expect(decoder.decode(messagePack: Data(packed)) == expected)
            }
        }
        // An integer key, as a role id, reads as its decimal text, as the transcoder writes it.
        let roles: [UInt8] =
            [0x82] + Self.str("type") + Self.str("Ready") + Self.str("servers") + [0x91, 0x85]
            + Self.str("_id") + Self.str("S") + Self.str("owner") + Self.str("U") + Self.str("name") + Self.str("n")
            + Self.str("channels") + [0x90] + Self.str("roles") + [0x81, 0xCD, 0x01, 0x00, 0x82]
            + Self.str("name") + Self.str("Mod") + Self.str("x") + [0xD4, 0x01, 0x02]
        let ready = try #require(try? Self.direct(roles).get())
        #expect(ready.servers.first?.roles?["256"]?.name == "Mod")
        #expect(decoder.decode(messagePack: Data(roles)) == decoder.decodeByTranscoding(messagePack: Data(roles)))
    }

    /// A `str` of `text`.
    static func str(_ text: String) -> [UInt8] {
        Wire.string(text).messagePack(binaryStrings: false)
    }

    @Test("every truncation of a Ready is a typed error of the direct reader, and the outcome the transcoder's")
    func truncated() throws {
        let wire = try OrderedJSON.parse(MessagePackCodecTests.moreFrames[1])
        for packed in Self.encodings(wire) {
            for end in 0..<packed.count {
                let prefix = Array(packed[..<end])
                guard case .failure = Self.direct(prefix) else {
                    Issue.record("a \(end)-byte prefix was read")
                    continue
                }
                let outcome = decoder.decode(messagePack: Data(prefix))
                #expect(outcome == decoder.decodeByTranscoding(messagePack: Data(prefix)))
                guard case .undecodable = outcome else {
                    Issue.record("a \(end)-byte prefix gave \(outcome)")
                    continue
                }
            }
        }
    }

    /// Ready frames a hostile or broken server could send, each with the code the direct reader refuses it
    /// with.
    static let hostile: [(String, [UInt8], JSONScanError.Code)] = [
        ("users not an array", [0x82] + str("type") + str("Ready") + str("users") + [0x05], .wrongType),
        (
            "a user id that is an integer",
            [0x82] + str("type") + str("Ready") + str("users") + [0x91, 0x82] + str("_id") + [0x07]
                + str("username") + str("u"), .wrongType
        ),
        (
            "flags as a float",
            [0x82] + str("type") + str("Ready") + str("users") + [0x91, 0x83] + str("_id") + str("U")
                + str("username") + str("u") + str("flags") + [0xCB, 0x40, 0, 0, 0, 0, 0, 0, 0], .unsupportedNumber
        ),
        (
            "badges beyond Int64",
            [0x82] + str("type") + str("Ready") + str("users") + [0x91, 0x83] + str("_id") + str("U")
                + str("username") + str("u") + str("badges") + [0xCF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
            .unsupportedNumber
        ),
        (
            "four billion users in a few bytes",
            [0x82] + str("type") + str("Ready") + str("users") + [0xDD, 0xFF, 0xFF, 0xFF, 0xFF, 0x80], .unexpectedByte
        ),
        (
            "a map claiming four billion members",
            [0x82] + str("type") + str("Ready") + str("x") + [0xDF, 0xFF, 0xFF, 0xFF, 0xFF, 0xC0, 0xC0],
            .unexpectedByte
        ),
        (
            "a string claiming four gigabytes",
            [0x82] + str("type") + str("Ready") + str("x") + [0xDB, 0xFF, 0xFF, 0xFF, 0xFF, 0x41], .unexpectedByte
        ),
        (
            "an extension claiming four gigabytes",
            [0x82] + str("type") + str("Ready") + str("x") + [0xC9, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], .unexpectedByte
        ),
        (
            "100 000 nested arrays",
            [0x82] + str("type") + str("Ready") + str("x") + Array(repeating: 0x91, count: 100_000) + [0x01], .tooDeep
        ),
        (
            "invalid UTF-8 in a username, past the first eight bytes",
            [0x82] + str("type") + str("Ready") + str("users") + [0x91, 0x82] + str("_id") + str("U")
                + str("username") + [0xAB] + Array("abcdefgh".utf8) + [0xC3, 0x28, 0x41], .invalidString
        ),
        ("the byte 0xC1", [0x82] + str("type") + str("Ready") + str("x") + [0xC1], .unexpectedByte),
        ("a key that is nil", [0x82] + str("type") + str("Ready") + [0xC0, 0x01], .wrongType),
        (
            "invalid UTF-8 in a skipped string", [0x82] + str("type") + str("Ready") + str("x") + [0xA1, 0xFF],
            .invalidString
        ),
        ("invalid UTF-8 in a key", [0x82] + str("type") + str("Ready") + [0xA1, 0xFF, 0x01], .invalidString),
        ("bytes after the frame", [0x81] + str("type") + str("Ready") + [0xC0], .trailingBytes),
        ("another event's type, last", [0x82] + str("users") + [0x90] + str("type") + str("Message"), .notReady),
    ]

    @Test(
        "hostile Ready frames are each a typed error of the direct reader, never a crash, and the outcome the transcoder's",
        arguments: hostile.indices)
    func hostileFrames(index: Int) {
        let (name, bytes, code) = Self.hostile[index]
        switch Self.direct(bytes) {
        case .success(let ready): Issue.record("\(name): read as \(ready)")
        case .failure(let error): #expect(error.code == code, "\(name): \(error)")
        }
        #expect(
            decoder.decode(messagePack: Data(bytes)) == decoder.decodeByTranscoding(messagePack: Data(bytes)), "\(name)"
        )
    }

    @Test(
        "seeded random mutations of real MessagePack Ready frames: the outcome is always the transcoder's (6 000 runs)")
    func mutations() async throws {
        let seeds = try await FastReadyDecoderTests.mutationSeeds().flatMap { json in
            Self.encodings(try OrderedJSON.parse(String(decoding: json, as: UTF8.self)))
        }
        let alphabet: [UInt8] = [
            0x00, 0x01, 0x7F, 0x80, 0x81, 0x8F, 0x90, 0x91, 0x9F, 0xA0, 0xA1, 0xBF, 0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC7,
            0xCA, 0xCB, 0xCC, 0xCF, 0xD0, 0xD3, 0xD4, 0xD9, 0xDC, 0xDD, 0xDE, 0xDF, 0xE0, 0xFF,
        ]
        var random = SeededRandomNumberGenerator(seed: 20_261_125)
        var counts: [String: Int] = [:]
        for run in 0..<6_000 {
            // Yields now and then: a CPU-bound loop holds one of the cooperative pool's threads (two on a 2-core machine), and
            // the in-process servers of every other test wait for them (HowLifelineIsBuilt.md: "The tests").
            if run % 32 == 0 { await Task.yield() }
            var bytes = seeds[run % seeds.count]
            for _ in 0..<Int.random(in: 1...2, using: &random) where !bytes.isEmpty {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<7, using: &random) {
                case 0: bytes[index] = alphabet.randomElement(using: &random)!
                // An ASCII byte: inside a string it keeps the frame well-formed, elsewhere it changes a type.
                case 4, 5: bytes[index] = UInt8.random(in: 0x20...0x7E, using: &random)
                case 1: bytes.remove(at: index)
                case 2: bytes.insert(alphabet.randomElement(using: &random)!, at: index)
                case 3: bytes = Array(bytes[..<index])
                default: bytes.insert(contentsOf: bytes[index..<min(bytes.count, index + 8)], at: index)
                }
            }
            let data = Data(bytes)
            let reference = decoder.decodeByTranscoding(messagePack: data)
            #expect(decoder.decode(messagePack: data) == reference, "run \(run): \(bytes)")
            let direct = try? Self.direct(bytes).get()
            if let direct {
                #expect(reference == .event(.ready(direct)), "run \(run): \(bytes)")
            }
            let referenceIsReady = if case .event(.ready) = reference { true } else { false }
            counts[(direct != nil ? "direct" : "refused") + (referenceIsReady ? ", Ready" : ""), default: 0] += 1
        }
        #expect(counts["direct"] == nil, "never a Ready where the transcoder has none: \(counts)")
        #expect(counts["direct, Ready", default: 0] > 500 && counts["refused", default: 0] > 500, "\(counts)")
    }
}
