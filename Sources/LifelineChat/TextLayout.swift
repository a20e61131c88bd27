public import LifelineTerminal

/// A run of text in one style: a piece of a row.
public struct Span: Hashable, Sendable {
    /// The text (made visible when drawn: `Grid/write(_:row:column:style:limit:)` sanitizes it).
    public var text: String
    /// Its style.
    public var style: TextStyle

    /// A span from its text and style.
    public init(_ text: String, _ style: TextStyle = .plain) {
        self.text = text
        self.style = style
    }
}

/// Text laid out in columns: wrapping by display width, cluster by cluster, and truncating with an ellipsis.
///
/// Server text is made visible first (`VisibleText`), so that what is measured is what the grid draws: an
/// escape sequence is as wide as its visible stand-ins, and a bidi override cannot turn a row around.
public enum TextLayout {
    /// The lines `text` takes in `width` columns: its own newlines kept, each line wrapped at the last space that
    /// fits (or cut between clusters when a word is wider than the line).
    public static func wrap(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            // Printable ASCII (most messages) has nothing to drop or replace.
            let visible =
                paragraph.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F })
                ? String(paragraph) : VisibleText.sanitized(paragraph.replacing("\r", with: ""))
            lines += wrapParagraph(visible, width: width)
        }
        return lines
    }

    private static func wrapParagraph(_ text: String, width: Int) -> [String] {
        if isPrintableASCII(text) { return wrapASCII(text, width: width) }
        var lines: [String] = []
        var line: [Character] = []
        var lineWidth = 0
        var lastSpace: Int?
        for character in text {
            let columns = DisplayWidth.columns(of: character)
            if lineWidth + columns > width, !line.isEmpty {
                if let space = lastSpace, space > 0 {
                    lines.append(String(line[..<space]))
                    line = Array(line[(space + 1)...])
                } else {
                    lines.append(String(line))
                    line = []
                }
                lineWidth = line.reduce(0) { $0 + DisplayWidth.columns(of: $1) }
                lastSpace = line.lastIndex(of: " ")
            }
            if character == " " { lastSpace = line.count }
            line.append(character)
            lineWidth += columns
        }
        lines.append(String(line))
        return lines
    }

    /// ``wrapParagraph(_:width:)`` of printable ASCII, a column a byte: the same lines, cut by bytes.
    private static func wrapASCII(_ text: String, width: Int) -> [String] {
        let bytes = Array(text.utf8)
        var lines: [String] = []
        var start = 0
        var lastSpace: Int?
        var index = 0
        while index < bytes.count {
            if index - start + 1 > width, index > start {
                if let space = lastSpace, space > start {
                    lines.append(String(decoding: bytes[start..<space], as: UTF8.self))
                    start = space + 1
                } else {
                    lines.append(String(decoding: bytes[start..<index], as: UTF8.self))
                    start = index
                }
                // The last space still on the line, for the next break.
                lastSpace = bytes[start..<index].lastIndex(of: 0x20)
                continue
            }
            if bytes[index] == 0x20 { lastSpace = index }
            index += 1
        }
        lines.append(String(decoding: bytes[start...], as: UTF8.self))
        return lines
    }

    /// `text` made visible and cut to `width` columns, an ellipsis standing for what was cut.
    public static func truncate(_ text: String, width: Int) -> String {
        guard width > 0 else { return "" }
        // Printable ASCII, most of a screen's own text, is a column a byte: nothing to replace or measure.
        if isPrintableASCII(text) {
            return text.utf8.count <= width ? text : String(text.utf8.prefix(width - 1))! + "…"
        }
        let visible = VisibleText.sanitized(text.replacing("\n", with: " "))
        guard DisplayWidth.columns(of: visible) > width else { return visible }
        var result = ""
        var used = 0
        for character in visible {
            let columns = DisplayWidth.columns(of: character)
            if used + columns > width - 1 { break }
            result.append(character)
            used += columns
        }
        return result + "…"
    }

    /// The columns a text takes once made visible.
    public static func columns(of text: String) -> Int {
        isPrintableASCII(text) ? text.utf8.count : DisplayWidth.columns(of: VisibleText.sanitized(text))
    }

    /// Whether every byte of `text` is printable ASCII (a space to a tilde).
    static func isPrintableASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }
}

extension Grid {
    /// Writes spans one after another from `column` of `row`, up to `limit` columns; returns the columns taken.
    @discardableResult
    mutating func write(_ spans: [Span], row: Int, column: Int, limit: Int) -> Int {
        var at = column
        for span in spans {
            let left = column + limit - at
            guard left > 0 else { break }
            at += write(span.text, row: row, column: at, style: span.style, limit: left)
        }
        return at - column
    }
}
