import LifelineTerminal
import Testing

@Suite("Frame changes handed to the renderer")
struct FrameChangesTests {
    static let size = TerminalSize(columns: 60, rows: 20)
    /// The chat-like frame's parts: a list on the left, a timeline band on the right.
    static let listColumns = 0..<20
    static let timelineColumns = 22..<60
    static let band = 1..<18

    /// A frame with a list of chats (every third in bold) and a timeline whose newest message is `newest`.
    static func frame(newest: Int) -> Grid {
        var grid = Grid(size: size)
        grid.write("status", row: 0, column: 0, style: TextStyle(background: .ansi(2)))
        for row in band {
            let style = row % 3 == 0 ? TextStyle(attributes: .bold) : .plain
            grid.write("# chat \(row)", row: row, column: 0, style: style, limit: listColumns.count)
            grid.write("│", row: row, column: 21)
        }
        for (offset, row) in band.reversed().enumerated() {
            let message = newest - offset
            grid.write("12:\(message % 60) u\(message % 4)", row: row, column: 22, style: TextStyle(attributes: .bold))
            grid.write(" message \(message) 日本 👍🏽", row: row, column: 32)
        }
        grid.write("> composer", row: 19, column: 22)
        return grid
    }

    @Test("a frame rendered with its builder's changes leaves the terminal showing it, the moved band scrolled")
    func changesRendered() throws {
        var random = SeededGenerator(seed: 0xC4A9)
        var emulator = TestTerminalEmulator(size: Self.size)
        var renderer = Renderer()
        var shown = Self.frame(newest: 100)
        var bytes: [UInt8] = []
        renderer.render(shown, into: &bytes)
        emulator.feed(bytes)
        var newest = 100
        var scrolls = 0
        for step in 0..<60 {
            // The timeline moves by a message's rows (sometimes back: a message deleted), the rest is edited.
            let shift = [1, 1, 2, 3, -1][Int.random(in: 0..<5, using: &random)]
            newest += shift
            var next = shown
            let band = Self.band
            for row in band where band.contains(row + shift) {
                next.copy(row: row + shift, of: shown, to: row, columns: Self.timelineColumns)
            }
            var drawn = band.filter { !band.contains($0 + shift) }
            let fresh = Self.frame(newest: newest)
            for row in drawn { next.copy(row: row, of: fresh, to: row, columns: Self.timelineColumns) }
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                let row = Int.random(in: 0..<Self.size.rows, using: &random)
                drawn.append(row)
                next.write("edit \(step)", row: row, column: Int.random(in: 0..<50, using: &random))
            }
            let changes = FrameChanges(
                from: shown, rows: drawn,
                move: FrameChanges.Move(rows: band, columns: Self.timelineColumns, shift: shift))
            try #require(changes.describe(next), "step \(step): the test's changes are true")
            bytes = []
            renderer.render(next, changes: changes, into: &bytes)
            emulator.feed(bytes)
            #expect(emulator.mismatches(next).isEmpty, "step \(step), shift \(shift)")
            #expect(emulator.unsupported.isEmpty)
            if String(decoding: bytes, as: UTF8.self).contains("\u{1B}[r") { scrolls += 1 }
            shown = next
        }
        #expect(scrolls >= 20, "the moved band is scrolled by the terminal (\(scrolls) of 60 frames)")
    }

    @Test("the renderer compares only the rows the changes list: a row they leave out is not looked at")
    func onlyListedRows() {
        let shown = Self.frame(newest: 100)
        var renderer = Renderer(showing: shown)
        var next = shown
        next.write("unlisted", row: 5, column: 40)
        next.write("listed", row: 7, column: 40)
        let changes = FrameChanges(from: shown, rows: [7])
        #expect(!changes.describe(next), "they leave out a row that changed")
        var bytes: [UInt8] = []
        renderer.render(next, changes: changes, into: &bytes)
        let written = String(decoding: bytes, as: UTF8.self)
        #expect(written.contains("listed") && !written.contains("unlisted"), "\(written)")
    }

    @Test("changes from a frame the renderer does not show are ignored: every row is compared")
    func changesFromAnotherFrame() {
        let shown = Self.frame(newest: 100)
        var renderer = Renderer(showing: shown)
        var emulator = TestTerminalEmulator(size: Self.size)
        var bytes: [UInt8] = []
        var painter = Renderer()
        painter.repaint(shown, into: &bytes)
        emulator.feed(bytes)
        // A frame equal to the one shown but built apart (another storage), and changes from it that list nothing.
        let apart = Self.frame(newest: 100)
        #expect(apart == shown)
        var next = shown
        next.write("changed", row: 5, column: 30)
        bytes = []
        renderer.render(next, changes: FrameChanges(from: apart, rows: []), into: &bytes)
        emulator.feed(bytes)
        #expect(emulator.shows(next))
        #expect(String(decoding: bytes, as: UTF8.self).contains("changed"))
    }

    @Test("changes that list rows in which nothing differs write nothing")
    func nothingDiffers() {
        let shown = Self.frame(newest: 100)
        var renderer = Renderer(showing: shown)
        var next = shown
        // Written again as it was: a grid of its own with the same cells.
        next.write("│", row: 3, column: 21)
        var bytes: [UInt8] = []
        renderer.render(next, changes: FrameChanges(from: shown, rows: [2, 3, 4]), into: &bytes)
        #expect(bytes.isEmpty, "\(String(decoding: bytes, as: UTF8.self))")
    }

    @Test("a move the changes claim is checked against the frame: a row whose cells did not come along is caught")
    func describeCatchesAFalseMove() {
        let shown = Self.frame(newest: 100)
        let moved = Self.frame(newest: 101)
        let move = FrameChanges.Move(rows: Self.band, columns: Self.timelineColumns, shift: 1)
        #expect(FrameChanges(from: shown, rows: [Self.band.upperBound - 1], move: move).describe(moved))
        #expect(!FrameChanges(from: shown, rows: [], move: move).describe(moved), "the row brought in is left out")
        #expect(!FrameChanges(from: shown, rows: [Self.band.upperBound - 1]).describe(moved), "no move")
        let wrongShift = FrameChanges.Move(rows: Self.band, columns: Self.timelineColumns, shift: 2)
        #expect(!FrameChanges(from: shown, rows: Array(15..<18), move: wrongShift).describe(moved))
    }

    @Test("a claimed move whose plain diff is shorter is written plainly: the few cells that differ, no scroll")
    func plainDiffWhenShorter() {
        // A band of equal rows moved up a row: the row brought in differs from the one it replaces in one cell,
        // which a plain diff writes alone; the scroll would write the whole row again.
        var shown = Grid(size: Self.size)
        for row in Self.band { shown.write("same row of the timeline", row: row, column: 22) }
        var next = shown
        for row in Self.band.dropLast() { next.copy(row: row + 1, of: shown, to: row, columns: Self.timelineColumns) }
        let last = Self.band.upperBound - 1
        next.fill(row: last, columns: Self.timelineColumns)
        next.write("same row of the timelinE", row: last, column: 22)
        let move = FrameChanges.Move(rows: Self.band, columns: Self.timelineColumns, shift: 1)
        let changes = FrameChanges(from: shown, rows: [last], move: move)
        #expect(changes.describe(next))
        var renderer = Renderer(showing: shown)
        var bytes: [UInt8] = []
        renderer.render(next, changes: changes, into: &bytes)
        let written = String(decoding: bytes, as: UTF8.self)
        #expect(!written.contains("\u{1B}[r"), "no scroll: \(written.debugDescription)")
        #expect(bytes.count < 40, "\(bytes.count) bytes: \(written.debugDescription)")
        var emulator = TestTerminalEmulator(size: Self.size)
        var painter = Renderer()
        var repaint: [UInt8] = []
        painter.repaint(shown, into: &repaint)
        emulator.feed(repaint + bytes)
        #expect(emulator.shows(next))
    }

    @Test("the cursor takes the shortest move: down a row, a position, a reset written as CSI m")
    func shortestMoves() {
        let blank = Grid(size: TerminalSize(columns: 40, rows: 10))
        var next = blank
        next.write("X", row: 2, column: 30, style: TextStyle(attributes: .bold))
        next.write("Y", row: 3, column: 31)
        next.write("Z", row: 5, column: 2)
        var renderer = Renderer(showing: blank)
        var bytes: [UInt8] = []
        renderer.render(next, into: &bytes)
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "\u{1B}[?2026h\u{1B}[3;31H\u{1B}[0;1mX\u{1B}[B\u{1B}[mY\u{1B}[6;3HZ\u{1B}[?2026l")
        var emulator = TestTerminalEmulator(size: blank.size)
        emulator.feed(bytes)
        #expect(emulator.shows(next))
    }
}
