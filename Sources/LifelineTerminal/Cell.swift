import Synchronization

/// One cell of a ``Grid``: the grapheme cluster that starts there, how many columns it takes, and its style.
///
/// A cluster two columns wide takes its cell and the next; the next holds a continuation (``isContinuation``),
/// which a renderer never writes.
///
/// A cell is plain memory — two words, no reference — so a frame of 12 000 cells is copied, compared and diffed
/// as memory: the cluster's UTF-8 bytes are kept inline (up to 7 of them: every letter, CJK character, emoji and
/// emoji with its presentation selector), a longer cluster (a flag, a skin-toned emoji, a ZWJ sequence, a letter
/// under several combining marks) by its number in a table of the process, where each distinct long cluster is kept
/// once; the width and the style are packed in the second word. Two cells are equal when their bytes, width and
/// style are. The table keeps at most ``longClusterLimit`` clusters: past that (only text made to fill it gets
/// there), a new long cluster is drawn as U+FFFD (one column) or U+3013 〓 (two), so the row keeps its layout.
public struct Cell: Hashable, Sendable {
    /// Bytes 0–6 of the cluster's UTF-8 (or the long cluster's number), and in the top byte their count
    /// (``longMark`` for a long cluster).
    private var utf8: UInt64
    /// The width (bits 0–1), whether terminals disagree on the cluster's width (bit 2), the attributes (bits 3–10),
    /// the foreground (bits 11–36) and the background (bits 37–62).
    private var bits: UInt64

    /// The count byte of a cluster kept in the table.
    private static let longMark: UInt64 = 0xFF

    /// The most distinct long clusters (over 7 UTF-8 bytes) a process keeps.
    public static let longClusterLimit = 1 << 16

    /// The most UTF-8 bytes a cluster keeps: the longest emoji sequences take about 35, and a cluster a server made
    /// of a letter and thousands of combining marks keeps its first whole scalars within the bound, so the table of
    /// long clusters holds at most ``longClusterLimit`` × 64 bytes whatever the text.
    public static let longClusterBytes = 64

    /// A cluster's UTF-8 bytes, cut after the last whole scalar within ``longClusterBytes``.
    private static func kept(_ cluster: Character) -> [UInt8] {
        var bytes: [UInt8] = []
        for scalar in cluster.unicodeScalars {
            let length = UTF8.width(scalar)
            guard bytes.count + length <= longClusterBytes else { break }
            bytes.append(contentsOf: String(scalar).utf8)
        }
        return bytes
    }

    /// A cell from its cluster, width and style.
    public init(grapheme: Character, width: UInt8, style: TextStyle = .plain) {
        utf8 = 0
        bits = 0
        self.width = width
        self.style = style
        self.grapheme = grapheme
    }

    /// A cell of one printable ASCII byte, one column wide, in a style already packed (``styleBits(of:)``): the
    /// cell a grid's write of plain text makes for each byte.
    @inline(__always)
    init(ascii byte: UInt8, styleBits: UInt64) {
        utf8 = UInt64(byte) | 1 << 56
        bits = 1 | styleBits
    }

    /// A blank cell in a style.
    public static func blank(_ style: TextStyle = .plain) -> Cell { Cell(ascii: 0x20, styleBits: styleBits(of: style)) }

    /// The continuation of a two-column cluster in `style`: a space of no width.
    static func continuation(styleBits: UInt64) -> Cell {
        var cell = Cell(ascii: 0x20, styleBits: styleBits)
        cell.bits &= ~3
        return cell
    }

    /// Whether this cell is the right half of a two-column cluster that starts in the cell to its left.
    public var isContinuation: Bool { bits & 3 == 0 }

    /// The columns the cluster takes: 1 or 2, or 0 for the continuation of a two-column cluster to its left.
    public var width: UInt8 {
        get { UInt8(bits & 3) }
        set { bits = bits & ~3 | UInt64(min(newValue, 3)) }
    }

    /// Whether terminals disagree on the cluster's width (``DisplayWidth/isUncertain(_:)``), found when the cluster
    /// is set.
    var isUncertain: Bool { bits & 4 != 0 }

    /// The style's bits, as ``styleBits(of:)`` packs them: equal exactly when the styles are.
    var styleBits: UInt64 { bits & ~7 }

    /// Whether the cell is one space (a blank, in any style).
    var isSpace: Bool { utf8 == 0x20 | 1 << 56 }

    /// How the cell is drawn.
    public var style: TextStyle {
        get {
            TextStyle(
                foreground: Self.color(bits >> 11), background: Self.color(bits >> 37),
                attributes: TextStyle.Attributes(rawValue: UInt8(truncatingIfNeeded: bits >> 3)))
        }
        set { bits = bits & 7 | Self.styleBits(of: newValue) }
    }

    /// The grapheme cluster drawn from this cell: a space for a blank cell, a space too for a continuation.
    public var grapheme: Character {
        get {
            if utf8 >> 56 == 1, utf8 & 0xFF < 0x80 { return Character(Unicode.Scalar(UInt8(utf8 & 0xFF))) }
            var bytes: [UInt8] = []
            appendUTF8(to: &bytes)
            return String(decoding: bytes, as: UTF8.self).first ?? " "
        }
        set {
            let utf8 = newValue.utf8
            bits &= ~4
            if utf8.count > 1 || utf8.first.map({ $0 >= 0x80 }) == true, DisplayWidth.isUncertain(newValue) {
                bits |= 4
            }
            guard utf8.count > 7 else {
                var packed = UInt64(utf8.count) << 56
                for (index, byte) in utf8.enumerated() { packed |= UInt64(byte) << (8 * UInt64(index)) }
                self.utf8 = packed
                return
            }
            if let number = Self.longClusters.withLock({ $0.number(of: Self.kept(newValue)) }) {
                self.utf8 = UInt64(number) | Self.longMark << 56
            } else {
                // The table is full: a replacement of the same width keeps the row's layout.
                let width = self.width
                self.grapheme = width == 2 ? "〓" : "\u{FFFD}"
                self.width = width
            }
        }
    }

    /// Appends the cluster's UTF-8 bytes to `output`.
    @inline(__always)
    func appendUTF8(to output: inout [UInt8]) {
        let count = utf8 >> 56
        if count == 1 {
            output.append(UInt8(truncatingIfNeeded: utf8))
            return
        }
        if count == Self.longMark {
            let number = Int(utf8 & 0xFFFF_FFFF)
            output.append(contentsOf: Self.longClusters.withLock { $0.clusters[number] })
            return
        }
        for index in 0..<count { output.append(UInt8(truncatingIfNeeded: utf8 >> (8 * index))) }
    }

    // MARK: - Packing

    /// A style packed as a cell keeps it (bits 3–62).
    static func styleBits(of style: TextStyle) -> UInt64 {
        UInt64(style.attributes.rawValue) << 3 | colorBits(style.foreground) << 11 | colorBits(style.background) << 37
    }

    /// A colour in 26 bits: its kind in the top two, its value below.
    private static func colorBits(_ color: TerminalColor) -> UInt64 {
        switch color {
        case .default: 0
        case .ansi(let index): 1 << 24 | UInt64(index)
        case .indexed(let index): 2 << 24 | UInt64(index)
        case .rgb(let red, let green, let blue): 3 << 24 | UInt64(red) << 16 | UInt64(green) << 8 | UInt64(blue)
        }
    }

    private static func color(_ bits: UInt64) -> TerminalColor {
        let value = bits & 0xFF_FFFF
        switch bits >> 24 & 3 {
        case 1: return .ansi(UInt8(value & 0xFF))
        case 2: return .indexed(UInt8(value & 0xFF))
        case 3:
            return .rgb(UInt8(value >> 16), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF))
        default: return .default
        }
    }

    // MARK: - Long clusters

    /// The long clusters of the process, each once, by number.
    private struct LongClusters {
        var clusters: [[UInt8]] = []
        var numbers: [[UInt8]: UInt32] = [:]

        /// The number of a cluster's bytes, kept now if new; `nil` when the table is full.
        mutating func number(of bytes: [UInt8]) -> UInt32? {
            if let number = numbers[bytes] { return number }
            guard clusters.count < Cell.longClusterLimit else { return nil }
            let number = UInt32(clusters.count)
            clusters.append(bytes)
            numbers[bytes] = number
            return number
        }
    }

    private static let longClusters = Mutex(LongClusters())
}

extension Cell {
    /// Whether the cell draws exactly as `other`: the renderer's diff compares every cell of a frame with it, as
    /// three words.
    @inline(__always)
    func drawsLike(_ other: Cell) -> Bool { self == other }
}
