import LifelineTerminal
import Testing

@Suite("Display width")
struct DisplayWidthTests {
    @Test(
        "a cluster takes the columns of its base",
        arguments: [
            ("a", 1), ("日", 2), ("한", 2), ("ｱ", 1), ("Ａ", 2), ("👍", 2), ("👍🏽", 2), ("🫨", 2), ("🇫🇷", 2),
            ("👨‍👩‍👧", 2), ("🏳️‍🌈", 2), ("❤️", 2), ("❤", 1), ("☺︎", 1), ("⌚︎", 1), ("1️⃣", 2), ("e\u{301}", 1),
            ("日\u{301}", 2), ("\u{301}", 0), ("\u{200B}", 0), ("\u{200D}", 0), ("\u{AD}", 0), ("\u{0600}1", 1),
            ("\u{1B}", 0), ("\u{7F}", 0), ("\u{85}", 0), ("\r\n", 0), ("\u{1100}\u{1161}\u{11A8}", 2), ("ä", 1),
            ("🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", 2), ("\u{3099}", 0), ("a\u{FE0F}", 1),
        ] as [(String, Int)]
    )
    func cluster(text: String, columns: Int) throws {
        let character = try #require(text.count == 1 ? text.first : nil, "\(text.unicodeScalars) is one cluster")
        #expect(DisplayWidth.columns(of: character) == columns, "\(text.unicodeScalars.map { $0.value })")
    }

    @Test("a text takes the sum of its clusters' columns")
    func text() {
        #expect(DisplayWidth.columns(of: "a日👍🏽b\u{301}") == 6)
        #expect(DisplayWidth.columns(of: "") == 0)
    }

    @Test(
        "the clusters terminals disagree on are uncertain, the rest are not",
        arguments: [
            ("👍🏽", true), ("👨‍👩‍👧", true), ("❤️", true), ("☺︎", true), ("🇫🇷", true), ("1️⃣", true), ("🫨", true),
            ("🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", true), ("कि", true),
            ("a", false), ("日", false), ("👍", false), ("e\u{301}", false), ("a\u{FE0F}", false), ("─", false),
        ] as [(String, Bool)]
    )
    func uncertain(text: String, expected: Bool) throws {
        let character = try #require(text.count == 1 ? text.first : nil)
        #expect(DisplayWidth.isUncertain(character) == expected)
    }

    @Test("the table agrees with the runtime's Unicode properties for every scalar of its version")
    func tableAgreesWithProperties() async throws {
        // The Hangul medial vowels and final consonants are letters that take no column (they join the syllable
        // before them); U+1171E was a nonspacing mark in 15.0, and the runtime's newer data calls it spacing.
        let exceptions: [ClosedRange<UInt32>] = [0x1160...0x11FF, 0xD7B0...0xD7FF, 0x1171E...0x1171E]
        var checked = 0
        for value in UInt32(0xA0)...0x3FFFF where !exceptions.contains(where: { $0.contains(value) }) {
            // 260 000 scalars: the cooperative pool is given back now and then (HowLifelineIsBuilt.md: "The tests").
            if value % 2_048 == 0 { await Task.yield() }
            guard let scalar = Unicode.Scalar(value), let age = scalar.properties.age else { continue }
            guard age.major < 15 || (age.major == 15 && age.minor == 0) else { continue }
            let columns = DisplayWidth.columns(of: Character(scalar))
            let properties = scalar.properties
            switch properties.generalCategory {
            case .nonspacingMark, .enclosingMark, .format:
                #expect(columns == 0, "U+\(String(value, radix: 16)) is a mark or format character")
            default:
                if properties.isEmojiPresentation {
                    #expect(columns == 2, "U+\(String(value, radix: 16)) has the emoji presentation")
                } else {
                    #expect(columns >= 1, "U+\(String(value, radix: 16)) is visible")
                }
            }
            checked += 1
        }
        #expect(checked > 140_000)
        #expect(DisplayWidth.unicodeVersion == "15.0.0")
    }

    @Test("random clusters of random scalars never take a negative width or more than two columns")
    func fuzz() async {
        var random = SeededGenerator(seed: 0x5EED_1D7)
        let pools: [ClosedRange<UInt32>] = [
            0x20...0x7E, 0x80...0x2FF, 0x300...0x36F, 0x1100...0x11FF, 0x200B...0x206F, 0x3000...0x30FF,
            0xAC00...0xAC20, 0xFE00...0xFE0F, 0x1F1E6...0x1F1FF, 0x1F300...0x1FAFF, 0xE0020...0xE007F,
            0x0900...0x097F, 0x0000...0x001F,
        ]
        for run in 0..<20_000 {
            if run % 128 == 0 { await Task.yield() }
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                let pool = pools[Int.random(in: 0..<pools.count, using: &random)]
                if let scalar = Unicode.Scalar(UInt32.random(in: pool, using: &random)) { scalars.append(scalar) }
            }
            let text = String(scalars)
            var sum = 0
            for character in text {
                let columns = DisplayWidth.columns(of: character)
                #expect((0...2).contains(columns), "\(character.unicodeScalars.map { $0.value })")
                sum += columns
                _ = DisplayWidth.isUncertain(character)
            }
            #expect(DisplayWidth.columns(of: text) == sum)
            var grid = Grid(size: TerminalSize(columns: 7, rows: 1))
            let used = grid.write(text, row: 0, column: 1)
            #expect((0...6).contains(used))
        }
    }
}

/// SplitMix64: a seeded generator, so a failing fuzz case is the same on every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
