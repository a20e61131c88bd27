/// A terminal colour: the terminal's default, one of the 16 ANSI colours, one of the 256-colour palette, or a
/// 24-bit colour.
public enum TerminalColor: Hashable, Sendable {
    /// The terminal's own foreground or background.
    case `default`
    /// One of the 16 ANSI colours (0–7 normal, 8–15 bright).
    case ansi(UInt8)
    /// One of the 256 colours of the xterm palette.
    case indexed(UInt8)
    /// A 24-bit colour.
    case rgb(UInt8, UInt8, UInt8)
}

/// How a cell is drawn: its colours and attributes.
public struct TextStyle: Hashable, Sendable {
    /// Attributes a terminal draws a cell with.
    public struct Attributes: OptionSet, Hashable, Sendable {
        /// The attributes' bits.
        public let rawValue: UInt8
        /// Attributes from their bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Bold (SGR 1).
        public static let bold = Attributes(rawValue: 1 << 0)
        /// Faint (SGR 2).
        public static let dim = Attributes(rawValue: 1 << 1)
        /// Italic (SGR 3).
        public static let italic = Attributes(rawValue: 1 << 2)
        /// Underlined (SGR 4).
        public static let underline = Attributes(rawValue: 1 << 3)
        /// Foreground and background swapped (SGR 7).
        public static let reverse = Attributes(rawValue: 1 << 4)
        /// Crossed out (SGR 9).
        public static let strikethrough = Attributes(rawValue: 1 << 5)
    }

    /// The foreground colour.
    public var foreground: TerminalColor
    /// The background colour.
    public var background: TerminalColor
    /// The attributes.
    public var attributes: Attributes

    /// A style from its colours and attributes.
    public init(
        foreground: TerminalColor = .default, background: TerminalColor = .default, attributes: Attributes = []
    ) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }

    /// The terminal's default colours, no attribute.
    public static let plain = TextStyle()
}
