public import LifelineTerminal

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What the chat's reducer takes in: a key, a paste, a click, a new size, the time, or new values from the
/// library's models.
public enum ChatEvent: Sendable {
    /// A key the person pressed.
    case key(ChatKey)
    /// Text pasted as one piece (bracketed paste): typed into the focused field, newlines kept in the composer.
    case paste(String)
    /// A mouse click at a row and column of the screen (a chat in the list opens).
    case click(row: Int, column: Int)
    /// The mouse wheel turned: up (towards older messages) or down.
    case wheel(up: Bool)
    /// The terminal's new size.
    case resize(TerminalSize)
    /// Time passed: countdowns on screen move on.
    case tick(Date)
    /// The library's models changed: their new values.
    case models(ChatModels)
}
