/// A key the person pressed, as the chat's reducer reads it: a code and the modifiers held with it.
///
/// The reducer's own type, so that its tests need no terminal: the program maps the terminal layer's input
/// events onto it. A printable key is ``Code/character(_:)`` without modifiers (Shift is part of the character);
/// `Ctrl-N` is `.character("n")` with ``Modifiers/control``.
public struct ChatKey: Hashable, Sendable, CustomStringConvertible {
    /// Which key.
    public enum Code: Hashable, Sendable {
        /// A printable character (a grapheme cluster; a letter with Control or Alt held is lowercase).
        case character(Character)
        /// Enter (Return).
        case enter
        /// Tab.
        case tab
        /// Backspace.
        case backspace
        /// Delete (forward).
        case delete
        /// Escape, alone.
        case escape
        /// The arrow up.
        case up
        /// The arrow down.
        case down
        /// The arrow left.
        case left
        /// The arrow right.
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
        /// A function key, F1 to F12.
        case function(Int)
    }

    /// The modifiers held with a key.
    public struct Modifiers: OptionSet, Hashable, Sendable {
        /// The modifiers' bits.
        public let rawValue: UInt8
        /// Modifiers from their bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Control.
        public static let control = Modifiers(rawValue: 1 << 0)
        /// Alt (Meta, Option).
        public static let alt = Modifiers(rawValue: 1 << 1)
        /// Shift, for keys whose character does not carry it (Shift-Tab, Shift-arrows).
        public static let shift = Modifiers(rawValue: 1 << 2)
    }

    /// Which key.
    public var code: Code
    /// The modifiers held.
    public var modifiers: Modifiers

    /// A key from its code and modifiers.
    public init(_ code: Code, modifiers: Modifiers = []) {
        self.code = code
        self.modifiers = modifiers
    }

    /// A printable character typed without modifiers.
    public static func character(_ character: Character) -> ChatKey { ChatKey(.character(character)) }

    /// Control with a letter (`ctrl("n")` is Ctrl-N).
    public static func ctrl(_ letter: Character) -> ChatKey {
        ChatKey(.character(Character(letter.lowercased())), modifiers: .control)
    }

    /// Alt with a character or a key.
    public static func alt(_ character: Character) -> ChatKey { ChatKey(.character(character), modifiers: .alt) }

    /// A function key, F1 to F12.
    public static func function(_ number: Int) -> ChatKey { ChatKey(.function(number)) }

    /// The key as the help overlay names it: `Ctrl-N`, `Alt-↑`, `F5`, `PgUp`.
    public var description: String {
        var name = ""
        if modifiers.contains(.control) { name += "Ctrl-" }
        if modifiers.contains(.alt) { name += "Alt-" }
        if modifiers.contains(.shift) { name += "Shift-" }
        switch code {
        case .character(let character):
            name += modifiers.contains(.control) ? character.uppercased() : String(character)
        case .enter: name += "Enter"
        case .tab: name += "Tab"
        case .backspace: name += "Backspace"
        case .delete: name += "Delete"
        case .escape: name += "Esc"
        case .up: name += "↑"
        case .down: name += "↓"
        case .left: name += "←"
        case .right: name += "→"
        case .home: name += "Home"
        case .end: name += "End"
        case .pageUp: name += "PgUp"
        case .pageDown: name += "PgDn"
        case .insert: name += "Insert"
        case .function(let number): name += "F\(number)"
        }
        return name
    }
}
