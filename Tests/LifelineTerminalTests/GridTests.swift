import LifelineTerminal
import Testing

@Suite("Grid")
struct GridTests {
    @Test("text is written cluster by cluster, two-column clusters taking two cells")
    func wideClusters() {
        var grid = Grid(size: TerminalSize(columns: 10, rows: 1))
        let used = grid.write("a日👍🏽b", row: 0, column: 0)
        #expect(used == 6)
        #expect(grid.text(row: 0) == "a日👍🏽b")
        #expect(grid[0, 2].isContinuation)
        #expect(grid[0, 4].isContinuation)
    }

    @Test("a write stops at its limit and never splits a two-column cluster")
    func limit() {
        var grid = Grid(size: TerminalSize(columns: 10, rows: 1))
        #expect(grid.write("ab日本", row: 0, column: 0, limit: 3) == 2)
        #expect(grid.text(row: 0) == "ab")
    }

    @Test("covering half of a two-column cluster blanks its other half")
    func halfCovered() {
        var grid = Grid(size: TerminalSize(columns: 6, rows: 1))
        grid.write("日本", row: 0, column: 0)
        grid.write("x", row: 0, column: 1)
        #expect(grid.text(row: 0) == " x本")
        grid.write("y", row: 0, column: 2)
        #expect(grid.text(row: 0) == " xy")
    }

    @Test("escape sequences and bidi overrides in text are drawn as visible characters")
    func hostileText() {
        var grid = Grid(size: TerminalSize(columns: 20, rows: 1))
        grid.write("a\u{1B}[2Jb\u{202E}c", row: 0, column: 0)
        #expect(grid.text(row: 0) == "a\u{241B}[2Jb\u{FFFD}c")
    }

    @Test("a copy moves a row's columns from another grid; a two-column cluster cut by an edge becomes blanks")
    func copyColumns() {
        var source = Grid(size: TerminalSize(columns: 12, rows: 2))
        source.write("|ab日cd", row: 1, column: 0, style: TextStyle(attributes: .bold))
        var grid = Grid(size: source.size)
        grid.write("0123456789AB", row: 0, column: 0)
        // Clean edges: the cells as they are, styles and the cluster's two cells.
        grid.copy(row: 1, of: source, to: 0, columns: 1..<8)
        #expect(grid.text(row: 0) == "0ab日cd 89AB")
        #expect(grid[0, 3].grapheme == "日" && grid[0, 4].isContinuation)
        #expect(grid[0, 1].style.attributes == .bold && grid[0, 0].style == .plain)
        // Edges through "日" (columns 3 and 4): its halves are not copied.
        var cut = Grid(size: source.size)
        cut.write("0123456789AB", row: 0, column: 0)
        cut.copy(row: 1, of: source, to: 0, columns: 4..<7)
        #expect(cut.text(row: 0) == "0123 cd789AB")
        cut.copy(row: 1, of: source, to: 0, columns: 0..<4)
        #expect(cut.text(row: 0) == "|ab  cd789AB")
        // A cluster of the row that the copy cuts loses its other half.
        var wide = Grid(size: source.size)
        wide.write("日本語", row: 0, column: 0)
        wide.copy(row: 1, of: source, to: 0, columns: 1..<3)
        #expect(wide.text(row: 0) == " ab 語")
        #expect(!wide[0, 3].isContinuation)
    }
}
