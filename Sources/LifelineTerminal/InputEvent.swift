/// What the person at the terminal did: a key, a paste, the mouse, or a new terminal size.
public enum InputEvent: Hashable, Sendable {
    /// A key press.
    case key(KeyPress)
    /// A bracketed paste: the pasted text, in one event however long (line ends as `\n`).
    case paste(String)
    /// A mouse press, release, drag or wheel turn (with mouse reporting on).
    case mouse(MouseEvent)
    /// The terminal's new size (SIGWINCH): the next frame is a full repaint.
    case resize(TerminalSize)
}

/// A key and the modifiers held with it.
///
/// A printable key is ``Key/character(_:)`` with no modifier, or with ``KeyModifiers/alt`` when it came after an
/// ESC; a Ctrl-letter is the lowercase letter with ``KeyModifiers/control`` (Ctrl-C is `.character("c")`,
/// `[.control]`), except Ctrl-I, Ctrl-M and Ctrl-H, which terminals send as Tab, Enter and Backspace.
public struct KeyPress: Hashable, Sendable {
    /// The key.
    public var key: Key
    /// The modifiers held.
    public var modifiers: KeyModifiers

    /// A key press from its key and modifiers.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - modifiers: The modifiers held (none by default).
    public init(_ key: Key, modifiers: KeyModifiers = []) {
        self.key = key
        self.modifiers = modifiers
    }

    /// A printable character typed with no modifier.
    ///
    /// - Parameter character: The character.
    public static func character(_ character: Character) -> KeyPress { KeyPress(.character(character)) }

    /// Ctrl and a character (Ctrl-C is `.control("c")`).
    ///
    /// - Parameter character: The character, lowercase for a letter.
    public static func control(_ character: Character) -> KeyPress {
        KeyPress(.character(character), modifiers: .control)
    }

    /// Alt (or Meta, or ESC before it) and a character.
    ///
    /// - Parameter character: The character.
    public static func alt(_ character: Character) -> KeyPress { KeyPress(.character(character), modifiers: .alt) }
}

/// A key of the keyboard.
public enum Key: Hashable, Sendable {
    /// A character key (one Unicode scalar as the terminal sent it; a composer joins them into clusters).
    case character(Character)
    /// Enter (Return).
    case enter
    /// Tab (Shift-Tab is `.tab` with ``KeyModifiers/shift``).
    case tab
    /// Backspace.
    case backspace
    /// Escape, alone (told from an escape sequence by the parser's timeout).
    case escape
    /// The up arrow.
    case up
    /// The down arrow.
    case down
    /// The left arrow.
    case left
    /// The right arrow.
    case right
    /// Home.
    case home
    /// End.
    case end
    /// Page Up.
    case pageUp
    /// Page Down.
    case pageDown
    /// Insert.
    case insert
    /// Delete (forward).
    case delete
    /// A function key, F1 to F12 (1 to 12).
    case function(Int)
}

/// The modifiers held with a key or a mouse event.
public struct KeyModifiers: OptionSet, Hashable, Sendable {
    /// The modifiers' bits.
    public let rawValue: UInt8
    /// Modifiers from their bits.
    ///
    /// - Parameter rawValue: The bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Shift.
    public static let shift = KeyModifiers(rawValue: 1 << 0)
    /// Alt, Option or Meta (or an ESC sent before the key).
    public static let alt = KeyModifiers(rawValue: 1 << 1)
    /// Control.
    public static let control = KeyModifiers(rawValue: 1 << 2)
}

/// A mouse event reported in the SGR encoding (mode 1006): what happened, where, with which modifiers.
public struct MouseEvent: Hashable, Sendable {
    /// What the mouse did.
    public enum Action: Hashable, Sendable {
        /// A button went down.
        case press(MouseButton)
        /// A button came up.
        case release(MouseButton)
        /// The mouse moved with a button down (mode 1002).
        case drag(MouseButton)
        /// The mouse moved with no button down (mode 1003, not enabled by ``Terminal``).
        case move
        /// The wheel turned up (away from the person).
        case wheelUp
        /// The wheel turned down.
        case wheelDown
        /// The wheel (or a trackpad) turned left.
        case wheelLeft
        /// The wheel (or a trackpad) turned right.
        case wheelRight
    }

    /// What the mouse did.
    public var action: Action
    /// The row under the pointer, from 0 at the top.
    public var row: Int
    /// The column under the pointer, from 0 at the left.
    public var column: Int
    /// The modifiers held.
    public var modifiers: KeyModifiers

    /// A mouse event from its parts.
    ///
    /// - Parameters:
    ///   - action: What the mouse did.
    ///   - row: The row, from 0.
    ///   - column: The column, from 0.
    ///   - modifiers: The modifiers held (none by default).
    public init(_ action: Action, row: Int, column: Int, modifiers: KeyModifiers = []) {
        self.action = action
        self.row = row
        self.column = column
        self.modifiers = modifiers
    }
}

/// A mouse button.
public enum MouseButton: Hashable, Sendable {
    /// The left (primary) button.
    case left
    /// The middle button (or wheel click).
    case middle
    /// The right (secondary) button.
    case right
    /// Another button, by the number the terminal reports (8 to 11 for the extra buttons).
    case other(Int)
}
