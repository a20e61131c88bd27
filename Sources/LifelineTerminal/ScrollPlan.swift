/// A band of rows whose content moved up or down between two frames (a timeline that took a new message), which
/// the terminal can move itself: the scrolling region set to the rows (DECSTBM), then scroll up (SU) or down (SD).
///
/// The terminal scrolls whole rows, so columns outside the band that moved (a chat list beside the timeline) move
/// too and are drawn again by the diff that follows (which compares each row with the row the terminal scrolled
/// into it, no copy of the frame made); ``Renderer`` keeps the scroll only when the scroll and that diff together
/// are shorter than the plain diff.
struct ScrollPlan: Hashable {
    /// The rows of the scrolling region.
    var rows: Range<Int>
    /// How many rows the content moved up (positive) or down (negative).
    var shift: Int

    /// A plan from its band and shift (a move its caller knows of).
    init(rows: Range<Int>, shift: Int) {
        self.rows = rows
        self.shift = shift
    }

    /// The most rows a move is looked for over.
    static let maximumShift = 16

    /// The most visible cells of the probe row compared for each shift.
    static let probeCells = 48

    /// The move that best explains the rows that changed from `old` to `new`, or `nil` when fewer than three rows
    /// changed or none moved.
    ///
    /// The shift is found on one changed row (the middle one): the nearest offset to an old row that all of its
    /// first visible cells (up to ``probeCells``) match, else the offset most of them match. The region runs from
    /// the first changed row to the last.
    ///
    /// - Parameters:
    ///   - old: The frame on screen.
    ///   - new: The next frame, of the same size.
    ///   - changedRows: The rows that differ, top to bottom (``Renderer`` finds them in its one pass).
    init?(from old: Grid, to new: Grid, changedRows changed: [Int]) {
        let size = new.size
        guard size == old.size, size.rows >= 4, changed.count >= 3, let top = changed.first, let last = changed.last
        else { return nil }
        let columns = size.columns
        let probe = changed[changed.count / 2]
        var best = (shift: 0, matches: 0)
        old.cells.withUnsafeBufferPointer { oldCells in
            new.cells.withUnsafeBufferPointer { newCells in
                // The probe row's visible cells (a few dozen are enough to tell rows apart).
                var visible: [Int] = []
                for column in 0..<columns where !newCells[probe * columns + column].isSpace {
                    visible.append(column)
                    if visible.count == Self.probeCells { break }
                }
                // Nearest shifts first: a timeline moves by a message's rows.
                for distance in 1...Self.maximumShift {
                    for shift in [distance, -distance] {
                        let source = probe + shift
                        guard source >= top, source <= last else { continue }
                        var matches = 0
                        for column in visible
                        where newCells[probe * columns + column].drawsLike(oldCells[source * columns + column]) {
                            matches += 1
                        }
                        if matches > best.matches { best = (shift, matches) }
                        if matches == visible.count { return }
                    }
                }
            }
        }
        guard best.matches >= 4, abs(best.shift) < last + 1 - top else { return nil }
        rows = top..<(last + 1)
        shift = best.shift
    }
}
