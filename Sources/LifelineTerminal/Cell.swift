/// One cell of a ``Grid``: the grapheme cluster that starts there, how many columns it takes, and its style.
///
/// A cluster two columns wide takes its cell and the next; the next holds a continuation (``isContinuation``),
/// which a renderer never writes.
public struct Cell: Hashable, Sendable {
    /// The grapheme cluster drawn from this cell: a space for a blank cell, a space too for a continuation.
    public var grapheme: Character
    /// The columns the cluster takes: 1 or 2, or 0 for the continuation of a two-column cluster to its left.
    public var width: UInt8
    /// How the cell is drawn.
    public var style: TextStyle

    /// A cell from its cluster, width and style.
    public init(grapheme: Character, width: UInt8, style: TextStyle = .plain) {
        self.grapheme = grapheme
        self.width = width
        self.style = style
    }

    /// A blank cell in a style.
    public static func blank(_ style: TextStyle = .plain) -> Cell { Cell(grapheme: " ", width: 1, style: style) }

    /// Whether this cell is the right half of a two-column cluster that starts in the cell to its left.
    public var isContinuation: Bool { width == 0 }
}

extension Cell {
    /// Whether the cell draws exactly as `other`: `==` with the cheap fields compared first, for the renderer's
    /// diff, which compares every cell of a frame.
    @inline(__always)
    func drawsLike(_ other: Cell) -> Bool {
        width == other.width && style == other.style && grapheme == other.grapheme
    }
}
