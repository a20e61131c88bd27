import LifelineTerminal

/// A small terminal of the tests' own: a VT parser that applies what the renderer writes (cursor moves, erases,
/// SGR, text with autowrap, the scrolling region with SU, SD, IND and RI) to a screen of cells, so a test compares the screen a terminal would show with the
/// grid that was meant. Anything it does not know is recorded in ``unsupported`` (a test expects none).
///
/// `width` is how this terminal measures a cluster: ``DisplayWidth`` by default, or a disagreeing one (a terminal
/// on an old `wcwidth` table) to check that a disagreement stays within one glyph.
struct TestTerminalEmulator {
    struct Screen {
        var grapheme: Character
        var width: Int
        var style: TextStyle
    }

    let rows: Int
    let columns: Int
    var cells: [Screen]
    var row = 0
    var column = 0
    var pendingWrap = false
    var style = TextStyle.plain
    var cursorVisible = true
    var synchronized = false
    var unsupported: [String] = []
    var scrollTop = 0
    var scrollBottom: Int? = nil
    var width: (Character) -> Int = { DisplayWidth.columns(of: $0) }
    private var bytes: [UInt8] = []

    init(size: TerminalSize) {
        rows = size.rows
        columns = size.columns
        cells = Array(repeating: Screen(grapheme: " ", width: 1, style: .plain), count: size.rows * size.columns)
    }

    /// Whether every cell shows what `grid` holds (clusters, continuations and styles).
    func shows(_ grid: Grid) -> Bool { mismatches(grid).isEmpty }

    /// The cells (row, column) that differ from `grid`.
    func mismatches(_ grid: Grid) -> [(Int, Int)] {
        var result: [(Int, Int)] = []
        for row in 0..<rows {
            for column in 0..<columns {
                let expected = grid[row, column]
                let shown = cells[row * columns + column]
                let same =
                    expected.isContinuation
                    ? shown.width == 0 && shown.style == expected.style
                    : shown.width != 0 && shown.grapheme == expected.grapheme && shown.style == expected.style
                if !same { result.append((row, column)) }
            }
        }
        return result
    }

    /// The text of a row, as ``Grid/text(row:)`` gives it.
    func text(row: Int) -> String {
        var line = ""
        for column in 0..<columns where cells[row * columns + column].width != 0 {
            line.append(cells[row * columns + column].grapheme)
        }
        while line.last == " " { line.removeLast() }
        return line
    }

    mutating func feed(_ input: [UInt8]) {
        bytes.append(contentsOf: input)
        var index = 0
        var text: [UInt8] = []
        func flushText(_ emulator: inout TestTerminalEmulator) {
            guard !text.isEmpty else { return }
            for character in String(decoding: text, as: UTF8.self) { emulator.put(character) }
            text.removeAll()
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 0x1B:
                flushText(&self)
                guard index + 1 < bytes.count else {
                    bytes = Array(bytes[index...])
                    return
                }
                if bytes[index + 1] == UInt8(ascii: "[") {
                    var end = index + 2
                    while end < bytes.count, !(0x40...0x7E).contains(bytes[end]) { end += 1 }
                    guard end < bytes.count else {
                        bytes = Array(bytes[index...])
                        return
                    }
                    csi(body: String(decoding: bytes[(index + 2)..<end], as: UTF8.self), final: bytes[end])
                    index = end + 1
                } else {
                    escape(bytes[index + 1])
                    index += 2
                }
            case 0x0D:
                flushText(&self)
                column = 0
                pendingWrap = false
                index += 1
            case 0x0A:
                flushText(&self)
                lineFeed()
                index += 1
            case 0x00..<0x20, 0x7F:
                flushText(&self)
                unsupported.append("control \(byte)")
                index += 1
            default:
                text.append(byte)
                index += 1
            }
        }
        flushText(&self)
        bytes = []
    }

    /// An escape sequence of two bytes: IND (`ESC D`), RI (`ESC M`) and NEL (`ESC E`) move the cursor a row down or
    /// up and scroll the scrolling region when it stands on its margin.
    private mutating func escape(_ final: UInt8) {
        switch final {
        case UInt8(ascii: "D"): lineFeed()
        case UInt8(ascii: "E"):
            column = 0
            lineFeed()
        case UInt8(ascii: "M"): reverseIndex()
        default: unsupported.append("ESC \(Character(Unicode.Scalar(final)))")
        }
    }

    /// A row down; on the scrolling region's bottom margin the region scrolls up instead (below the region, at the
    /// screen's last row, nothing moves).
    private mutating func lineFeed() {
        pendingWrap = false
        if row == (scrollBottom ?? rows - 1) {
            scroll(up: 1)
        } else if row < rows - 1 {
            row += 1
        }
    }

    /// A row up; on the scrolling region's top margin the region scrolls down instead.
    private mutating func reverseIndex() {
        pendingWrap = false
        if row == scrollTop {
            scroll(up: -1)
        } else if row > 0 {
            row -= 1
        }
    }

    private mutating func put(_ character: Character) {
        let width = width(character)
        guard width > 0 else { return }
        if pendingWrap || column + width > columns {
            column = 0
            lineFeed()
        }
        clearHalves(row: row, column: column, count: width)
        cells[row * columns + column] = Screen(grapheme: character, width: width, style: style)
        for extra in 1..<max(1, width) where column + extra < columns {
            cells[row * columns + column + extra] = Screen(grapheme: " ", width: 0, style: style)
        }
        if column + width >= columns {
            column = columns - 1
            pendingWrap = true
        } else {
            column += width
        }
    }

    /// A write over part of a wide cluster blanks the rest of it, as terminals do.
    private mutating func clearHalves(row: Int, column: Int, count: Int) {
        let base = row * columns
        if cells[base + column].width == 0 {
            var lead = column - 1
            while lead >= 0, cells[base + lead].width == 0 { lead -= 1 }
            if lead >= 0 { cells[base + lead] = Screen(grapheme: " ", width: 1, style: cells[base + lead].style) }
        }
        var next = column + count
        while next < columns, cells[base + next].width == 0 {
            cells[base + next] = Screen(grapheme: " ", width: 1, style: cells[base + next].style)
            next += 1
        }
    }

    private mutating func erase(row: Int, from start: Int, to end: Int) {
        guard start < end else { return }
        clearHalves(row: row, column: start, count: end - start)
        for column in start..<end {
            cells[row * columns + column] = Screen(
                grapheme: " ", width: 1, style: TextStyle(background: style.background))
        }
    }

    private mutating func csi(body: String, final: UInt8) {
        let isPrivate = body.first == "?"
        let numbers = (isPrivate ? String(body.dropFirst()) : body).split(
            separator: ";", omittingEmptySubsequences: false
        )
        .map { Int($0) ?? 0 }
        func number(_ index: Int, default value: Int) -> Int {
            index < numbers.count && numbers[index] != 0 ? numbers[index] : value
        }
        pendingWrap = pendingWrap && final == UInt8(ascii: "m")
        switch (isPrivate, Character(Unicode.Scalar(final))) {
        case (true, "h"), (true, "l"):
            let on = final == UInt8(ascii: "h")
            for mode in numbers {
                switch mode {
                case 25: cursorVisible = on
                case 2026: synchronized = on
                case 1049, 1000, 1002, 1006, 2004: break
                default: unsupported.append("mode \(mode)")
                }
            }
        case (false, "H"), (false, "f"):
            row = min(rows - 1, number(0, default: 1) - 1)
            column = min(columns - 1, number(1, default: 1) - 1)
        case (false, "C"): column = min(columns - 1, column + number(0, default: 1))
        case (false, "D"): column = max(0, column - number(0, default: 1))
        case (false, "A"): row = max(0, row - number(0, default: 1))
        case (false, "B"): row = min(rows - 1, row + number(0, default: 1))
        case (false, "G"): column = min(columns - 1, number(0, default: 1) - 1)
        case (false, "X"): erase(row: row, from: column, to: min(columns, column + number(0, default: 1)))
        case (false, "K"):
            switch number(0, default: 0) {
            case 0: erase(row: row, from: column, to: columns)
            case 1: erase(row: row, from: 0, to: column + 1)
            default: erase(row: row, from: 0, to: columns)
            }
        case (false, "J"):
            if number(0, default: 0) == 2 {
                for line in 0..<rows { erase(row: line, from: 0, to: columns) }
            } else {
                unsupported.append("ED \(body)")
            }
        case (false, "m"): sgr(numbers)
        case (false, "r"):
            scrollTop = body.isEmpty ? 0 : number(0, default: 1) - 1
            scrollBottom = body.isEmpty ? nil : number(1, default: rows) - 1
            row = 0
            column = 0
        case (false, "S"): scroll(up: number(0, default: 1))
        case (false, "T"): scroll(up: -number(0, default: 1))
        default: unsupported.append("CSI \(body)\(Character(Unicode.Scalar(final)))")
        }
    }

    /// Moves the rows of the scrolling region up (or down, for a negative count), bringing in blank rows in the
    /// current background.
    private mutating func scroll(up count: Int) {
        let bottom = scrollBottom ?? rows - 1
        let blank = Screen(grapheme: " ", width: 1, style: TextStyle(background: style.background))
        var region = (scrollTop...bottom).map { Array(cells[($0 * columns)..<(($0 + 1) * columns)]) }
        let moved = min(abs(count), region.count)
        if count > 0 {
            region.removeFirst(moved)
            region.append(contentsOf: repeatElement(Array(repeating: blank, count: columns), count: moved))
        } else {
            region.removeLast(moved)
            region.insert(contentsOf: repeatElement(Array(repeating: blank, count: columns), count: moved), at: 0)
        }
        for (offset, line) in region.enumerated() {
            cells.replaceSubrange(((scrollTop + offset) * columns)..<((scrollTop + offset + 1) * columns), with: line)
        }
    }

    private mutating func sgr(_ numbers: [Int]) {
        var index = 0
        func color(_ numbers: [Int], _ index: inout Int) -> TerminalColor? {
            guard index + 1 < numbers.count else { return nil }
            if numbers[index + 1] == 5, index + 2 < numbers.count {
                index += 2
                return .indexed(UInt8(numbers[index]))
            }
            if numbers[index + 1] == 2, index + 4 < numbers.count {
                index += 4
                return .rgb(UInt8(numbers[index - 2]), UInt8(numbers[index - 1]), UInt8(numbers[index]))
            }
            return nil
        }
        while index < numbers.count {
            let code = numbers[index]
            switch code {
            case 0: style = .plain
            case 1: style.attributes.insert(.bold)
            case 2: style.attributes.insert(.dim)
            case 3: style.attributes.insert(.italic)
            case 4: style.attributes.insert(.underline)
            case 7: style.attributes.insert(.reverse)
            case 9: style.attributes.insert(.strikethrough)
            case 30...37: style.foreground = .ansi(UInt8(code - 30))
            case 90...97: style.foreground = .ansi(UInt8(code - 90 + 8))
            case 39: style.foreground = .default
            case 40...47: style.background = .ansi(UInt8(code - 40))
            case 100...107: style.background = .ansi(UInt8(code - 100 + 8))
            case 49: style.background = .default
            case 38: if let color = color(numbers, &index) { style.foreground = color }
            case 48: if let color = color(numbers, &index) { style.background = color }
            default: unsupported.append("SGR \(code)")
            }
            index += 1
        }
    }
}
