/// How many terminal columns a grapheme cluster takes.
///
/// Widths are per cluster (`Character`), never per scalar: `👍🏽` is one two-column cluster of two scalars, where
/// `wcwidth` would give it four columns. The cluster's width is its base's: the first scalar that takes a column
/// (a prepended format character, a zero-width joiner or a tag takes none), two columns when the base is East Asian
/// Wide or Fullwidth or has the emoji presentation, or when a variation selector 16 asks an emoji base for it; one
/// when a variation selector 15 asks an emoji base for its text presentation. The ranges come from a table
/// generated from the Unicode Character Database (``unicodeVersion``) by `Tools/generate-width-table.py`, so the
/// answer does not change with the Swift runtime's own Unicode version.
public enum DisplayWidth {
    /// The columns `character` takes: 0 (nothing visible to place), 1, or 2; never negative.
    ///
    /// - Parameter character: A grapheme cluster.
    public static func columns(of character: Character) -> Int {
        if let ascii = character.asciiValue { return ascii >= 0x20 && ascii != 0x7F ? 1 : 0 }
        var base: UInt32?
        var presentation: UInt32?
        for scalar in character.unicodeScalars {
            let value = scalar.value
            if value == 0xFE0F || value == 0xFE0E {
                presentation = presentation ?? value
            } else if base == nil, !isZeroWidth(value) {
                base = value
            }
        }
        guard let base else { return 0 }
        if let presentation, contains(emojiVariationBases, base) { return presentation == 0xFE0F ? 2 : 1 }
        return contains(wideRanges, base) ? 2 : 1
    }

    /// The columns a text takes, cluster by cluster.
    ///
    /// - Parameter text: The text, measured as the grapheme clusters it is made of.
    public static func columns(of text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + columns(of: $1) }
    }

    /// Whether terminals disagree on the cluster's width, so that a renderer places the cell after it by absolute
    /// position: a terminal that draws it otherwise then smudges this one glyph, not the rest of the row.
    ///
    /// Uncertain are a variation selector on an emoji base (`❤️`), a zero-width joiner sequence (`👨‍👩‍👧`), a
    /// skin tone (`👍🏽`), a flag (`🇫🇷`), a keycap (`1️⃣`), a tag sequence (`🏴󠁧󠁢󠁳󠁣󠁴󠁿`), a cluster with a
    /// spacing mark (`कि`, one column here, two where a terminal counts scalars), and a wide character assigned
    /// in Unicode 13.0 or later (`🫨`), which terminals on an older `wcwidth` table draw one column wide or as
    /// minus one.
    ///
    /// - Parameter character: A grapheme cluster.
    public static func isUncertain(_ character: Character) -> Bool {
        if character.asciiValue != nil { return false }
        let scalars = character.unicodeScalars
        var regionalIndicators = 0
        var base: UInt32?
        for scalar in scalars {
            let value = scalar.value
            switch value {
            case 0xFE0E, 0xFE0F:
                if let base, contains(emojiVariationBases, base) { return true }
            case 0x200D, 0x20E3, 0x1F3FB...0x1F3FF, 0xE0020...0xE007F:
                if scalars.count > 1 { return true }
            case 0x1F1E6...0x1F1FF:
                regionalIndicators += 1
                if regionalIndicators > 1 { return true }
            default:
                if base == nil, !isZeroWidth(value) {
                    base = value
                    if contains(recentWideRanges, value) { return true }
                } else if scalar.properties.generalCategory == .spacingMark {
                    return true
                }
            }
        }
        return false
    }

    /// Whether a scalar takes no column of its own: a control, a combining or enclosing mark, a format character
    /// (the zero-width joiner, the bidi marks, the tags), or a Hangul medial vowel or final consonant.
    static func isZeroWidth(_ value: UInt32) -> Bool {
        if value < 0x20 || (0x7F...0x9F).contains(value) { return true }
        if value < 0xAD { return false }
        return contains(zeroWidthRanges, value)
    }

    /// Whether a scalar is East Asian Wide or Fullwidth or has the emoji presentation.
    static func isWide(_ scalar: Unicode.Scalar) -> Bool { contains(wideRanges, scalar.value) }

    /// Whether `value` lies in one of the table's ranges: a binary search over its sorted (first, last) pairs.
    static func contains(_ table: [UInt32], _ value: UInt32) -> Bool {
        guard let first = table.first, value >= first, value <= table[table.count - 1] else { return false }
        var low = 0
        var high = table.count / 2 - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if table[2 * middle] <= value { low = middle } else { high = middle - 1 }
        }
        return value <= table[2 * low + 1]
    }
}
