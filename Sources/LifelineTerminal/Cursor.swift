/// Where a frame leaves the terminal's cursor: hidden, or shown at a cell (the composer's insertion point).
public struct Cursor: Hashable, Sendable {
    /// The cursor's row, from 0 (ignored when hidden).
    public var row: Int
    /// The cursor's column, from 0 (ignored when hidden).
    public var column: Int
    /// Whether the cursor is shown.
    public var isVisible: Bool

    /// A cursor from its position and visibility.
    ///
    /// - Parameters:
    ///   - row: The row, from 0.
    ///   - column: The column, from 0.
    ///   - isVisible: Whether it is shown.
    public init(row: Int, column: Int, isVisible: Bool) {
        self.row = row
        self.column = column
        self.isVisible = isVisible
    }

    /// No cursor on screen.
    public static let hidden = Cursor(row: 0, column: 0, isVisible: false)

    /// The cursor shown at a cell.
    ///
    /// - Parameters:
    ///   - row: The row, from 0.
    ///   - column: The column, from 0.
    public static func at(row: Int, column: Int) -> Cursor { Cursor(row: row, column: column, isVisible: true) }
}
