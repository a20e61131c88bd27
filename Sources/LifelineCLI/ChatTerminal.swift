import Foundation
import LifelineChat
import LifelineTerminal

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The terminal as `lifeline chat` uses it: raw mode and the alternate screen while it runs (restored on every
/// way out the program controls), its keys as ``ChatEvent``s, and frames written as the rows that changed.
///
/// A small stand-in until LifelineTerminal's own terminal, renderer and input parser land; it takes their place
/// behind the same three calls (``enter(mouse:)``, ``events``, ``draw(_:)``).
final class ChatTerminal: @unchecked Sendable {
    // The saved termios is written once in `enter` before any other thread reads it; `draw` (and with it the
    // writer) runs on the main actor only; the reader thread owns the parser.
    private var saved = termios()
    private var entered = false
    private var writer = ChatFrameWriter()
    private let mouse: Bool

    /// The terminal's events: keys, pastes, clicks and wheel turns, resizes.
    let events: AsyncStream<ChatEvent>
    private let continuation: AsyncStream<ChatEvent>.Continuation

    init(mouse: Bool) {
        self.mouse = mouse
        (events, continuation) = AsyncStream.makeStream(of: ChatEvent.self)
    }

    /// The terminal's size (`TIOCGWINSZ`), 80×24 when it cannot be read.
    static func size() -> TerminalSize {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else {
            return TerminalSize(columns: 80, rows: 24)
        }
        return TerminalSize(columns: Int(window.ws_col), rows: Int(window.ws_row))
    }

    /// Raw mode, the alternate screen, bracketed paste and (unless asked not to) the mouse; then reads the keys on
    /// a thread of their own.
    func enter() throws {
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else {
            throw ChatTerminalError(message: "standard input is not a terminal: lifeline chat needs one")
        }
        var raw = saved
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_oflag &= ~tcflag_t(OPOST)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { bytes in
            bytes[Int(VMIN)] = 1
            bytes[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
        entered = true
        ChatTerminal.active = self
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[?2004h" + (mouse ? "\u{1B}[?1000h\u{1B}[?1006h" : "") + "\u{1B}[2J")
        let continuation = continuation
        let thread = Thread {
            var parser = ChatInputParser()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                for event in parser.parse(buffer[..<count], final: true) { continuation.yield(event) }
            }
            continuation.finish()
        }
        thread.start()
    }

    /// Restores what ``enter()`` changed: the main screen, the cursor, echo and canonical mode.
    func restore() {
        guard entered else { return }
        entered = false
        write("\u{1B}[?1000l\u{1B}[?1006l\u{1B}[?2004l\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
    }

    /// The terminal a signal handler restores.
    nonisolated(unsafe) static var active: ChatTerminal?

    /// Ends ``events``: the program's loop returns (a signal asked it to).
    func close() {
        continuation.finish()
    }

    /// A new size: the next frame is painted whole.
    func resized(_ size: TerminalSize) {
        // The writer paints the next frame whole, its size being new.
        continuation.yield(.resize(size))
    }

    /// Writes what changed since the last frame (the whole frame after a resize), in one synchronized update.
    func draw(_ frame: ChatDriver.Frame) {
        let bytes = writer.frame(
            frame.grid, cursor: frame.cursor, scrollRegion: frame.timeline?.rows, scrollColumns: frame.timeline?.columns
        )
        write(bytes)
    }

    private func write(_ text: String) {
        write(Array(text.utf8))
    }

    private func write(_ output: [UInt8]) {
        var bytes = output[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Foundation.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            bytes = bytes.dropFirst(written)
        }
    }
}

/// The terminal could not be entered.
struct ChatTerminalError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Bytes from the terminal to ``ChatEvent``s: keys (UTF-8, Ctrl, Alt, arrows and the editing keys, F1–F12),
/// bracketed paste as one event, SGR mouse clicks and wheel. Resumable: a sequence split between two reads
/// completes with the second.
struct ChatInputParser {
    private var pending: [UInt8] = []
    private var paste: [UInt8]?

    mutating func parse(_ bytes: ArraySlice<UInt8>, final: Bool) -> [ChatEvent] {
        pending += bytes
        var events: [ChatEvent] = []
        var index = 0
        while index < pending.count {
            if paste != nil {
                if let end = find([0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E], from: index) {
                    paste! += pending[index..<end]
                    events.append(.paste(String(decoding: paste!, as: UTF8.self)))
                    paste = nil
                    index = end + 6
                    continue
                }
                paste! += pending[index...]
                index = pending.count
                break
            }
            if pending[index] == 0x1B, index + 6 <= pending.count,
                Array(pending[index..<min(pending.count, index + 6)]) == [0x1B, 0x5B, 0x32, 0x30, 0x30, 0x7E]
            {
                paste = []
                index += 6
                continue
            }
            guard let (event, length) = Self.event(at: index, in: pending, final: final) else { break }
            index += length
            if let event { events.append(event) }
        }
        pending.removeFirst(index)
        return events
    }

    private func find(_ needle: [UInt8], from start: Int) -> Int? {
        guard pending.count >= needle.count else { return nil }
        var index = start
        while index + needle.count <= pending.count {
            if Array(pending[index..<(index + needle.count)]) == needle { return index }
            index += 1
        }
        return nil
    }

    /// One event at `index`, with its length; nil when the bytes there are incomplete.
    private static func event(at index: Int, in bytes: [UInt8], final: Bool) -> (ChatEvent?, Int)? {
        let byte = bytes[index]
        switch byte {
        case 0x1B:
            guard index + 1 < bytes.count else { return final ? (.key(ChatKey(.escape)), 1) : nil }
            let next = bytes[index + 1]
            if next == 0x5B || next == 0x4F { return escapeSequence(at: index, in: bytes) }
            // Alt with a key.
            guard let (inner, length) = event(at: index + 1, in: bytes, final: final) else { return nil }
            if case .key(var key)? = inner {
                key.modifiers.insert(.alt)
                return (.key(key), 1 + length)
            }
            return (inner, 1 + length)
        case 0x0D, 0x0A: return (.key(ChatKey(.enter)), 1)
        case 0x09: return (.key(ChatKey(.tab)), 1)
        case 0x7F, 0x08: return (.key(ChatKey(.backspace)), 1)
        case 0x00: return (nil, 1)
        case 0x01...0x1A:
            return (.key(.ctrl(Character(Unicode.Scalar(byte + 0x60)))), 1)
        case 0x1C...0x1F: return (nil, 1)
        default:
            let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            guard index + length <= bytes.count else { return final ? (nil, bytes.count - index) : nil }
            let text = String(decoding: bytes[index..<(index + length)], as: UTF8.self)
            guard let character = text.first else { return (nil, length) }
            // A grapheme cluster may continue with the next scalar (a combining mark, a skin tone): kept apart here,
            // each typed in turn, which joins them again in the composer.
            return (.key(.character(character)), length)
        }
    }

    private static func escapeSequence(at index: Int, in bytes: [UInt8]) -> (ChatEvent?, Int)? {
        let introducer = bytes[index + 1]
        var end = index + 2
        while end < bytes.count, !(0x40...0x7E).contains(bytes[end]) { end += 1 }
        guard end < bytes.count else { return nil }
        let final = bytes[end]
        let parameters = String(decoding: bytes[(index + 2)..<end], as: UTF8.self)
        let length = end - index + 1
        if introducer == 0x4F {
            let keys: [UInt8: ChatKey.Code] = [
                0x50: .function(1), 0x51: .function(2), 0x52: .function(3), 0x53: .function(4), 0x41: .up,
                0x42: .down, 0x43: .right, 0x44: .left, 0x48: .home, 0x46: .end,
            ]
            return (keys[final].map { .key(ChatKey($0)) }, length)
        }
        if parameters.hasPrefix("<"), final == 0x4D || final == 0x6D {
            let numbers = parameters.dropFirst().split(separator: ";").compactMap { Int($0) }
            guard numbers.count == 3, final == 0x4D else { return (nil, length) }
            let (button, column, row) = (numbers[0], numbers[1] - 1, numbers[2] - 1)
            if button == 64 { return (.wheel(up: true), length) }
            if button == 65 { return (.wheel(up: false), length) }
            return button == 0 ? (.click(row: row, column: column), length) : (nil, length)
        }
        let numbers = parameters.split(separator: ";").map { Int($0) ?? 1 }
        var modifiers: ChatKey.Modifiers = []
        if numbers.count >= 2 {
            let bits = max(0, numbers[1] - 1)
            if bits & 1 != 0 { modifiers.insert(.shift) }
            if bits & 2 != 0 { modifiers.insert(.alt) }
            if bits & 4 != 0 { modifiers.insert(.control) }
        }
        let code: ChatKey.Code?
        switch final {
        case 0x41: code = .up
        case 0x42: code = .down
        case 0x43: code = .right
        case 0x44: code = .left
        case 0x48: code = .home
        case 0x46: code = .end
        case 0x5A: return (.key(ChatKey(.tab, modifiers: .shift)), length)
        case 0x50...0x53: code = .function(Int(final) - 0x50 + 1)
        case 0x7E:
            switch numbers.first ?? 0 {
            case 1, 7: code = .home
            case 4, 8: code = .end
            case 2: code = .insert
            case 3: code = .delete
            case 5: code = .pageUp
            case 6: code = .pageDown
            case 11...15: code = .function((numbers.first ?? 11) - 10)
            case 17...21: code = .function((numbers.first ?? 17) - 11)
            case 23, 24: code = .function((numbers.first ?? 23) - 12)
            default: code = nil
            }
        default: code = nil
        }
        return (code.map { .key(ChatKey($0, modifiers: modifiers)) }, length)
    }
}
