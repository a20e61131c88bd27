import LifelineTerminal
import Testing

@Suite("Visible text")
struct VisibleTextTests {
    @Test("every C0 control becomes its control picture, DEL its own")
    func c0() {
        for value in UInt32(0)...0x1F {
            let scalar = Unicode.Scalar(value)!
            #expect(VisibleText.replacement(for: scalar) == Unicode.Scalar(0x2400 + value))
        }
        #expect(VisibleText.sanitized("a\u{1B}[31mb\u{7F}") == "a\u{241B}[31mb\u{2421}")
    }

    @Test("every C1 control and every bidi embedding, override, isolate and mark becomes U+FFFD")
    func c1AndBidi() {
        let replaced: [UInt32] =
            Array(0x80...0x9F) + [0x061C, 0x200E, 0x200F] + Array(0x202A...0x202E)
            + Array(0x2066...0x2069)
        for value in replaced {
            #expect(VisibleText.replacement(for: Unicode.Scalar(value)!) == "\u{FFFD}", "U+\(String(value, radix: 16))")
        }
        #expect(VisibleText.sanitized("\u{202E}evil\u{2066}x\u{9B}2J") == "\u{FFFD}evil\u{FFFD}x\u{FFFD}2J")
    }

    @Test("printable text, wide and emoji included, passes unchanged and is safe")
    func printable() {
        let text = "héllo 日本 👍🏽 👨‍👩‍👧 ❤️ ‎"
        #expect(VisibleText.sanitized("héllo 日本 👍🏽 👨‍👩‍👧") == "héllo 日本 👍🏽 👨‍👩‍👧")
        #expect(VisibleText.isSafe("héllo 日本 👍🏽 👨‍👩‍👧"))
        #expect(!VisibleText.isSafe(text), "it ends in a left-to-right mark")
        #expect(!VisibleText.isSafe("\u{1B}"))
    }

    @Test("random scalars, once sanitized, hold nothing a terminal would take as a control or a direction change")
    func fuzz() {
        var random = SeededGenerator(seed: 0x5AFE)
        for _ in 0..<2_000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...40, using: &random) {
                let value =
                    Bool.random(using: &random)
                    ? UInt32.random(in: 0...0xA0, using: &random) : UInt32.random(in: 0x2000...0x2070, using: &random)
                scalars.append(Unicode.Scalar(value)!)
            }
            let sanitized = VisibleText.sanitized(String(scalars))
            #expect(VisibleText.isSafe(sanitized))
            #expect(sanitized.unicodeScalars.count == scalars.count, "one visible stand-in per scalar")
            #expect(!sanitized.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        }
    }
}
