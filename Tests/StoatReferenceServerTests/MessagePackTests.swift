import Foundation
import NIOWebSocket
import Testing

@testable import StoatReferenceServer

/// `format=msgpack`: bonfire writes `rmp_serde::to_vec_named` (`crates/bonfire/src/config.rs`), the gateway
/// `:msgpack.pack/1` of `msgpack-erlang` with its defaults (`encode_frame` in
/// `lib/stoat_gateway/web/socket_handler.ex`).
@Suite("Events socket in MessagePack")
struct MessagePackTests {
    /// A client frame as MessagePack, its strings as `str` (what `rmp_serde` and most clients write) or `bin`.
    static func frame(_ pairs: KeyValuePairs<String, Wire?>, binary: Bool) -> [UInt8] {
        Wire.object(pairs).messagePack(binaryStrings: binary)
    }

    static func bytes(_ message: TestSocket.Message?) throws -> [UInt8] {
        guard case .binary(let bytes)? = message else {
            Issue.record("expected a binary message, got \(String(describing: message))")
            throw CancellationError()
        }
        return bytes
    }

    @Test("bonfire: events are named maps with str strings, and stand for the JSON frames' values")
    func bonfireEncoding() async throws {
        try await withServer { server throws in
            let token = server.defaultAccount.token
            let packed = await TestSocket.connect(server.eventsURL.absoluteString + "?version=1&format=msgpack")
            await packed.send(
                binary: Self.frame(["type": .string("Authenticate"), "token": .string(token)], binary: false))
            let authenticated = try Self.bytes(try await packed.nextMessage())
            // fixmap(1), fixstr "type", fixstr "Authenticated"
            #expect(authenticated == [0x81, 0xA4] + Array("type".utf8) + [0xAD] + Array("Authenticated".utf8))
            let ready = try Self.bytes(try await packed.nextMessage())
            #expect(Array(ready.prefix(6)) == [0x88, 0xA4] + Array("type".utf8), "the type first, as in JSON")
            let plain = try await server.readyFrame(for: server.defaultAccount.userID)
            guard case .object(var packedReady)? = MessagePackValue(bytes: ready)?.bonfireJSON,
                case .object(var jsonReady) = try JSONDecoder().decode(JSONValue.self, from: plain)
            else {
                Issue.record("Ready is not a map")
                return
            }
            // A timestamp is its milliseconds in MessagePack (iso8601-timestamp, for rmp_serde), its text in JSON.
            guard case .array(let packedMembers)? = packedReady.removeValue(forKey: "members"),
                case .array(let jsonMembers)? = jsonReady.removeValue(forKey: "members"),
                case .object(let packedMember)? = packedMembers.first,
                case .object(let jsonMember)? = jsonMembers.first,
                case .integer(let milliseconds)? = packedMember["joined_at"],
                case .string(let text)? = jsonMember["joined_at"], let dot = text.firstIndex(of: "."),
                let whole = try? Date.ISO8601FormatStyle().parse(text[..<dot] + "Z")
            else {
                Issue.record("no member with a joined_at in both")
                return
            }
            // The text's own digits: whole seconds are exact in a Date, the milliseconds are read as written.
            let fraction = Int64(text[text.index(after: dot)..<text.index(before: text.endIndex)]) ?? -1
            #expect(milliseconds == Int64(whole.timeIntervalSince1970) * 1000 + fraction)
            #expect(packedReady == jsonReady, "the rest is the same")
            // bin strings are read as strings too (rmp_serde takes a bin where a String belongs); text is skipped.
            await packed.send(#"{"type":"Ping","data":1}"#)
            await packed.send(binary: Self.frame(["type": .string("Ping"), "data": .int(2)], binary: true))
            let pong = try Self.bytes(try await packed.nextMessage(skipping: ["UserUpdate"]))
            #expect(
                pong == [0x82, 0xA4] + Array("type".utf8) + [0xA4] + Array("Pong".utf8) + [0xA4] + Array("data".utf8)
                    + [0x02])
            await packed.close()
        }
    }

    @Test(
        "gateway: every string is a bin, keys sorted; a str-keyed frame is refused (msgpack-erlang reads str as a charlist)"
    )
    func gatewayEncoding() async throws {
        try await withServer(configure: { $0.events = .gateway }) { server throws in
            let token = server.defaultAccount.token
            let url = server.eventsURL.absoluteString + "?version=1&format=msgpack"
            let refused = await TestSocket.connect(url)
            await refused.send(
                binary: Self.frame(["type": .string("Authenticate"), "token": .string(token)], binary: false))
            let error = try Self.bytes(try await refused.nextMessage())
            #expect(
                MessagePackValue(bytes: error)?.bonfireJSON?.wire.text
                    == #"{"data":{"detail":"Incoming payload does not match required format","type":"InvalidPayload"},"type":"Error"}"#
            )
            #expect(await GatewayTests.closeCode(refused) == 1007)

            let socket = await TestSocket.connect(url)
            await socket.send(
                binary: Self.frame(["type": .string("Authenticate"), "token": .string(token)], binary: true))
            let authenticated = try Self.bytes(try await socket.nextMessage())
            #expect(
                authenticated == [0x81, 0xC4, 0x04] + Array("type".utf8) + [0xC4, 0x0D] + Array("Authenticated".utf8))
            let ready = try Self.bytes(try await socket.nextMessage())
            #expect(Array(ready.prefix(3)) == [0x8A, 0xC4, 0x0F], "ten keys, the first channel_unreads, as a bin")
            #expect(MessagePackValue(bytes: ready) != nil)
            await socket.send(#"{"type":"Ping","data":1}"#)
            #expect(
                try await socket.nextJSON()?["type"] as? String == "Error", "a text frame is unpacked too, and fails")
            #expect(await GatewayTests.closeCode(socket) == 1007)
        }
    }

    @Test("the MessagePack reader refuses malformed, truncated, deep and oversized input without trapping")
    func readerBounds() {
        #expect(MessagePackValue(bytes: []) == nil)
        #expect(MessagePackValue(bytes: [0xC1]) == nil)
        #expect(MessagePackValue(bytes: [0xDD, 0xFF, 0xFF, 0xFF, 0xFF]) == nil, "a count beyond the bytes")
        #expect(MessagePackValue(bytes: [0xDB, 0xFF, 0xFF, 0xFF, 0xFF, 0x41]) == nil)
        #expect(MessagePackValue(bytes: [0x91, 0x01, 0x02]) == nil, "trailing bytes")
        #expect(MessagePackValue(bytes: Array(repeating: 0x91, count: 100) + [0x01]) == nil, "too deep")
        #expect(MessagePackValue(bytes: Array(repeating: 0x91, count: 10) + [0x01]) != nil)
        var random = SplitMix64(seed: 20_261_123)
        for _ in 0..<2_000 {
            let count = Int.random(in: 0..<64, using: &random)
            _ = MessagePackValue(bytes: (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) })
        }
        for value: Wire in [
            .int(-1), .int(-33), .int(-129), .int(-40_000), .int(Int64.min), .uint(UInt64.max), .double(1.5),
        ] {
            #expect(MessagePackValue(bytes: value.messagePack(binaryStrings: false)) != nil)
        }
        #expect(MessagePackValue(bytes: Wire.int(-33).messagePack(binaryStrings: false)) == .integer(-33))
        #expect(
            MessagePackValue(bytes: Wire.uint(UInt64.max).messagePack(binaryStrings: false)) == .unsigned(UInt64.max))
    }
}

extension TestSocket {
    /// The next message whose JSON `type` is not in `types`.
    func nextMessage(skipping types: Set<String>, timeout: Duration = .seconds(10)) async throws -> Message? {
        while let message = try await nextMessage(timeout: timeout) {
            let object = try? JSONSerialization.jsonObject(with: Data(message.text.utf8)) as? [String: Any]
            if let type = object?["type"] as? String, types.contains(type) { continue }
            return message
        }
        return nil
    }
}

/// A seeded generator (SplitMix64), so that the random inputs are the same on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
