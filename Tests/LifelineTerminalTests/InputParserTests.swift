import LifelineTerminal
import Testing

@Suite("Input parser")
struct InputParserTests {
    static let sequences: [(String, [InputEvent])] = [
        ("a", [.key(.character("a"))]),
        ("Z~", [.key(.character("Z")), .key(.character("~"))]),
        ("é日👍", [.key(.character("é")), .key(.character("日")), .key(.character("👍"))]),
        ("\u{03}", [.key(.control("c"))]),
        ("\u{11}", [.key(.control("q"))]),
        ("\u{0E}", [.key(.control("n"))]),
        ("\u{0A}", [.key(.control("j"))]),
        ("\u{00}", [.key(.control(" "))]),
        ("\u{1F}", [.key(.control("_"))]),
        ("\r", [.key(KeyPress(.enter))]),
        ("\t", [.key(KeyPress(.tab))]),
        ("\u{7F}", [.key(KeyPress(.backspace))]),
        ("\u{08}", [.key(KeyPress(.backspace, modifiers: .control))]),
        ("\u{1B}b", [.key(.alt("b"))]),
        ("\u{1B}\u{7F}", [.key(KeyPress(.backspace, modifiers: .alt))]),
        ("\u{1B}\u{03}", [.key(KeyPress(.character("c"), modifiers: [.alt, .control]))]),
        ("\u{1B}日", [.key(.alt("日"))]),
        ("\u{1B}[A", [.key(KeyPress(.up))]),
        ("\u{1B}[B", [.key(KeyPress(.down))]),
        ("\u{1B}[C", [.key(KeyPress(.right))]),
        ("\u{1B}[D", [.key(KeyPress(.left))]),
        ("\u{1B}OA", [.key(KeyPress(.up))]),
        ("\u{1B}[1;5C", [.key(KeyPress(.right, modifiers: .control))]),
        ("\u{1B}[1;3D", [.key(KeyPress(.left, modifiers: .alt))]),
        ("\u{1B}[1;2A", [.key(KeyPress(.up, modifiers: .shift))]),
        ("\u{1B}[H", [.key(KeyPress(.home))]),
        ("\u{1B}[F", [.key(KeyPress(.end))]),
        ("\u{1B}OH", [.key(KeyPress(.home))]),
        ("\u{1B}[1~", [.key(KeyPress(.home))]),
        ("\u{1B}[4~", [.key(KeyPress(.end))]),
        ("\u{1B}[5~", [.key(KeyPress(.pageUp))]),
        ("\u{1B}[6~", [.key(KeyPress(.pageDown))]),
        ("\u{1B}[5;5~", [.key(KeyPress(.pageUp, modifiers: .control))]),
        ("\u{1B}[2~", [.key(KeyPress(.insert))]),
        ("\u{1B}[3~", [.key(KeyPress(.delete))]),
        ("\u{1B}OP", [.key(KeyPress(.function(1)))]),
        ("\u{1B}OQ", [.key(KeyPress(.function(2)))]),
        ("\u{1B}OR", [.key(KeyPress(.function(3)))]),
        ("\u{1B}OS", [.key(KeyPress(.function(4)))]),
        ("\u{1B}[1;2P", [.key(KeyPress(.function(1), modifiers: .shift))]),
        ("\u{1B}[15~", [.key(KeyPress(.function(5)))]),
        ("\u{1B}[17~", [.key(KeyPress(.function(6)))]),
        ("\u{1B}[18~", [.key(KeyPress(.function(7)))]),
        ("\u{1B}[19~", [.key(KeyPress(.function(8)))]),
        ("\u{1B}[20~", [.key(KeyPress(.function(9)))]),
        ("\u{1B}[21~", [.key(KeyPress(.function(10)))]),
        ("\u{1B}[23~", [.key(KeyPress(.function(11)))]),
        ("\u{1B}[24~", [.key(KeyPress(.function(12)))]),
        ("\u{1B}[Z", [.key(KeyPress(.tab, modifiers: .shift))]),
        ("\u{1B}[99;5u", [.key(.init(.character("c"), modifiers: .control))]),
        ("\u{1B}[13;2u", [.key(.init(.enter, modifiers: .shift))]),
        ("\u{1B}[200~hello\r\nworld\u{1B}[201~", [.paste("hello\nworld")]),
        ("\u{1B}[200~a\u{1B}[Ab\u{1B}[201~x", [.paste("a\u{1B}[Ab"), .key(.character("x"))]),
        ("\u{1B}[<0;1;1M", [.mouse(MouseEvent(.press(.left), row: 0, column: 0))]),
        ("\u{1B}[<0;10;5m", [.mouse(MouseEvent(.release(.left), row: 4, column: 9))]),
        ("\u{1B}[<2;3;4M", [.mouse(MouseEvent(.press(.right), row: 3, column: 2))]),
        ("\u{1B}[<1;3;4M", [.mouse(MouseEvent(.press(.middle), row: 3, column: 2))]),
        ("\u{1B}[<64;200;60M", [.mouse(MouseEvent(.wheelUp, row: 59, column: 199))]),
        ("\u{1B}[<65;7;8M", [.mouse(MouseEvent(.wheelDown, row: 7, column: 6))]),
        ("\u{1B}[<32;7;8M", [.mouse(MouseEvent(.drag(.left), row: 7, column: 6))]),
        ("\u{1B}[<16;7;8M", [.mouse(MouseEvent(.press(.left), row: 7, column: 6, modifiers: .control))]),
        ("\u{1B}[M !!", [.mouse(MouseEvent(.press(.left), row: 0, column: 0))]),
        ("\u{1B}[?2026;2$y", []),
        ("\u{1B}[I\u{1B}[O", []),
        ("\u{1B}[99999999999999999999999~q", [.key(.character("q"))]),
        ("\u{1B}[<0;0;0Mq", [.key(.character("q"))]),
    ]

    @Test("each sequence is the events it stands for", arguments: sequences)
    func sequence(bytes: String, events: [InputEvent]) {
        var parser = InputParser()
        #expect(parser.parse(Array(bytes.utf8)) == events)
        #expect(!parser.isAwaitingMore)
    }

    @Test("a raw byte that is not UTF-8 is U+FFFD, a truncated character too once the timeout expires")
    func invalidUTF8() {
        var parser = InputParser()
        #expect(parser.parse([0xC3, 0x28]) == [.key(.character("\u{FFFD}")), .key(.character("("))])
        #expect(parser.parse([0xE6, 0x97]).isEmpty)
        #expect(parser.isAwaitingMore)
        #expect(parser.timeoutExpired() == [.key(.character("\u{FFFD}")), .key(.character("\u{FFFD}"))])
        #expect(parser.parse([0xED, 0xA0, 0x80]).count == 3, "a surrogate's encoding is three invalid bytes")
        #expect(parser.parse([0xFF, 0x71]) == [.key(.character("\u{FFFD}")), .key(.character("q"))])
        #expect(parser.parse([0xC2, 0x85, 0x71]) == [.key(.character("q"))], "a C1 control (NEL) is dropped")
    }

    @Test("every sequence split at every byte between two reads gives the same events", arguments: sequences)
    func splitAcrossReads(bytes: String, events: [InputEvent]) {
        let bytes = Array(bytes.utf8)
        for cut in 1..<max(1, bytes.count) {
            var parser = InputParser()
            let first = parser.parse(bytes[..<cut])
            let second = parser.parse(bytes[cut...])
            #expect(first + second == events, "cut at \(cut)")
        }
    }

    @Test("a lone ESC waits for the timeout, then is the Escape key")
    func loneEscape() {
        var parser = InputParser()
        #expect(parser.parse([0x1B]) == [])
        #expect(parser.isAwaitingMore)
        #expect(parser.timeoutExpired() == [.key(KeyPress(.escape))])
        #expect(!parser.isAwaitingMore)
        #expect(parser.parse(Array("x".utf8)) == [.key(.character("x"))])
    }

    @Test("an ESC followed in the next read by a key before the timeout is Alt and the key")
    func escapeThenKey() {
        var parser = InputParser()
        #expect(parser.parse([0x1B]) == [])
        #expect(parser.parse(Array("x".utf8)) == [.key(.alt("x"))])
    }

    @Test("an unfinished sequence at the timeout is Alt and its first key, then its other bytes as typed")
    func unfinishedSequenceAtTimeout() {
        var parser = InputParser()
        #expect(parser.parse(Array("\u{1B}[1;".utf8)) == [])
        #expect(parser.timeoutExpired() == [.key(.alt("[")), .key(.character("1")), .key(.character(";"))])
    }

    @Test("two escapes are the Escape key then whatever the second starts")
    func doubleEscape() {
        var parser = InputParser()
        #expect(parser.parse(Array("\u{1B}\u{1B}[A".utf8)) == [.key(KeyPress(.escape)), .key(KeyPress(.up))])
    }

    @Test("a paste split in many reads, its end marker too, is one event; the timeout does not cut it")
    func pasteAcrossReads() {
        var parser = InputParser()
        #expect(parser.parse(Array("\u{1B}[200~line one\r".utf8)) == [])
        #expect(!parser.isAwaitingMore)
        #expect(parser.timeoutExpired() == [])
        #expect(parser.parse(Array("line two \u{1B}".utf8)) == [])
        #expect(parser.parse(Array("[20".utf8)) == [])
        #expect(parser.parse(Array("1~".utf8)) == [.paste("line one\nline two ")])
    }

    @Test("a sequence longer than the limit is dropped and parsing goes on")
    func overlongSequence() {
        var parser = InputParser()
        let bytes = Array("\u{1B}[".utf8) + Array(repeating: UInt8(ascii: "1"), count: 500) + Array("~z".utf8)
        let events = parser.parse(bytes)
        #expect(events.last == .key(.character("z")))
        #expect(!events.contains(.key(KeyPress(.home))))
    }

    @Test("random bytes in random reads never trap, always leave the parser able to read a key")
    func fuzz() {
        var random = SeededGenerator(seed: 0xF022)
        let alphabet: [UInt8] =
            Array("\u{1B}[];<>?0123456789~MmOPAZu$y:".utf8) + [0x00, 0x0D, 0x7F, 0xC3, 0xE6, 0xF0, 0x9F]
        var total = 0
        for _ in 0..<3_000 {
            var parser = InputParser()
            let length = Int.random(in: 0...200, using: &random)
            let bytes: [UInt8] = (0..<length).map { _ in
                Bool.random(using: &random)
                    ? alphabet[Int.random(in: 0..<alphabet.count, using: &random)]
                    : UInt8.random(in: 0...255, using: &random)
            }
            var index = 0
            while index < bytes.count {
                let end = min(bytes.count, index + Int.random(in: 1...16, using: &random))
                total += parser.parse(bytes[index..<end]).count
                if Bool.random(using: &random), parser.isAwaitingMore { total += parser.timeoutExpired().count }
                index = end
            }
            total += parser.timeoutExpired().count
            // Out of any paste it may be in, then back to the ground state: a key reads as the key.
            _ = parser.parse(Array("\u{1B}[201~".utf8))
            _ = parser.timeoutExpired()
            #expect(parser.parse([UInt8(ascii: "k")]) == [.key(.character("k"))], "after \(bytes)")
        }
        #expect(total > 0)
    }
}
