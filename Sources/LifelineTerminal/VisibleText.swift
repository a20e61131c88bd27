/// Server text made safe to draw: nothing in it can reach the terminal as a control sequence or turn the
/// direction of the text around it.
///
/// C0 controls (ESC among them) become their Control Pictures (`␛`), DEL becomes `␡`, and C1 controls, the
/// bidirectional embeddings, overrides, isolates and marks become `�`: each stays visible, one column wide, where
/// it was.
public enum VisibleText {
    /// The text with every control and bidirectional formatting character replaced by a visible character.
    public static func sanitized(_ text: some StringProtocol) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(replacement(for: scalar) ?? scalar)
        }
        return String(scalars)
    }

    /// The visible stand-in for a scalar that must not reach the terminal, or `nil` for one that may.
    public static func replacement(for scalar: Unicode.Scalar) -> Unicode.Scalar? {
        switch scalar.value {
        case 0x00...0x1F: Unicode.Scalar(0x2400 + scalar.value)
        case 0x7F: "\u{2421}"
        case 0x80...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: "\u{FFFD}"
        default: nil
        }
    }

    /// Whether the text holds nothing ``sanitized(_:)`` would replace.
    public static func isSafe(_ text: some StringProtocol) -> Bool {
        text.unicodeScalars.allSatisfy { replacement(for: $0) == nil }
    }
}
