public import LifelineTerminal

/// A line editor with readline's keys: the chat's composer, and each field of the login screen.
///
/// The text is a list of grapheme clusters with a cursor between two of them; a newline is a cluster like any
/// other, so a multi-line paste edits as one text. Killed text goes to a kill buffer that Ctrl-Y yanks back.
public struct Composer: Hashable, Sendable {
    /// The text, cluster by cluster.
    public private(set) var characters: [Character]
    /// Where the cursor stands: before the cluster at this index (the count: at the end).
    public private(set) var cursor: Int
    /// What the last kill (Ctrl-K, Ctrl-U, Ctrl-W, Alt-D) removed.
    public private(set) var killBuffer: [Character] = []

    /// A composer holding `text`, the cursor at its end.
    public init(_ text: String = "") {
        characters = Array(text)
        cursor = characters.count
    }

    /// The text.
    public var text: String { String(characters) }

    /// Whether there is no text.
    public var isEmpty: Bool { characters.isEmpty }

    /// Inserts text at the cursor and moves the cursor after it.
    public mutating func insert(_ text: String) {
        let inserted = Array(text)
        characters.insert(contentsOf: inserted, at: cursor)
        cursor += inserted.count
    }

    /// Empties the composer.
    public mutating func clear() {
        characters = []
        cursor = 0
    }

    /// Applies a readline key; whether the key was one (the text or the cursor may not have moved).
    ///
    /// Ctrl-A/Home, Ctrl-E/End, Ctrl-B/←, Ctrl-F/→, Alt-B and Alt-F (a word), Backspace/Ctrl-H, Delete/Ctrl-D,
    /// Ctrl-W and Alt-Backspace (the word before), Alt-D (the word after), Ctrl-U (to the line's start), Ctrl-K (to
    /// its end), Ctrl-Y (yank), Ctrl-T (transpose), ↑ and ↓ between the lines of a multi-line text.
    public mutating func apply(_ key: KeyPress) -> Bool {
        let control = key.modifiers.contains(.control)
        let alt = key.modifiers.contains(.alt)
        switch (key.key, control, alt) {
        case (.home, _, _), (.character("a"), true, false): cursor = lineStart(of: cursor)
        case (.end, _, _), (.character("e"), true, false): cursor = lineEnd(of: cursor)
        case (.left, false, false), (.character("b"), true, false): cursor = max(0, cursor - 1)
        case (.right, false, false), (.character("f"), true, false): cursor = min(characters.count, cursor + 1)
        case (.character("b"), false, true), (.left, true, _), (.left, _, true): cursor = wordStart(before: cursor)
        case (.character("f"), false, true), (.right, true, _), (.right, _, true): cursor = wordEnd(after: cursor)
        case (.backspace, false, false), (.character("h"), true, false):
            guard cursor > 0 else { return true }
            characters.remove(at: cursor - 1)
            cursor -= 1
        case (.delete, _, _), (.character("d"), true, false):
            guard cursor < characters.count else { return true }
            characters.remove(at: cursor)
        case (.character("w"), true, false), (.backspace, _, true):
            kill(wordStart(before: cursor)..<cursor)
        case (.character("d"), false, true):
            kill(cursor..<wordEnd(after: cursor))
        case (.character("u"), true, false):
            kill(lineStart(of: cursor)..<cursor)
        case (.character("k"), true, false):
            let end = lineEnd(of: cursor)
            // At the end of a line, Ctrl-K joins the next one, as readline's does in a multi-line buffer.
            kill(cursor..<(end == cursor && end < characters.count ? end + 1 : end))
        case (.character("y"), true, false):
            characters.insert(contentsOf: killBuffer, at: cursor)
            cursor += killBuffer.count
        case (.character("t"), true, false):
            guard characters.count >= 2, cursor > 0 else { return true }
            let at = cursor == characters.count ? cursor - 1 : cursor
            characters.swapAt(at - 1, at)
            cursor = min(characters.count, at + 1)
        case (.up, false, false): moveVertically(by: -1)
        case (.down, false, false): moveVertically(by: 1)
        default: return false
        }
        return true
    }

    /// Whether the cursor is on the text's first line (↑ there leaves the composer to the caller).
    public var isOnFirstLine: Bool { !characters[..<cursor].contains("\n") }

    /// Whether the cursor is on the text's last line.
    public var isOnLastLine: Bool { !characters[cursor...].contains("\n") }

    private mutating func kill(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        killBuffer = Array(characters[range])
        characters.removeSubrange(range)
        cursor = range.lowerBound
    }

    private func lineStart(of index: Int) -> Int {
        var at = index
        while at > 0, characters[at - 1] != "\n" { at -= 1 }
        return at
    }

    private func lineEnd(of index: Int) -> Int {
        var at = index
        while at < characters.count, characters[at] != "\n" { at += 1 }
        return at
    }

    private func wordStart(before index: Int) -> Int {
        var at = index
        while at > 0, !isWord(characters[at - 1]) { at -= 1 }
        while at > 0, isWord(characters[at - 1]) { at -= 1 }
        return at
    }

    private func wordEnd(after index: Int) -> Int {
        var at = index
        while at < characters.count, !isWord(characters[at]) { at += 1 }
        while at < characters.count, isWord(characters[at]) { at += 1 }
        return at
    }

    private func isWord(_ character: Character) -> Bool { character.isLetter || character.isNumber }

    private mutating func moveVertically(by lines: Int) {
        let start = lineStart(of: cursor)
        let column = cursor - start
        if lines < 0 {
            guard start > 0 else { return }
            let previous = lineStart(of: start - 1)
            cursor = min(previous + column, start - 1)
        } else {
            let end = lineEnd(of: cursor)
            guard end < characters.count else { return }
            let next = end + 1
            cursor = min(next + column, lineEnd(of: next))
        }
    }
}
