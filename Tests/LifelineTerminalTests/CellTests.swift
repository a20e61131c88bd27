import LifelineTerminal
import Testing

@Suite("Cells as plain memory")
struct CellTests {
    static let styles: [TextStyle] = [
        .plain, TextStyle(foreground: .ansi(9), attributes: [.bold, .underline]),
        TextStyle(foreground: .indexed(214), background: .rgb(1, 2, 3), attributes: .strikethrough),
        TextStyle(background: .ansi(0), attributes: [.dim, .italic, .reverse]),
    ]

    @Test(
        "a cell gives back its cluster, width and style: ASCII, CJK, an emoji with its selector inline, a flag, a skin tone and a family from the table"
    )
    func roundTrip() {
        let clusters: [(Character, UInt8)] = [
            ("a", 1), (" ", 1), ("é", 1), ("日", 2), ("❤️", 2), ("🇫🇷", 2), ("👍🏽", 2), ("👨‍👩‍👧‍👦", 2),
            ("e\u{301}\u{302}\u{303}\u{304}", 1),
        ]
        for (cluster, width) in clusters {
            for style in Self.styles {
                let cell = Cell(grapheme: cluster, width: width, style: style)
                #expect(cell.grapheme == cluster)
                #expect(Array(String(cell.grapheme).utf8) == Array(String(cluster).utf8))
                #expect(cell.width == width)
                #expect(cell.style == style)
                #expect(!cell.isContinuation)
            }
        }
    }

    @Test("a cluster made of a letter and thousands of marks keeps its first whole scalars within 64 bytes")
    func hugeClusterIsBounded() {
        let huge = Character("e" + String(repeating: "\u{301}", count: 5_000))
        let cell = Cell(grapheme: huge, width: 1)
        let kept = Array(String(cell.grapheme).utf8)
        #expect(kept.count <= Cell.longClusterBytes && kept.count > 7)
        #expect(String(cell.grapheme).unicodeScalars.first == "e")
        #expect(String(cell.grapheme).unicodeScalars.dropFirst().allSatisfy { $0 == "\u{301}" })
        #expect(Cell(grapheme: huge, width: 1) == cell)
    }

    @Test("two cells are equal exactly when their clusters, widths and styles are")
    func equality() {
        let family: Character = "👨‍👩‍👧‍👦"
        #expect(Cell(grapheme: family, width: 2) == Cell(grapheme: family, width: 2))
        #expect(Cell(grapheme: "🇫🇷", width: 2) != Cell(grapheme: "🇩🇪", width: 2))
        #expect(Cell(grapheme: "a", width: 1) != Cell(grapheme: "b", width: 1))
        #expect(Cell(grapheme: "a", width: 1) != Cell(grapheme: "a", width: 1, style: Self.styles[1]))
        #expect(Cell(grapheme: "日", width: 2) != Cell(grapheme: "日", width: 1))
        #expect(Cell(grapheme: " ", width: 1, style: Self.styles[2]) == .blank(Self.styles[2]))
        var changed = Cell(grapheme: "x", width: 1)
        changed.grapheme = "👍🏽"
        changed.width = 2
        changed.style = Self.styles[3]
        #expect(changed == Cell(grapheme: "👍🏽", width: 2, style: Self.styles[3]))
    }

    @Test("a grid's cells copied into another of its size are the same frame; another size copies nothing")
    func copyCells() {
        var source = Grid(size: TerminalSize(columns: 10, rows: 2))
        source.write("日本 👍🏽 ok", row: 0, column: 0, style: Self.styles[1])
        source.write("end", row: 1, column: 7)
        var target = Grid(size: source.size)
        target.write("zzz", row: 1, column: 3)
        target.copyCells(from: source)
        #expect(target == source)
        var other = Grid(size: TerminalSize(columns: 4, rows: 1))
        other.copyCells(from: source)
        #expect(other == Grid(size: TerminalSize(columns: 4, rows: 1)))
    }
}
