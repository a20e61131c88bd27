/// A terminal's size in columns and rows.
public struct TerminalSize: Hashable, Sendable {
    /// The number of columns.
    public var columns: Int
    /// The number of rows.
    public var rows: Int

    /// A size from its columns and rows (negative values are taken as 0).
    public init(columns: Int, rows: Int) {
        self.columns = max(0, columns)
        self.rows = max(0, rows)
    }
}

/// A frame: a grid of ``Cell``s a screen draws into, which a renderer diffs against the frame before.
///
/// Text written into it is drawn cluster by cluster with ``DisplayWidth``; every control and bidirectional
/// formatting character is replaced by a visible one first (``VisibleText``), so nothing written into a grid can
/// reach the terminal as a control sequence. A two-column cluster that would cross the right edge (or the
/// column limit) is not drawn; a write that covers half of a two-column cluster blanks its other half.
public struct Grid: Hashable, Sendable, CustomStringConvertible {
    /// The grid's size.
    public let size: TerminalSize
    /// The cells, row by row (the renderer reads them directly).
    private(set) var cells: [Cell]

    /// A grid of blank cells in `style`.
    public init(size: TerminalSize, style: TextStyle = .plain) {
        self.size = size
        cells = Array(repeating: .blank(style), count: size.columns * size.rows)
    }

    /// A grid of `size` from its cells, row by row (as many as the size has).
    init(size: TerminalSize, cells: [Cell]) {
        precondition(cells.count == size.columns * size.rows, "\(cells.count) cells for a grid of \(size)")
        self.size = size
        self.cells = cells
    }

    /// The cell at a row and column (both from 0), which must lie inside the grid.
    public subscript(row: Int, column: Int) -> Cell {
        precondition(contains(row: row, column: column), "cell (\(row), \(column)) outside a grid of \(size)")
        return cells[row * size.columns + column]
    }

    /// Whether a row and column lie inside the grid.
    public func contains(row: Int, column: Int) -> Bool {
        row >= 0 && row < size.rows && column >= 0 && column < size.columns
    }

    /// Writes `text` from `column` of `row` rightwards, up to the right edge or `limit` columns, and returns the
    /// columns it took. Writing outside the grid writes nothing and returns 0.
    @discardableResult
    public mutating func write(
        _ text: some StringProtocol, row: Int, column: Int, style: TextStyle = .plain, limit: Int? = nil
    ) -> Int {
        guard row >= 0, row < size.rows, column >= 0, column < size.columns else { return 0 }
        let end = min(size.columns, column + max(0, limit ?? size.columns))
        var at = column
        // Printable ASCII, most of what a screen writes, is one column a byte: no cluster to find, nothing to
        // replace.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            let styleBits = Cell.styleBits(of: style)
            for byte in text.utf8 {
                guard at < end else { break }
                place(Cell(ascii: byte, styleBits: styleBits), row: row, column: at)
                at += 1
            }
            return at - column
        }
        for character in VisibleText.isSafe(text) ? String(text) : VisibleText.sanitized(text) {
            let width = DisplayWidth.columns(of: character)
            guard width > 0 else { continue }
            guard at + width <= end else { break }
            place(Cell(grapheme: character, width: UInt8(width), style: style), row: row, column: at)
            at += width
        }
        return at - column
    }

    /// Paints `columns` of `row` blank in `style` (the parts outside the grid are ignored).
    public mutating func fill(row: Int, columns: Range<Int>, style: TextStyle = .plain) {
        guard row >= 0, row < size.rows else { return }
        let blank = Cell.blank(style)
        for column in max(0, columns.lowerBound)..<min(size.columns, max(0, columns.upperBound)) {
            place(blank, row: row, column: column)
        }
    }

    /// Copies the cells of `columns` of a row of `source` into the same columns of `row`: what a screen whose content
    /// moved (a timeline pushed up by a new message) does instead of drawing that content again.
    ///
    /// A two-column cluster cut by the range's edges is not copied (blanks stand for its cells), and a cluster of
    /// `row` that the copy cuts loses its other half, as a write would. A source of another size, or a row outside
    /// either grid, copies nothing.
    ///
    /// - Parameters:
    ///   - sourceRow: The row of `source` to copy from.
    ///   - source: The grid to copy from (this one's size).
    ///   - row: The row of this grid to copy into.
    ///   - columns: The columns copied.
    public mutating func copy(row sourceRow: Int, of source: Grid, to row: Int, columns: Range<Int>) {
        guard source.size == size, sourceRow >= 0, sourceRow < size.rows, row >= 0, row < size.rows else { return }
        let lower = max(0, columns.lowerBound)
        let upper = min(size.columns, columns.upperBound)
        guard lower < upper else { return }
        let from = sourceRow * size.columns
        let to = row * size.columns
        // No cluster cut at either edge, in the source or here: the cells as they are, in one copy.
        if !source.cells[from + lower].isContinuation, source.cells[from + upper - 1].width != 2,
            !cells[to + lower].isContinuation, upper == size.columns || !cells[to + upper].isContinuation
        {
            cells.replaceSubrange((to + lower)..<(to + upper), with: source.cells[(from + lower)..<(from + upper)])
            return
        }
        for column in lower..<upper {
            let cell = source.cells[from + column]
            if cell.isContinuation {
                // Placed with its cluster; one whose cluster lies outside the range is a blank.
                if column == lower { place(Cell(ascii: 0x20, styleBits: cell.styleBits), row: row, column: column) }
                continue
            }
            place(
                cell.width == 2 && column + 1 >= upper ? Cell(ascii: 0x20, styleBits: cell.styleBits) : cell, row: row,
                column: column)
        }
    }

    /// Makes this grid's cells those of `other` (this grid's size), copied into this grid's own storage when no
    /// other grid shares it: a frame builder that keeps the frame before last as a spare makes the next frame in it,
    /// a copy of memory, instead of a new allocation the size of the screen for every frame.
    ///
    /// - Parameter other: The grid whose cells are copied; one of another size copies nothing.
    public mutating func copyCells(from other: Grid) {
        guard other.size == size else { return }
        cells.withUnsafeMutableBufferPointer { mine in
            other.cells.withUnsafeBufferPointer { theirs in
                guard let target = mine.baseAddress, let source = theirs.baseAddress else { return }
                target.update(from: source, count: min(mine.count, theirs.count))
            }
        }
    }

    /// Whether this grid and `other` hold their cells in the same storage: the same frame passed along, not a copy
    /// changed since (a copy that changed has storage of its own), so their cells are equal without a comparison.
    func sharesStorage(with other: Grid) -> Bool {
        size == other.size
            && cells.withUnsafeBufferPointer { mine in
                other.cells.withUnsafeBufferPointer { theirs in mine.baseAddress == theirs.baseAddress }
            }
    }

    /// The text of a row: its clusters left to right, trailing blanks dropped.
    public func text(row: Int) -> String {
        var line = ""
        for column in 0..<size.columns {
            let cell = self[row, column]
            if !cell.isContinuation { line.append(cell.grapheme) }
        }
        while line.last == " " { line.removeLast() }
        return line
    }

    /// Every row's text, one line each: what a text snapshot of the screen compares.
    public var description: String {
        (0..<size.rows).map { text(row: $0) }.joined(separator: "\n")
    }

    private mutating func place(_ cell: Cell, row: Int, column: Int) {
        let index = row * size.columns + column
        // A continuation overwritten: the cluster it belonged to loses its right half, so it becomes a blank.
        if cells[index].isContinuation, column > 0 {
            cells[index - 1] = Cell(ascii: 0x20, styleBits: cells[index - 1].styleBits)
        }
        // A two-column cluster overwritten: its continuation, if not overwritten too, becomes a blank.
        if cells[index].width == 2, column + 1 < size.columns, cell.width != 2 {
            cells[index + 1] = Cell(ascii: 0x20, styleBits: cells[index + 1].styleBits)
        }
        cells[index] = cell
        if cell.width == 2 {
            let next = index + 1
            if cells[next].width == 2, column + 2 < size.columns {
                cells[next + 1] = Cell(ascii: 0x20, styleBits: cells[next + 1].styleBits)
            }
            cells[next] = Cell.continuation(styleBits: cell.styleBits)
        }
    }
}
