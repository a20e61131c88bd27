public import LifelineTerminal

/// The bytes that turn the terminal's last frame into the next, for the chat's screen: when the timeline moved up
/// (a new message at the bottom), the terminal scrolls that region itself (`DECSTBM` and `SU`), and only the cells
/// that still differ are written, with the cursor moved and the style changed only where needed; each frame sits
/// inside synchronized output (`CSI ? 2026 h` … `l`), so nothing flickers.
///
/// After a cluster whose width terminals disagree on (``DisplayWidth/isUncertain(_:)``) the next cell is placed by
/// absolute position, so a terminal that draws it otherwise smudges that glyph, not the rest of the row.
public struct ChatFrameWriter: Sendable {
    private var last: Grid?
    private var output: [UInt8] = []

    /// A writer whose first frame is a full repaint.
    public init() {}

    /// Forgets the last frame: the next is painted whole (after a resize, or when the screen may be damaged).
    public mutating func invalidate() { last = nil }

    /// The bytes from the last frame to `grid`: a full repaint when there is none or the size changed.
    ///
    /// - Parameters:
    ///   - grid: The new frame.
    ///   - cursor: Where the cursor stands after it, or `nil` to hide it.
    ///   - scrollRegion: Rows that may have moved up as a block since the last frame (the timeline's), judged by
    ///     `scrollColumns` (the timeline's columns): their shift is left to the terminal, which moves the whole
    ///     rows; the cells beside the timeline that the move displaced are written again like any other change.
    ///   - scrollColumns: The columns whose rows decide whether the region moved.
    public mutating func frame(
        _ grid: Grid, cursor: (row: Int, column: Int)?, scrollRegion: Range<Int>? = nil,
        scrollColumns: Range<Int>? = nil
    ) -> [UInt8] {
        output.removeAll(keepingCapacity: true)
        append("\u{1B}[?2026h\u{1B}[?25l")
        var style: TextStyle? = nil
        if let previous = last, previous.size == grid.size {
            var shift = 0
            if let region = scrollRegion, region.count > 2 {
                shift = Self.shift(
                    of: region, columns: scrollColumns ?? 0..<grid.size.columns, from: previous, to: grid)
            }
            if let region = scrollRegion, shift > 0 {
                append("\u{1B}[0m\u{1B}[\(region.lowerBound + 1);\(region.upperBound)r\u{1B}[\(shift)S\u{1B}[r")
                style = .plain
            }
            for row in 0..<grid.size.rows {
                var oldRow = row
                var blankOld = false
                if let region = scrollRegion, shift > 0, region.contains(row) {
                    oldRow = row + shift
                    blankOld = oldRow >= region.upperBound
                }
                writeChanges(row: row, in: grid, against: previous, oldRow: oldRow, blankOld: blankOld, style: &style)
            }
        } else {
            append("\u{1B}[0m\u{1B}[2J")
            style = .plain
            for row in 0..<grid.size.rows {
                writeRow(row, in: grid, from: 0, style: &style)
            }
        }
        append("\u{1B}[0m")
        if let cursor {
            append("\u{1B}[\(cursor.row + 1);\(cursor.column + 1)H\u{1B}[?25h")
        }
        append("\u{1B}[?2026l")
        last = grid
        return output
    }

    /// The bytes of a full repaint of `grid`, without changing what the writer remembers.
    public func repaint(_ grid: Grid, cursor: (row: Int, column: Int)?) -> [UInt8] {
        var writer = ChatFrameWriter()
        return writer.frame(grid, cursor: cursor)
    }

    /// How many rows a region moved up by from `old` to `new`, judged by some of its columns (0 when it did not).
    static func shift(of region: Range<Int>, columns: Range<Int>, from old: Grid, to new: Grid) -> Int {
        let height = region.count
        for shift in 1..<min(height, 12) {
            // The region's rows in `new`, except its last `shift`, must be the old rows `shift` below them.
            var same = true
            for row in region.lowerBound..<(region.upperBound - shift)
            where !rowsEqual(new, row, old, row + shift, columns) {
                same = false
                break
            }
            if same { return shift }
        }
        return 0
    }

    private static func rowsEqual(_ a: Grid, _ rowA: Int, _ b: Grid, _ rowB: Int, _ columns: Range<Int>) -> Bool {
        for column in columns where a[rowA, column] != b[rowB, column] { return false }
        return true
    }

    private mutating func writeChanges(
        row: Int, in grid: Grid, against old: Grid, oldRow: Int, blankOld: Bool, style: inout TextStyle?
    ) {
        let columns = grid.size.columns
        var column = 0
        var cursorAt: Int? = nil
        while column < columns {
            let cell = grid[row, column]
            let before = blankOld ? Cell.blank() : old[oldRow, column]
            if cell == before {
                column += 1
                continue
            }
            if cell.isContinuation, column > 0 {
                // The right half of a wide cluster changed: the cluster it belongs to is written again.
                column -= 1
            }
            let width = max(1, Int(grid[row, column].width))
            if cursorAt != column { append("\u{1B}[\(row + 1);\(column + 1)H") }
            cursorAt = writeCell(row: row, column: column, in: grid, style: &style)
            column += width
        }
    }

    private mutating func writeRow(_ row: Int, in grid: Grid, from start: Int, style: inout TextStyle?) {
        append("\u{1B}[\(row + 1);\(start + 1)H")
        var column = start
        while column < grid.size.columns {
            let cell = grid[row, column]
            if cell.isContinuation {
                column += 1
                continue
            }
            let next = writeCell(row: row, column: column, in: grid, style: &style)
            if next == nil, column + Int(cell.width) < grid.size.columns {
                append("\u{1B}[\(row + 1);\(column + Int(cell.width) + 1)H")
            }
            column += max(1, Int(cell.width))
        }
    }

    /// Writes one cell; the column the terminal's cursor is surely at afterwards, or nil when it is uncertain.
    private mutating func writeCell(row: Int, column: Int, in grid: Grid, style: inout TextStyle?) -> Int? {
        let cell = grid[row, column]
        if cell.style != style {
            appendStyle(cell.style)
            style = cell.style
        }
        for unit in String(cell.grapheme).utf8 { output.append(unit) }
        if DisplayWidth.isUncertain(cell.grapheme) { return nil }
        return column + Int(max(1, cell.width))
    }

    private mutating func appendStyle(_ style: TextStyle) {
        append("\u{1B}[0")
        let attributes = style.attributes
        if attributes.contains(.bold) { append(";1") }
        if attributes.contains(.dim) { append(";2") }
        if attributes.contains(.italic) { append(";3") }
        if attributes.contains(.underline) { append(";4") }
        if attributes.contains(.reverse) { append(";7") }
        if attributes.contains(.strikethrough) { append(";9") }
        appendColor(style.foreground, base: 30)
        appendColor(style.background, base: 40)
        append("m")
    }

    private mutating func appendColor(_ color: TerminalColor, base: Int) {
        switch color {
        case .default: break
        case .ansi(let index): append(";\(index < 8 ? base + Int(index) : base + 60 + Int(index) - 8)")
        case .indexed(let index): append(";\(base + 8);5;\(index)")
        case .rgb(let red, let green, let blue): append(";\(base + 8);2;\(red);\(green);\(blue)")
        }
    }

    private mutating func append(_ text: String) {
        output.append(contentsOf: text.utf8)
    }
}
