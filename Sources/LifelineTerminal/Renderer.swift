/// Turns frames into the bytes that draw them: the diff of the frame the terminal shows and the next one.
///
/// Pure: it writes into a byte buffer and does no I/O, so a benchmark or a test reads exactly what a terminal
/// would get. It remembers the last frame it drew; ``render(_:cursor:changes:into:)`` writes only the cells that changed
/// since, each placed with the shortest cursor move, with an SGR sequence only where the style changes, the whole
/// wrapped in synchronized output (`CSI ? 2026 h` … `l`) so the terminal shows it at once. A frame that changes
/// nothing writes nothing. After a cluster whose width terminals disagree on (``DisplayWidth/isUncertain(_:)``) the
/// next cell is placed by absolute position and the cells of the next four columns are written even if unchanged,
/// and a wide uncertain cluster's cells are erased before it is drawn: a terminal that draws it narrower or wider smudges that glyph, never the rest of
/// the row. ``repaint(_:cursor:into:)`` clears the screen and draws everything (after a resize).
public struct Renderer: Sendable {
    /// The frame the terminal shows, as far as this renderer knows; `nil` before the first frame and after
    /// ``invalidate()``.
    public private(set) var frame: Grid?
    /// The cursor the last frame left.
    private var shownCursor: Cursor?
    /// The style the terminal draws in after the last frame, and where its cursor is (`nil` when unknown).
    private var terminalStyle: TextStyle?
    private var terminalRow: Int?
    private var terminalColumn: Int?

    /// The bytes past which a diff is given up for a try at scrolling (a few cells' worth: a frame that changes
    /// more may be a move).
    static let scrollThreshold = 256

    /// A renderer that knows nothing of the screen: its first frame is a full repaint.
    public init() {}

    /// A renderer that takes the terminal to show `frame` with the cursor hidden, as if it had drawn it: what a
    /// benchmark or a test diffs the next frame against.
    ///
    /// - Parameter frame: The frame on screen.
    public init(showing frame: Grid) {
        self.frame = frame
        shownCursor = .hidden
    }

    /// Forgets what the terminal shows (after a resize, or anything else that may have drawn on it): the next
    /// ``render(_:cursor:changes:into:)`` is a full repaint.
    public mutating func invalidate() {
        frame = nil
        shownCursor = nil
        terminalStyle = nil
        terminalRow = nil
        terminalColumn = nil
    }

    /// Appends the bytes that turn the frame on screen into `grid` to `output`: its changed cells only, or a full
    /// repaint when nothing is known of the screen or its size changed. Nothing at all when nothing changed.
    ///
    /// - Parameters:
    /// Given the changes the frame's builder knows of (``FrameChanges``), from the frame this renderer shows, only
    /// their rows are compared, and their band is scrolled by its shift without a search for the move: the bytes
    /// are the same as without them, the time a fraction. Changes from another frame are ignored.
    ///
    /// - Parameters:
    ///   - grid: The next frame.
    ///   - cursor: Where the frame leaves the cursor.
    ///   - changes: What the frame's builder knows of how `grid` differs from the frame before it, if anything.
    ///   - output: The buffer the bytes are appended to.
    public mutating func render(
        _ grid: Grid, cursor: Cursor = .hidden, changes: FrameChanges? = nil, into output: inout [UInt8]
    ) {
        guard let frame, frame.size == grid.size, let shownCursor else {
            repaint(grid, cursor: cursor, into: &output)
            return
        }
        let cursor = cursor.clamped(to: grid.size)
        if let changes, changes.base.size == grid.size, frame.sharesStorage(with: changes.base) {
            render(grid, cursor: cursor, shown: (frame, shownCursor), changes: changes, into: &output)
            return
        }
        // One pass over the rows finds the ones that changed; a frame that changed several may be a move (a
        // timeline that took a message), and the terminal's scroll and the cells that still differ after it may be
        // shorter than rewriting the rows: both are written, the plain diff given up once it is the longer.
        let changed = Self.changedRows(from: frame, to: grid)
        guard !changed.isEmpty || shownCursor != cursor else {
            // The same cells: this grid is the frame now (changes built from it are taken).
            self.frame = grid
            return
        }
        var writer = frameWriter(visible: shownCursor.isVisible)
        if changed.count >= 3, let plan = ScrollPlan(from: frame, to: grid, changedRows: changed) {
            var scrolled = writer
            scrolled.scroll(plan)
            scrolled.diff(from: frame, to: grid, rows: Self.union(changed, plan.rows), moved: plan)
            writer.limit = scrolled.output.count
            writer.diff(from: frame, to: grid, rows: changed, moved: nil)
            if writer.exceededLimit || writer.output.count > scrolled.output.count { writer = scrolled }
        } else {
            writer.diff(from: frame, to: grid, rows: changed, moved: nil)
        }
        writer.finishFrame(cursor: cursor)
        output.append(contentsOf: writer.output)
        keepState(of: writer)
        self.frame = grid
        self.shownCursor = cursor
    }

    /// Renders `grid` from the frame on screen by what its builder says changed: the listed rows and the moved band
    /// compared (in the band's rows not listed, only the columns outside the move), the band scrolled by its shift
    /// when that and the cells still different are shorter than the plain diff.
    private mutating func render(
        _ grid: Grid, cursor: Cursor, shown: (frame: Grid, cursor: Cursor), changes: FrameChanges,
        into output: inout [UInt8]
    ) {
        var writer = frameWriter(visible: shown.cursor.isVisible)
        if let move = changes.validMove {
            let plan = ScrollPlan(rows: move.rows, shift: move.shift)
            let rows = Self.union(changes.rows, move.rows)
            // The band's rows whose moved cells the scroll brings: only their other columns can differ.
            var moved = [Bool](repeating: false, count: grid.size.rows)
            for row in move.rows where move.rows.contains(row + move.shift) { moved[row] = true }
            for row in changes.rows { moved[row] = false }
            var scrolled = writer
            scrolled.scroll(plan)
            scrolled.diff(from: shown.frame, to: grid, rows: rows, moved: plan, skipping: (move.columns, moved))
            // The plain diff writes a byte at least for each cell that differs: when more differ than the scrolled
            // frame has bytes, it is the longer and is not written at all.
            let budget = scrolled.output.count - writer.output.count
            if Self.differingCells(from: shown.frame, to: grid, rows: rows, exceed: budget) {
                writer = scrolled
            } else {
                writer.limit = scrolled.output.count
                writer.diff(from: shown.frame, to: grid, rows: rows, moved: nil)
                if writer.exceededLimit || writer.output.count > scrolled.output.count { writer = scrolled }
            }
        } else {
            writer.diff(from: shown.frame, to: grid, rows: changes.rows, moved: nil)
        }
        if !writer.wroteCells, !writer.scrolled, shown.cursor == cursor {
            // Nothing differs: nothing is written.
            frame = grid
            return
        }
        writer.finishFrame(cursor: cursor)
        output.append(contentsOf: writer.output)
        keepState(of: writer)
        frame = grid
        shownCursor = cursor
    }

    /// The rows of `new` that differ from `old` (same size), top to bottom.
    static func changedRows(from old: Grid, to new: Grid) -> [Int] {
        let columns = new.size.columns
        var changed: [Int] = []
        old.cells.withUnsafeBufferPointer { oldCells in
            new.cells.withUnsafeBufferPointer { newCells in
                for row in 0..<new.size.rows {
                    let base = row * columns
                    for column in base..<(base + columns) where !oldCells[column].drawsLike(newCells[column]) {
                        changed.append(row)
                        break
                    }
                }
            }
        }
        return changed
    }

    /// Whether more than `budget` cells of `rows` differ between `old` and `new` (same size): counted without
    /// writing, and stopped as soon as they do. A differing cell costs a plain diff a byte at least (a two-column
    /// cluster and its continuation, two cells, take three bytes or more), so past the budget that diff is longer.
    static func differingCells(from old: Grid, to new: Grid, rows: [Int], exceed budget: Int) -> Bool {
        let columns = new.size.columns
        var count = 0
        return old.cells.withUnsafeBufferPointer { oldCells in
            new.cells.withUnsafeBufferPointer { newCells in
                for row in rows {
                    let base = row * columns
                    for index in base..<(base + columns) where !oldCells[index].drawsLike(newCells[index]) {
                        count += 1
                        if count > budget { return true }
                    }
                }
                return false
            }
        }
    }

    /// The rows of `rows` and of `range`, in order.
    static func union(_ rows: [Int], _ range: Range<Int>) -> [Int] {
        var result = rows.filter { $0 < range.lowerBound }
        result += range
        result += rows.filter { $0 >= range.upperBound }
        return result
    }

    /// A writer for the next frame that starts from what the terminal's state is after the last one.
    private func frameWriter(visible: Bool) -> FrameWriter {
        var writer = FrameWriter(cursorVisible: visible)
        writer.style = terminalStyle
        writer.row = terminalRow
        writer.column = terminalColumn
        writer.beginFrame()
        return writer
    }

    /// Appends a full repaint of `grid` to `output`: the style reset, the screen cleared, every cell that is not a
    /// blank in the terminal's default colours drawn.
    ///
    /// - Parameters:
    ///   - grid: The frame.
    ///   - cursor: Where the frame leaves the cursor.
    ///   - output: The buffer the bytes are appended to.
    public mutating func repaint(_ grid: Grid, cursor: Cursor = .hidden, into output: inout [UInt8]) {
        var writer = FrameWriter(cursorVisible: nil)
        swap(&writer.output, &output)
        defer {
            swap(&writer.output, &output)
            keepState(of: writer)
        }
        writer.beginFrame()
        writer.clearScreen()
        writer.diff(from: Grid(size: grid.size), to: grid)
        writer.finishFrame(cursor: cursor.clamped(to: grid.size))
        frame = grid
        shownCursor = cursor.clamped(to: grid.size)
    }
}

extension Renderer {
    /// Keeps what the terminal's state is after a frame, for the next one.
    fileprivate mutating func keepState(of writer: FrameWriter) {
        terminalStyle = writer.style
        terminalRow = writer.row
        terminalColumn = writer.column
    }
}

extension Cursor {
    /// The cursor moved inside a grid of `size` (a hidden cursor is the one ``hidden``).
    fileprivate func clamped(to size: TerminalSize) -> Cursor {
        guard isVisible, size.rows > 0, size.columns > 0 else { return .hidden }
        return .at(row: min(max(0, row), size.rows - 1), column: min(max(0, column), size.columns - 1))
    }
}

/// The bytes of one frame and what the terminal's state is while they are written: where its cursor is (`nil`
/// when unknown: after an uncertain cluster or a write into the last column) and which style it draws in.
struct FrameWriter {
    var output: [UInt8] = []
    var row: Int?
    var column: Int?
    var style: TextStyle? {
        didSet { styleBits = style.map(Cell.styleBits(of:)) }
    }
    /// ``style`` as a cell packs it, for a comparison with a cell's of one word.
    private(set) var styleBits: UInt64?
    var cursorVisible: Bool?
    var wroteCells = false
    /// Whether the frame scrolled a band of rows.
    var scrolled = false
    /// The most bytes the frame may take; past it ``diff(from:to:)`` stops and sets ``exceededLimit``.
    var limit: Int?
    var exceededLimit = false
    init(cursorVisible: Bool?) {
        self.cursorVisible = cursorVisible
    }

    mutating func beginFrame() {
        append("\u{1B}[?2026h")
    }

    mutating func clearScreen() {
        append("\u{1B}[0m\u{1B}[H\u{1B}[2J")
        style = .plain
        row = 0
        column = 0
        wroteCells = true
    }

    mutating func finishFrame(cursor: Cursor) {
        if cursor.isVisible {
            moveTo(row: cursor.row, column: cursor.column)
            if cursorVisible != true { append("\u{1B}[?25h") }
        } else if cursorVisible != false {
            append("\u{1B}[?25l")
        }
        cursorVisible = cursor.isVisible
        append("\u{1B}[?2026l")
    }

    /// Scrolls the plan's rows by its shift: the scrolling region set to them (which homes the cursor), the blank
    /// rows it brings in take the default background, the region reset.
    mutating func scroll(_ plan: ScrollPlan) {
        // The rows the scroll brings in take the background (only): reset only a background that is not the
        // terminal's.
        if style?.background != TerminalColor.default { setStyle(.plain) }
        append("\u{1B}[")
        appendNumber(plan.rows.lowerBound + 1)
        append(";")
        appendNumber(plan.rows.upperBound)
        append("r\u{1B}[")
        if abs(plan.shift) > 1 { appendNumber(abs(plan.shift)) }
        append(plan.shift > 0 ? "S" : "T")
        append("\u{1B}[r")
        row = 0
        column = 0
        scrolled = true
    }

    /// How many columns after an uncertain cluster are redrawn: enough for a skin-toned emoji or a two-person
    /// ZWJ sequence drawn by a terminal that counts their scalars.
    static let repairColumns = 4

    /// Writes the cells of `new` that differ from `old` (same size): every row for a repaint.
    mutating func diff(from old: Grid, to new: Grid) {
        diff(from: old, to: new, rows: Array(0..<new.size.rows), moved: nil)
    }

    /// Writes the cells of `rows` (in order) of `new` that differ from what the terminal shows: `old`, or `old`
    /// with `moved`'s rows scrolled when the terminal scrolled them (the rows it brought in blank). In a row that
    /// `skipping` marks, its columns are not compared: the caller knows the scroll brought them as they are.
    mutating func diff(
        from old: Grid, to new: Grid, rows: [Int], moved: ScrollPlan?,
        skipping: (columns: Range<Int>, rows: [Bool])? = nil
    ) {
        let columns = new.size.columns
        let blank = Cell.blank()
        old.cells.withUnsafeBufferPointer { oldCells in
            new.cells.withUnsafeBufferPointer { newCells in
                for rowIndex in rows {
                    let base = rowIndex * columns
                    // The row the terminal shows here: the old one, the one scrolled into it, or a blank one.
                    var source: Int? = rowIndex
                    if let moved, moved.rows.contains(rowIndex) {
                        let from = rowIndex + moved.shift
                        source = moved.rows.contains(from) ? from : nil
                    }
                    let oldBase = (source ?? 0) * columns
                    var columnIndex = 0
                    // After an uncertain cluster, the cells starting in the next few columns are redrawn: a
                    // terminal that drew it wider (a skin tone counted per scalar is two columns more) overwrote
                    // them.
                    var forcedUntil = -1
                    let skipped = skipping.flatMap { $0.rows[rowIndex] ? $0.columns : nil } ?? (0..<0)
                    while columnIndex < columns {
                        if skipped.contains(columnIndex), columnIndex >= forcedUntil {
                            columnIndex = skipped.upperBound
                            continue
                        }
                        let cell = newCells[base + columnIndex]
                        let width = max(1, Int(cell.width))
                        if cell.isContinuation {
                            columnIndex += 1
                            continue
                        }
                        let changed: Bool
                        if columnIndex < forcedUntil {
                            changed = true
                        } else if source != nil {
                            changed =
                                !cell.drawsLike(oldCells[oldBase + columnIndex])
                                || (width == 2 && columnIndex + 1 < columns
                                    && !newCells[base + columnIndex + 1].drawsLike(oldCells[oldBase + columnIndex + 1]))
                        } else {
                            changed =
                                !cell.drawsLike(blank)
                                || (width == 2 && columnIndex + 1 < columns
                                    && !newCells[base + columnIndex + 1].drawsLike(blank))
                        }
                        if changed {
                            if let limit, output.count >= limit {
                                exceededLimit = true
                                return
                            }
                            let uncertain = cell.isUncertain
                            write(
                                cell, row: rowIndex, column: columnIndex, uncertain: uncertain, lastColumn: columns - 1)
                            if uncertain { forcedUntil = columnIndex + width + Self.repairColumns }
                        }
                        columnIndex += width
                    }
                }
            }
        }
    }

    private mutating func write(
        _ cell: Cell, row target: Int, column targetColumn: Int, uncertain: Bool, lastColumn: Int
    ) {
        wroteCells = true
        moveTo(row: target, column: targetColumn)
        if styleBits != cell.styleBits { setStyle(cell.style) }
        let width = Int(cell.width)
        if uncertain, width == 2 { append("\u{1B}[2X") }
        cell.appendUTF8(to: &output)
        if uncertain || targetColumn + width > lastColumn {
            // Where the terminal put the cursor is not known: after an uncertain cluster it may differ by a
            // column or more, and after the last column it waits to wrap.
            row = nil
            column = nil
        } else {
            column = targetColumn + width
        }
    }

    /// Moves the cursor with the shortest of: a position (CUP); from a known row, CR (and LF) to the start of this
    /// row or the next and rightwards; from a known cell, up or down (CUU, CUD) and left or right (CUB, CUF).
    mutating func moveTo(row target: Int, column targetColumn: Int) {
        guard let row else {
            position(row: target, column: targetColumn)
            return
        }
        if let column, row == target, column == targetColumn { return }
        let absolute = 3 + Self.digits(target + 1) + (targetColumn > 0 ? 1 + Self.digits(targetColumn + 1) : 0)
        // No scrolling region is set between frames' writes, and the next row is on screen, so the line feed
        // never scrolls.
        let returns =
            target == row || target == row + 1
            ? (target == row ? 1 : 2) + Self.stepCost(targetColumn) : Int.max
        var relative = Int.max
        if let column {
            let rows = abs(target - row)
            relative =
                (rows == 0 ? 0 : Self.stepCost(rows))
                + (targetColumn == column ? 0 : Self.stepCost(abs(targetColumn - column)))
        }
        if relative <= returns, relative < absolute, let column {
            if target != row { step(abs(target - row), target > row ? "B" : "A") }
            if targetColumn != column { step(abs(targetColumn - column), targetColumn > column ? "C" : "D") }
        } else if returns < absolute {
            append(target == row ? "\r" : "\r\n")
            if targetColumn > 0 { step(targetColumn, "C") }
        } else {
            position(row: target, column: targetColumn)
            return
        }
        self.row = target
        column = targetColumn
    }

    /// A cursor position (CUP): the row, and the column when it is not the first.
    private mutating func position(row target: Int, column targetColumn: Int) {
        append("\u{1B}[")
        appendNumber(target + 1)
        if targetColumn > 0 {
            append(";")
            appendNumber(targetColumn + 1)
        }
        append("H")
        row = target
        column = targetColumn
    }

    /// A relative move of `count` cells (`final`: A up, B down, C right, D left), the count left out when 1.
    private mutating func step(_ count: Int, _ final: String) {
        append("\u{1B}[")
        if count > 1 { appendNumber(count) }
        append(final)
    }

    /// The bytes of a relative move of `count` cells (0 for none).
    static func stepCost(_ count: Int) -> Int {
        count == 0 ? 0 : count == 1 ? 3 : 3 + digits(count)
    }

    /// The decimal digits of a non-negative number.
    static func digits(_ number: Int) -> Int {
        number < 10 ? 1 : number < 100 ? 2 : number < 1000 ? 3 : 1 + digits(number / 10)
    }

    mutating func setStyle(_ next: TextStyle) {
        if let style, style == next { return }
        if next == .plain {
            // A reset with its parameter left out (SGR 0).
            append("\u{1B}[m")
            style = next
            return
        }
        append("\u{1B}[")
        var from = style ?? .plain
        var first = true
        func parameter(_ text: String, _ writer: inout FrameWriter) {
            if !first { writer.append(";") }
            writer.append(text)
            first = false
        }
        if style == nil || !from.attributes.isSubset(of: next.attributes) {
            parameter("0", &self)
            from = .plain
        }
        let added = next.attributes.subtracting(from.attributes)
        let codes: [(TextStyle.Attributes, String)] = [
            (.bold, "1"), (.dim, "2"), (.italic, "3"), (.underline, "4"), (.reverse, "7"), (.strikethrough, "9"),
        ]
        for (attribute, code) in codes where added.contains(attribute) { parameter(code, &self) }
        if next.foreground != from.foreground { parameter(Self.colorCode(next.foreground, background: false), &self) }
        if next.background != from.background { parameter(Self.colorCode(next.background, background: true), &self) }
        append("m")
        style = next
    }

    static func colorCode(_ color: TerminalColor, background: Bool) -> String {
        switch color {
        case .default: return background ? "49" : "39"
        case .ansi(let index):
            let index = Int(index % 16)
            return index < 8 ? String((background ? 40 : 30) + index) : String((background ? 100 : 90) + index - 8)
        case .indexed(let index): return (background ? "48;5;" : "38;5;") + String(index)
        case .rgb(let red, let green, let blue):
            return (background ? "48;2;" : "38;2;") + "\(red);\(green);\(blue)"
        }
    }

    mutating func append(_ text: String) {
        output.append(contentsOf: text.utf8)
    }

    mutating func appendNumber(_ number: Int) {
        if number >= 10 { appendNumber(number / 10) }
        output.append(UInt8(ascii: "0") + UInt8(number % 10))
    }
}
