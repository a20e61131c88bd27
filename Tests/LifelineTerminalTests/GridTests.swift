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
}
