/// What the builder of a frame knows about how it differs from the frame before it: the rows it may have drawn
/// anew, and a band of rows whose cells it moved up or down (a timeline that took a message).
///
/// A ``Renderer`` given them with ``Renderer/render(_:cursor:changes:into:)`` compares only those rows with what
/// the terminal shows — in the moved band only the columns outside the move, since the terminal's scroll brings the
/// moved cells — and scrolls the band by the move's shift without looking for a move itself. They describe the
/// step from one frame, ``base``: a renderer that shows another frame (one was built but not drawn) ignores them
/// and compares every cell.
public struct FrameChanges: Sendable {
    /// A band of rows whose cells in some columns moved: in each row `r` of ``rows`` whose source `r + shift` is
    /// in ``rows`` too, the cells of ``columns`` are those of the source row in the base frame.
    public struct Move: Hashable, Sendable {
        /// The rows of the band.
        public var rows: Range<Int>
        /// The columns that moved (the other columns of the band's rows are compared as changed ones).
        public var columns: Range<Int>
        /// How many rows the cells moved up (positive) or down (negative).
        public var shift: Int

        /// A move from its band, columns and shift.
        ///
        /// - Parameters:
        ///   - rows: The rows of the band.
        ///   - columns: The columns whose cells moved.
        ///   - shift: How many rows the cells moved up (positive) or down (negative).
        public init(rows: Range<Int>, columns: Range<Int>, shift: Int) {
            self.rows = rows
            self.columns = columns
            self.shift = shift
        }
    }

    /// The frame the changes start from.
    public let base: Grid
    /// The rows that may differ from the base frame, in order: every row the move does not explain (a row of the
    /// band whose source lies outside it, or that was drawn anew).
    public let rows: [Int]
    /// The band of rows that moved, if any.
    public let move: Move?

    /// Changes from a frame.
    ///
    /// - Parameters:
    ///   - base: The frame the changes start from (the last one built).
    ///   - rows: The rows that may differ from it (any order; repeats are dropped).
    ///   - move: The band of rows whose cells moved, if any.
    public init(from base: Grid, rows: some Sequence<Int>, move: Move? = nil) {
        self.base = base
        self.rows = Array(Set(rows)).filter { $0 >= 0 && $0 < base.size.rows }.sorted()
        self.move = move
    }

    /// Whether the changes tell the truth about `frame`: every row outside ``rows`` and the band equals the base
    /// frame's, and every row of the band outside ``rows`` has the moved columns of its source. What a test of a
    /// frame builder checks; a renderer trusts them.
    ///
    /// - Parameter frame: The frame built from ``base``.
    /// - Returns: Whether a renderer that skips what the changes say did not change still draws `frame`.
    public func describe(_ frame: Grid) -> Bool {
        guard frame.size == base.size else { return false }
        let listed = Set(rows)
        let move = validMove
        for row in 0..<frame.size.rows where !listed.contains(row) {
            if let move, move.rows.contains(row) {
                let source = row + move.shift
                guard move.rows.contains(source) else { return false }
                for column in move.columns where frame[row, column] != base[source, column] { return false }
            } else {
                for column in 0..<frame.size.columns where frame[row, column] != base[row, column] { return false }
            }
        }
        return true
    }

    /// The move, if it fits the frame: a band inside the grid, columns inside it, a shift shorter than the band.
    var validMove: Move? {
        guard let move, move.shift != 0, move.rows.lowerBound >= 0, move.rows.upperBound <= base.size.rows,
            abs(move.shift) < move.rows.count, move.columns.lowerBound >= 0,
            move.columns.upperBound <= base.size.columns, !move.columns.isEmpty
        else { return nil }
        return move
    }
}
