public import LifelineTerminal

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What the chat's reducer takes in: a key, a paste, a click, a new size, the time, or new values from the
/// library's models.
public enum ChatEvent: Sendable {
    /// A key the person pressed (Ctrl-C is `.control("c")`).
    case key(KeyPress)
    /// Text pasted as one piece (bracketed paste): typed into the focused field, newlines kept in the composer.
    case paste(String)
    /// The mouse: a left click on a chat in the list opens it; the wheel scrolls the timeline (up: older).
    case mouse(MouseEvent)
    /// The terminal's new size.
    case resize(TerminalSize)
    /// Time passed: countdowns on screen move on.
    case tick(Date)
    /// The library's models changed: their new values.
    case models(ChatModels)
}

extension ChatEvent {
    /// The terminal's event as the reducer takes it.
    ///
    /// - Parameter input: A key, a paste, a mouse event or a new size from LifelineTerminal's parser.
    public init(_ input: InputEvent) {
        switch input {
        case .key(let key): self = .key(key)
        case .paste(let text): self = .paste(text)
        case .mouse(let mouse): self = .mouse(mouse)
        case .resize(let size): self = .resize(size)
        }
    }
}
