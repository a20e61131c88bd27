import LifelineTerminal
import Testing

@Suite("Renderer")
struct RendererTests {
    static let words = ["hello", "日本語", "👍🏽", "🫨", "e\u{301}", "❤️", "👨‍👩‍👧", "🇫🇷", "a", "─┬─", "x y", "ｶﾅ", "  "]
    static let styles: [TextStyle] = [
        .plain, TextStyle(foreground: .ansi(1)), TextStyle(foreground: .ansi(12), attributes: .bold),
        TextStyle(background: .indexed(236)), TextStyle(foreground: .rgb(10, 200, 30), attributes: [.italic, .dim]),
        TextStyle(attributes: .reverse), TextStyle(attributes: [.underline, .strikethrough]),
    ]

    static func randomEdit(_ grid: inout Grid, using random: inout SeededGenerator) {
        let size = grid.size
        let row = Int.random(in: 0..<size.rows, using: &random)
        let column = Int.random(in: 0..<size.columns, using: &random)
        let style = styles[Int.random(in: 0..<styles.count, using: &random)]
        if Int.random(in: 0..<5, using: &random) == 0 {
            grid.fill(row: row, columns: column..<(column + Int.random(in: 1...8, using: &random)), style: style)
        } else {
            let text = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                words[Int.random(in: 0..<words.count, using: &random)]
            }.joined()
            grid.write(text, row: row, column: column, style: style)
        }
    }

    @Test("a series of random frames, each diffed against the last, leaves the terminal showing each frame")
    func randomFrames() {
        var random = SeededGenerator(seed: 0xD1FF)
        for _ in 0..<40 {
            let size = TerminalSize(
                columns: Int.random(in: 1...30, using: &random), rows: Int.random(in: 1...8, using: &random))
            var emulator = TestTerminalEmulator(size: size)
            var renderer = Renderer()
            var grid = Grid(size: size)
            for frame in 0..<25 {
                for _ in 0..<Int.random(in: 0...6, using: &random) { Self.randomEdit(&grid, using: &random) }
                var bytes: [UInt8] = []
                let cursor = Bool.random(using: &random) ? Cursor.hidden : .at(row: 0, column: size.columns - 1)
                renderer.render(grid, cursor: cursor, into: &bytes)
                emulator.feed(bytes)
                #expect(emulator.mismatches(grid).isEmpty, "frame \(frame) of \(size): \(grid)")
                #expect(emulator.unsupported.isEmpty)
                #expect(emulator.cursorVisible == cursor.isVisible)
                #expect(!emulator.synchronized, "each frame ends its synchronized output")
                if cursor.isVisible { #expect(emulator.row == 0 && emulator.column == size.columns - 1) }
            }
        }
    }

    @Test("a one-cell change writes a few bytes: synchronized output, one move, the cell")
    func oneCell() {
        var grid = Grid(size: TerminalSize(columns: 200, rows: 60))
        for row in 0..<60 { grid.write(String(repeating: "message text ", count: 15), row: row, column: 0) }
        var renderer = Renderer()
        var full: [UInt8] = []
        renderer.render(grid, into: &full)
        grid.write("X", row: 30, column: 100)
        var bytes: [UInt8] = []
        renderer.render(grid, into: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "\u{1B}[?2026h\u{1B}[31;101HX\u{1B}[?2026l")
        #expect(bytes.count <= 30)
        #expect(full.count > 12_000)
    }

    /// A chat-like frame: a list of chats on the left, a timeline of `messages` bottom-anchored on the right.
    static func chatFrame(size: TerminalSize, messages: Range<Int>) -> Grid {
        var grid = Grid(size: size)
        for row in 0..<size.rows { grid.write("# channel \(row % 7)", row: row, column: 0, limit: 20) }
        for row in 0..<size.rows { grid.write("│", row: row, column: 22) }
        let shown = messages.suffix(size.rows - 1)
        for (row, message) in shown.enumerated() {
            grid.write(
                "12:\(message % 60) user\(message % 5)", row: row, column: 24, style: TextStyle(attributes: .bold))
            grid.write("message number \(message) says something 日本 👍🏽", row: row, column: 42)
        }
        grid.write("> composer", row: size.rows - 1, column: 24)
        return grid
    }

    @Test("a timeline that moved by a row is scrolled by the terminal: fewer bytes, the same screen")
    func scrolledTimeline() {
        let size = TerminalSize(columns: 120, rows: 30)
        var renderer = Renderer()
        var emulator = TestTerminalEmulator(size: size)
        var bytes: [UInt8] = []
        renderer.render(Self.chatFrame(size: size, messages: 0..<100), into: &bytes)
        let fullRepaint = bytes.count
        emulator.feed(bytes)
        for last in [101, 103, 102, 103] {
            let next = Self.chatFrame(size: size, messages: 0..<last)
            bytes = []
            renderer.render(next, into: &bytes)
            emulator.feed(bytes)
            #expect(emulator.mismatches(next).isEmpty, "\(last)")
            #expect(emulator.unsupported.isEmpty)
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(text.contains("S\u{1B}[r") || text.contains("T\u{1B}[r"), "scrolled")
            #expect(bytes.count * 4 < fullRepaint, "\(bytes.count) bytes of a \(fullRepaint)-byte repaint")
        }
    }

    @Test("on a 200x60 chat-like screen a new message writes at most a tenth of a full repaint's bytes")
    func chatFrameBytes() {
        let size = TerminalSize(columns: 200, rows: 60)
        var renderer = Renderer()
        var full: [UInt8] = []
        renderer.render(Self.chatFrame(size: size, messages: 0..<1000), into: &full)
        var diff: [UInt8] = []
        let next = Self.chatFrame(size: size, messages: 0..<1001)
        renderer.render(next, into: &diff)
        #expect(diff.count * 10 <= full.count, "\(diff.count) of \(full.count) bytes")
        var emulator = TestTerminalEmulator(size: size)
        emulator.feed(full + diff)
        #expect(emulator.shows(next))
    }

    @Test("a frame that changes nothing writes nothing")
    func unchanged() {
        var grid = Grid(size: TerminalSize(columns: 10, rows: 2))
        grid.write("same", row: 0, column: 0)
        var renderer = Renderer()
        var bytes: [UInt8] = []
        renderer.render(grid, cursor: .at(row: 1, column: 2), into: &bytes)
        let first = bytes.count
        renderer.render(grid, cursor: .at(row: 1, column: 2), into: &bytes)
        #expect(first > 0 && bytes.count == first)
    }

    @Test("the style is set once for a run of cells in it, and again only where it changes")
    func styleRuns() {
        var grid = Grid(size: TerminalSize(columns: 20, rows: 1))
        grid.write("red red", row: 0, column: 0, style: TextStyle(foreground: .ansi(1)))
        grid.write(" blue", row: 0, column: 7, style: TextStyle(foreground: .ansi(4)))
        var bytes: [UInt8] = []
        var renderer = Renderer(showing: Grid(size: grid.size))
        renderer.render(grid, into: &bytes)
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "\u{1B}[?2026h\u{1B}[1H\u{1B}[0;31mred red\u{1B}[34m blue\u{1B}[?2026l")
    }

    @Test("after a cluster terminals disagree on, the next cell is placed by absolute position and redrawn")
    func uncertainWidth() {
        var grid = Grid(size: TerminalSize(columns: 12, rows: 1))
        grid.write("ab👍🏽cdefgh", row: 0, column: 0)
        for disagreement in [1, 3] {
            // A terminal that counts the skin tone's cluster otherwise: `disagreement` columns.
            var emulator = TestTerminalEmulator(size: grid.size)
            emulator.width = { $0 == "👍🏽" ? disagreement : DisplayWidth.columns(of: $0) }
            var renderer = Renderer()
            var bytes: [UInt8] = []
            renderer.render(grid, into: &bytes)
            emulator.feed(bytes)
            if disagreement == 1 { #expect(emulator.text(row: 0).hasPrefix("ab👍🏽")) }
            #expect(emulator.text(row: 0).hasSuffix("cdefgh"), "the rest of the row is where it belongs")
            let wrong = emulator.mismatches(grid).map(\.1)
            #expect(wrong.allSatisfy { (2...3).contains($0) }, "only the uncertain glyph's own cells: \(wrong)")
            // A later change after it is placed right too.
            var next = grid
            next.write("Z", row: 0, column: 4)
            bytes = []
            renderer.render(next, into: &bytes)
            emulator.feed(bytes)
            #expect(emulator.text(row: 0).hasSuffix("Zdefgh"))
        }
    }

    @Test("a cluster terminals disagree on, drawn wider into a row, does not shift or smudge the cells after it")
    func uncertainArrives() {
        var before = Grid(size: TerminalSize(columns: 12, rows: 1))
        before.write("ab  cdefgh", row: 0, column: 0)
        var after = before
        after.write("👍🏽", row: 0, column: 2)
        var emulator = TestTerminalEmulator(size: before.size)
        // A terminal that counts the skin tone's scalars: four columns, over "cd".
        emulator.width = { $0 == "👍🏽" ? 4 : DisplayWidth.columns(of: $0) }
        var renderer = Renderer()
        var bytes: [UInt8] = []
        renderer.render(before, into: &bytes)
        renderer.render(after, into: &bytes)
        emulator.feed(bytes)
        #expect(emulator.text(row: 0).hasSuffix("cdefgh"), "the next cell is redrawn at its place")
        #expect(emulator.mismatches(after).map(\.1).allSatisfy { (2...5).contains($0) })
    }

    @Test("a new size or an invalidated screen is a full repaint that clears the screen first")
    func repaintAfterResize() {
        var renderer = Renderer()
        var bytes: [UInt8] = []
        var small = Grid(size: TerminalSize(columns: 5, rows: 2))
        small.write("abc", row: 1, column: 1, style: TextStyle(attributes: .bold))
        renderer.render(small, into: &bytes)
        var large = Grid(size: TerminalSize(columns: 8, rows: 3))
        large.write("xyz", row: 2, column: 0)
        bytes = []
        renderer.render(large, into: &bytes)
        var emulator = TestTerminalEmulator(size: large.size)
        emulator.feed(Array("garbage on screen".utf8))
        emulator.feed(bytes)
        #expect(String(decoding: bytes, as: UTF8.self).contains("\u{1B}[2J"))
        #expect(emulator.shows(large))
        renderer.invalidate()
        bytes = []
        renderer.render(large, into: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self).contains("\u{1B}[2J"))
    }

    @Test("hostile text written into a grid reaches the terminal as visible characters only")
    func hostileText() {
        var grid = Grid(size: TerminalSize(columns: 40, rows: 2))
        grid.write("a\u{1B}[2J\u{1B}]0;title\u{07}b\u{9B}31m\u{202E}c\u{2066}d\r\ne", row: 0, column: 0)
        grid.write("next row", row: 1, column: 0)
        var bytes: [UInt8] = []
        var renderer = Renderer()
        renderer.render(grid, into: &bytes)
        var emulator = TestTerminalEmulator(size: grid.size)
        emulator.feed(bytes)
        #expect(emulator.unsupported.isEmpty)
        #expect(emulator.shows(grid))
        #expect(emulator.text(row: 1) == "next row")
        let written = String(decoding: bytes, as: UTF8.self)
        #expect(written.components(separatedBy: "\u{1B}[2J").count == 2, "the repaint's own clear only")
        #expect(!written.contains("\u{1B}]") && !written.contains("\u{07}") && !written.contains("\u{1B}[31m"))
        #expect(
            !written.unicodeScalars.contains {
                (0x80...0x9F).contains($0.value) || $0 == "\u{202E}" || $0 == "\u{2066}"
            })
    }
}
