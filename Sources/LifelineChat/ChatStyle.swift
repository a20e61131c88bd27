import LifelineTerminal

/// The chat's styles, in one place.
enum ChatStyle {
    static let statusConnected = TextStyle(foreground: .ansi(0), background: .ansi(2))
    static let statusWaiting = TextStyle(foreground: .ansi(0), background: .ansi(3))
    static let statusDown = TextStyle(foreground: .ansi(15), background: .ansi(1))
    static let alert = TextStyle(foreground: .ansi(0), background: .ansi(11))
    static let dim = TextStyle(attributes: .dim)
    static let bold = TextStyle(attributes: .bold)
    static let title = TextStyle(attributes: [.bold, .underline])
    static let selected = TextStyle(attributes: .reverse)
    static let openChat = TextStyle(foreground: .ansi(15), background: .ansi(4), attributes: .bold)
    static let unread = TextStyle(attributes: .bold)
    static let mention = TextStyle(foreground: .ansi(9), attributes: .bold)
    static let gap = TextStyle(foreground: .ansi(3))
    static let divider = TextStyle(foreground: .ansi(9))
    static let marker = TextStyle(foreground: .ansi(6))
    static let failed = TextStyle(foreground: .ansi(9))
    static let pending = TextStyle(attributes: .dim)
    static let error = TextStyle(foreground: .ansi(9), attributes: .bold)
    static let field = TextStyle(attributes: .underline)
    static let focusedField = TextStyle(attributes: [.underline, .bold])
    static let key = TextStyle(foreground: .ansi(6), attributes: .bold)
    static let separator = TextStyle(foreground: .ansi(8))
    static let overlay = TextStyle(foreground: .default, background: .ansi(0))

    /// A colour per author, stable across runs: the same name always has the same colour.
    static func author(_ id: String, isSelf: Bool) -> TextStyle {
        if isSelf { return TextStyle(foreground: .ansi(2), attributes: .bold) }
        let palette: [UInt8] = [4, 5, 6, 12, 13, 14, 3, 10]
        var hash: UInt32 = 2_166_136_261
        for byte in id.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return TextStyle(foreground: .ansi(palette[Int(hash % UInt32(palette.count))]), attributes: .bold)
    }
}
