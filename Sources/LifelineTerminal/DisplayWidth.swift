/// How many terminal columns a grapheme cluster takes.
///
/// Widths are per cluster (`Character`), never per scalar: `👍🏽` is one two-column cluster of two scalars, where
/// `wcwidth` would give it four columns.
public enum DisplayWidth {
    /// The columns `character` takes: 0 (nothing visible to place), 1, or 2.
    public static func columns(of character: Character) -> Int {
        if let ascii = character.asciiValue { return ascii >= 0x20 && ascii != 0x7F ? 1 : 0 }
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.contains("\u{FE0F}") { return 2 }
        if first.properties.isEmojiPresentation { return 2 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        return isWide(first) ? 2 : 1
    }

    /// The columns a text takes, cluster by cluster.
    public static func columns(of text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + columns(of: $1) }
    }

    /// Whether terminals disagree on the cluster's width (a variation selector 16, a zero-width joiner sequence,
    /// a skin tone, a flag): a renderer places the cell after it by absolute position, so a terminal that draws it
    /// otherwise smudges this one glyph, not the rest of the row.
    public static func isUncertain(_ character: Character) -> Bool {
        let scalars = character.unicodeScalars
        guard scalars.count > 1 else { return false }
        return scalars.contains { scalar in
            scalar == "\u{FE0F}" || scalar == "\u{200D}" || (0x1F3FB...0x1F3FF).contains(scalar.value)
                || (0x1F1E6...0x1F1FF).contains(scalar.value)
        }
    }

    static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F1E6...0x1F1FF,
            0x20000...0x2FFFD, 0x30000...0x3FFFD:
            true
        default: false
        }
    }
}
