/// What a ``Terminal`` turns on while it is active.
///
/// Raw mode, the alternate screen, bracketed paste and the hidden cursor are always on; the mouse is on by default
/// and ``noMouse`` leaves it off (so the terminal's own selection works, `lifeline chat --no-mouse`).
public struct TerminalOptions: Hashable, Sendable {
    /// Whether mouse reports are turned on: presses, releases, drags and the wheel in the SGR encoding (modes
    /// 1000, 1002 and 1006).
    public var mouse: Bool
    /// How long the input reader waits after a lone ESC for the rest of an escape sequence before it takes the ESC
    /// as the Escape key (50 ms by default, as vim's `ttimeoutlen` and tcell).
    public var escapeTimeout: Duration

    /// Options from their parts.
    ///
    /// - Parameters:
    ///   - mouse: Whether mouse reports are on.
    ///   - escapeTimeout: How long a lone ESC waits for the rest of a sequence.
    public init(mouse: Bool = true, escapeTimeout: Duration = .milliseconds(50)) {
        self.mouse = mouse
        self.escapeTimeout = escapeTimeout
    }

    /// Raw mode, the alternate screen, bracketed paste and the mouse.
    public static let standard = TerminalOptions()
    /// As ``standard`` with the mouse left off.
    public static let noMouse = TerminalOptions(mouse: false)

    /// The bytes that turn the modes on: the alternate screen, the cursor hidden, bracketed paste, and the mouse
    /// when asked for.
    public var enterSequence: [UInt8] {
        var text = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?2004h"
        if mouse { text += "\u{1B}[?1000h\u{1B}[?1002h\u{1B}[?1006h" }
        return Array(text.utf8)
    }

    /// The bytes that turn every mode ``enterSequence`` may have turned on off again, end a synchronized update a
    /// signal may have cut short, reset the style, show the cursor and leave the alternate screen.
    public static let leaveSequence: [UInt8] = Array(
        "\u{1B}[?2026l\u{1B}[?1006l\u{1B}[?1002l\u{1B}[?1000l\u{1B}[?2004l\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l".utf8)
}
