import LifelineTerminal

extension KeyPress {
    /// The key as the help overlay names it: `Ctrl-N`, `Alt-1`, `Alt-↑`, `F5`, `PgUp`.
    var name: String {
        var name = ""
        if modifiers.contains(.control) { name += "Ctrl-" }
        if modifiers.contains(.alt) { name += "Alt-" }
        if modifiers.contains(.shift) { name += "Shift-" }
        switch key {
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
