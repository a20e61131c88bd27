import Foundation
import Testing

@testable import LifelineStoat

/// The fast `Ready` decoders read strings and keys a word (eight bytes) at a time: ``JSONScanner`` steps to the
/// first byte of a word that may end or escape the string (or is not ASCII), ``MessagePackReader`` checks a
/// string or key for ASCII with whole words, one masked word for a short one. These tests put the byte that
/// matters at every position of strings and keys of every length up to three words, both where the frame has a
/// word left after it and in its last bytes, and check each outcome against the reference decoder.
@Suite("The Ready decoders' word-at-a-time scans")
struct ReadyDecoderWordScanTests {
    /// `count` ASCII letters with `special` at `position`.
    static func text(_ count: Int, _ special: [UInt8], at position: Int) -> [UInt8] {
        var bytes = Array(repeating: UInt8(ascii: "a"), count: count)
        bytes.replaceSubrange(position..<position + 1, with: special)
        return bytes
    }

    /// Checks a JSON frame: the public outcome is `JSONDecoder`'s, the fast path accepts nothing `JSONDecoder`
    /// refuses and gives its value when it accepts, and accepts when `fast` says it must.
    static func checkJSON(_ bytes: [UInt8], fast mustAccept: Bool, _ comment: Comment) {
        let data = Data(bytes)
        let foundation = FastReadyDecoderTests.foundationReady(data)
        let fast = FastReadyDecoderTests.fastReady(data)
        // Compared apart from `#expect`, which would print both values when they differ, and a broken scan
        // could have made a string that is not UTF-8.
        let sameOutcome = BonfireDecoder().decode(data) == BonfireDecoder.decodeWithFoundation(data)
        #expect(sameOutcome, comment)
        if let fast {
            let sameValue = fast == foundation
            #expect(sameValue, comment)
        }
        let fastRefused = fast == nil
        if foundation == nil { #expect(fastRefused, comment) }
        if mustAccept { #expect(!fastRefused && foundation != nil, comment) }
    }

    @Test("JSON: a quote, an escape, a control character or a byte beyond ASCII at any position of a string")
    func jsonStrings() {
        // What each special byte is, and whether both decoders take a string holding it.
        let specials: [(String, [UInt8], Bool)] = [
            ("an escaped quote", Array(#"\""#.utf8), true),
            ("an escaped backslash", Array(#"\\"#.utf8), true),
            ("a \\u escape", Array(#"\u00e9"#.utf8), true),
            ("two-byte UTF-8", Array("é".utf8), true),
            ("four-byte UTF-8", Array("😀".utf8), true),
            ("a raw control character", [0x01], false),
            ("invalid UTF-8", [0xFF], false),
            ("a lone continuation byte", [0x80], false),
        ]
        for count in 1...24 {
            for position in 0..<count {
                for (name, special, valid) in specials {
                    let value = Self.text(count, special, at: position)
                    // The string inside the frame (a word after it), and as the frame's last member.
                    let inside =
                        Array(#"{"type":"Ready","users":[{"_id":"U1","display_name":""#.utf8) + value
                        + Array(#"","username":"ana","discriminator":"0001"}]}"#.utf8)
                    let last =
                        Array(#"{"type":"Ready","users":[{"_id":"U1","username":""#.utf8) + value + Array(#""}]}"#.utf8)
                    Self.checkJSON(inside, fast: valid, "\(name) at \(position) of \(count) bytes, inside")
                    Self.checkJSON(last, fast: valid, "\(name) at \(position) of \(count) bytes, last")
                }
            }
            // A plain string of each length, ending at each offset from the end of a word.
            let plain = Array(repeating: UInt8(ascii: "b"), count: count)
            let frame = Array(#"{"type":"Ready","users":[{"_id":"U1","username":""#.utf8) + plain + Array(#""}]}"#.utf8)
            Self.checkJSON(frame, fast: true, "\(count) plain bytes")
            #expect(
                FastReadyDecoderTests.fastReady(Data(frame))?.users.first?.username
                    == String(decoding: plain, as: UTF8.self))
        }
    }

    @Test("JSON: keys with an escape, a byte beyond ASCII or invalid UTF-8 at any position are matched or refused")
    func jsonKeys() {
        let names = ["_id", "username", "discriminator", "display_name", "relationship"]
        for name in names {
            for position in 0..<name.utf8.count {
                // The key written with its byte at `position` as a \u escape: still the same key.
                var escaped = Array(name.utf8)
                let byte = escaped[position]
                escaped.replaceSubrange(
                    position..<position + 1, with: Array(String(format: "\\u%04X", byte).utf8))
                let frame =
                    Array(#"{"type":"Ready","users":[{""#.utf8) + escaped
                    + Array(#"":"v","_id":"U1","username":"ana","display_name":"d","relationship":"None"}]}"#.utf8)
                Self.checkJSON(frame, fast: true, "\(name) escaped at \(position)")
            }
        }
        for count in 1...20 {
            for position in 0..<count {
                for (special, valid) in [(Array("é".utf8), true), ([0xFF], false), ([0x1F], false)] {
                    let key = Self.text(count, special, at: position)
                    let inside =
                        Array(#"{"type":"Ready","users":[{""#.utf8) + key
                        + Array(#"":1,"_id":"U1","username":"ana","discriminator":"0001"}]}"#.utf8)
                    let last =
                        Array(#"{"type":"Ready","users":[{"_id":"U1","username":"ana",""#.utf8) + key
                        + Array(#"":1}]}"#.utf8)
                    Self.checkJSON(inside, fast: valid, "key byte \(special) at \(position) of \(count), inside")
                    Self.checkJSON(last, fast: valid, "key byte \(special) at \(position) of \(count), last")
                }
            }
        }
    }

    /// A `str` header and `bytes`.
    static func str(_ bytes: [UInt8]) -> [UInt8] {
        precondition(bytes.count < 32)
        return [0xA0 | UInt8(bytes.count)] + bytes
    }

    static func str(_ text: String) -> [UInt8] { str(Array(text.utf8)) }

    /// Checks a MessagePack frame: the public outcome is the transcoder's, and the direct reader takes it (with
    /// `username`, when given) or refuses it as invalid UTF-8.
    static func checkMessagePack(_ bytes: [UInt8], username: [UInt8]?, valid: Bool, _ comment: Comment) {
        let decoder = BonfireDecoder()
        let sameOutcome =
            decoder.decode(messagePack: Data(bytes)) == decoder.decodeByTranscoding(messagePack: Data(bytes))
        #expect(sameOutcome, comment)
        switch MessagePackReadyReaderTests.direct(bytes) {
        case .success(let ready):
            #expect(valid, comment)
            if let username { #expect(ready.users.first.map { Array($0.username.utf8) } == username, comment) }
        case .failure(let error):
            #expect(!valid, comment)
            #expect(error.code == .invalidString, comment)
        }
    }

    @Test("MessagePack: a byte beyond ASCII at any position of a string or a key, mid-frame and in its last bytes")
    func messagePack() {
        let specials: [([UInt8], Bool)] = [(Array("é".utf8), true), ([0xFF], false), ([0x80], false), ([0xC3], false)]
        for count in 0...24 {
            let positions = count == 0 ? [nil] : (0..<count).map { Optional($0) }
            for position in positions {
                for (special, valid) in position == nil ? [([UInt8](), true)] : specials {
                    let value = position.map { Self.text(count, special, at: $0) } ?? []
                    let comment: Comment = "byte \(special) at \(String(describing: position)) of \(count)"
                    // A username with words of the frame after it, and as the frame's last bytes.
                    let inside =
                        [0x82] + Self.str("type") + Self.str("Ready") + Self.str("users") + [0x91, 0x83]
                        + Self.str("username") + Self.str(value) + Self.str("_id") + Self.str("U1")
                        + Self.str("discriminator") + Self.str("0001")
                    let last =
                        [0x82] + Self.str("type") + Self.str("Ready") + Self.str("users") + [0x91, 0x82]
                        + Self.str("_id") + Self.str("U1") + Self.str("username") + Self.str(value)
                    Self.checkMessagePack(inside, username: value, valid: valid, comment)
                    Self.checkMessagePack(last, username: value, valid: valid, comment)
                    guard count > 0 else { continue }
                    // The same bytes as an unknown key, mid-frame and last.
                    let keyInside =
                        [0x82] + Self.str("type") + Self.str("Ready") + Self.str("users") + [0x91, 0x83]
                        + Self.str(value) + [0x01] + Self.str("_id") + Self.str("U1") + Self.str("username")
                        + Self.str("ana")
                    let keyLast =
                        [0x82] + Self.str("type") + Self.str("Ready") + Self.str("users") + [0x91, 0x83]
                        + Self.str("_id") + Self.str("U1") + Self.str("username") + Self.str("ana") + Self.str(value)
                        + [0x01]
                    Self.checkMessagePack(keyInside, username: nil, valid: valid, comment)
                    Self.checkMessagePack(keyLast, username: nil, valid: valid, comment)
                }
            }
        }
    }
}
