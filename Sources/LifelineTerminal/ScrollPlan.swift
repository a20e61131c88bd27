/// A band of rows whose content moved up or down between two frames (a timeline that took a new message), which
/// the terminal can move itself: the scrolling region set to the rows (DECSTBM), then scroll up (SU) or down (SD).
///
/// The terminal scrolls whole rows, so columns outside the band that moved (a chat list beside the timeline) move
/// too and are drawn again by the diff that follows; ``Renderer`` keeps the scroll only when the scroll and that
/// diff together are shorter than the plain diff.
struct ScrollPlan: Hashable {
    /// The rows of the scrolling region.
    var rows: Range<Int>
    /// How many rows the content moved up (positive) or down (negative).
    var shift: Int

    /// The most rows a move is looked for over.
    static let maximumShift = 16

    /// The move that best explains the rows that changed from `old` to `new`, or `nil` when fewer than three rows
    /// changed or none moved.
    ///
    /// The shift is found on one changed row (the middle one), as the offset to the old row most of its visible
    /// cells match; the region runs from the first changed row to the last.
    init?(from old: Grid, to new: Grid) {
        let size = new.size
        guard size == old.size, size.rows >= 4 else { return nil }
        let columns = size.columns
        let changed = (0..<size.rows).filter { row in
            old.cells[(row * columns)..<((row + 1) * columns)] != new.cells[(row * columns)..<((row + 1) * columns)]
        }
        guard changed.count >= 3, let top = changed.first, let last = changed.last else { return nil }
        let probe = changed[changed.count / 2]
        var best = (shift: 0, matches: 0)
        for shift in -Self.maximumShift...Self.maximumShift where shift != 0 {
            let source = probe + shift
            guard source >= top, source <= last else { continue }
            var matches = 0
            for column in 0..<columns {
                let cell = new.cells[probe * columns + column]
                if cell.grapheme != " ", cell == old.cells[source * columns + column] { matches += 1 }
            }
            if matches > best.matches { best = (shift, matches) }
        }
        guard best.matches >= 4, abs(best.shift) < last + 1 - top else { return nil }
        rows = top..<(last + 1)
        shift = best.shift
    }

    /// `grid` as the terminal shows it after the scroll: the region's rows moved, the rows it brings in blank in the
    /// default style.
    func applied(to grid: Grid) -> Grid {
        let columns = grid.size.columns
        var cells = grid.cells
        for row in rows {
            let source = row + shift
            let target = (row * columns)..<((row + 1) * columns)
            if rows.contains(source) {
                cells.replaceSubrange(target, with: grid.cells[(source * columns)..<((source + 1) * columns)])
            } else {
                cells.replaceSubrange(target, with: repeatElement(Cell.blank(), count: columns))
            }
        }
        return Grid(size: grid.size, cells: cells)
    }
}
