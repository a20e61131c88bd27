/// The bytes a terminal sends, turned into ``InputEvent``s: keys, bracketed pastes and SGR mouse reports.
///
/// Pure: it reads no clock and does no I/O. Feed it each read's bytes with ``parse(_:)``; a sequence split between
/// two reads (an escape sequence, a UTF-8 character, a paste's end marker) is kept and finished by the next read.
/// A lone ESC cannot be told from the start of an escape sequence by its bytes alone: when ``isAwaitingMore`` is
/// true after a read, the caller waits a short time for more bytes (``Terminal`` waits 50 ms) and, if none come,
/// calls ``timeoutExpired()``, which takes the bytes kept as they are (ESC alone is the Escape key, ESC and a key is
/// Alt and the key).
///
/// Hostile or broken input never traps and always makes progress: an unknown or malformed sequence is dropped,
/// invalid UTF-8 becomes U+FFFD, numbers saturate, a sequence longer than 64 bytes is dropped, and a paste keeps at
/// most ``maximumPasteBytes`` (the rest is dropped up to its end marker).
public struct InputParser: Sendable {
    /// The most bytes of one paste that are kept.
    public static let maximumPasteBytes = 16 << 20
    static let maximumSequenceLength = 64
    private static let pasteEnd: [UInt8] = Array("\u{1B}[201~".utf8)

    /// The bytes of an unfinished sequence at the end of the last read, or in a paste a possible start of the
    /// paste's end marker.
    private var pending: [UInt8] = []
    /// Inside a bracketed paste: the bytes pasted so far.
    private var paste: [UInt8]?

    /// A parser in its ground state.
    public init() {}

    /// Whether the last read ended inside a sequence that only more bytes or a timeout can finish (a lone ESC, or
    /// an unfinished escape sequence or UTF-8 character). Inside a paste it is false: a paste waits for its end.
    public var isAwaitingMore: Bool { paste == nil && !pending.isEmpty }

    /// The events in `bytes`, read after everything fed before.
    ///
    /// - Parameter bytes: The bytes of one read from the terminal.
    /// - Returns: The events they finish, in order.
    public mutating func parse(_ bytes: some Sequence<UInt8>) -> [InputEvent] {
        var input = pending
        input.append(contentsOf: bytes)
        pending = []
        return run(input, atTimeout: false)
    }

    /// No byte came within the timeout after a read that left ``isAwaitingMore`` true: the bytes kept are taken as
    /// they are (ESC alone is the Escape key; an unfinished sequence is Alt and its first key, then its other bytes
    /// as typed; an unfinished UTF-8 character is U+FFFD).
    ///
    /// - Returns: The events of the bytes kept.
    public mutating func timeoutExpired() -> [InputEvent] {
        guard paste == nil else { return [] }
        let input = pending
        pending = []
        return run(input, atTimeout: true)
    }

    private enum Step {
        case event(InputEvent, length: Int)
        case skip(Int)
        case pasteStart(length: Int)
        case incomplete
    }

    private mutating func run(_ input: [UInt8], atTimeout: Bool) -> [InputEvent] {
        var events: [InputEvent] = []
        var index = 0
        while index < input.count {
            if paste != nil {
                index = consumePaste(input, from: index, into: &events)
                continue
            }
            switch Self.step(input, at: index, atTimeout: atTimeout) {
            case .event(let event, let length):
                events.append(event)
                index += length
            case .skip(let length):
                index += length
            case .pasteStart(let length):
                paste = []
                index += length
            case .incomplete:
                pending = Array(input[index...])
                return events
            }
        }
        return events
    }

    /// Takes paste bytes from `index`: up to the end marker (then the paste's event), or to the end of the input
    /// less a tail that may be the start of the marker, kept for the next read.
    private mutating func consumePaste(_ input: [UInt8], from index: Int, into events: inout [InputEvent]) -> Int {
        let marker = Self.pasteEnd
        var position = index
        while position < input.count {
            if input[position] == 0x1B {
                let available = min(marker.count, input.count - position)
                if input[position..<position + available].elementsEqual(marker[0..<available]) {
                    if available == marker.count {
                        appendPaste(input[index..<position])
                        events.append(.paste(Self.pasteText(paste ?? [])))
                        paste = nil
                        return position + marker.count
                    }
                    appendPaste(input[index..<position])
                    pending = Array(input[position...])
                    return input.count
                }
            }
            position += 1
        }
        appendPaste(input[index...])
        return input.count
    }

    private mutating func appendPaste(_ bytes: ArraySlice<UInt8>) {
        let room = Self.maximumPasteBytes - (paste?.count ?? 0)
        paste?.append(contentsOf: bytes.prefix(max(0, room)))
    }

    /// The pasted text: UTF-8 (invalid bytes as U+FFFD), with the `\r\n` and `\r` terminals send for line ends
    /// as `\n`.
    private static func pasteText(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self).replacingLineEnds()
    }

    // MARK: One event

    private static func step(_ input: [UInt8], at index: Int, atTimeout: Bool) -> Step {
        let byte = input[index]
        switch byte {
        case 0x1B: return escape(input, at: index, atTimeout: atTimeout)
        case 0x0D: return .event(.key(KeyPress(.enter)), length: 1)
        case 0x09: return .event(.key(KeyPress(.tab)), length: 1)
        case 0x7F: return .event(.key(KeyPress(.backspace)), length: 1)
        case 0x08: return .event(.key(KeyPress(.backspace, modifiers: .control)), length: 1)
        case 0x00: return .event(.key(.control(" ")), length: 1)
        case 0x01...0x1A:
            return .event(.key(.control(Character(Unicode.Scalar(byte + 0x60)))), length: 1)
        case 0x1C...0x1F:
            return .event(.key(.control(Character(Unicode.Scalar(byte + 0x40)))), length: 1)
        case 0x20...0x7E: return .event(.key(.character(Character(Unicode.Scalar(byte)))), length: 1)
        default: return utf8(input, at: index, atTimeout: atTimeout)
        }
    }

    private static func escape(_ input: [UInt8], at index: Int, atTimeout: Bool) -> Step {
        guard index + 1 < input.count else {
            return atTimeout ? .event(.key(KeyPress(.escape)), length: 1) : .incomplete
        }
        switch input[index + 1] {
        case UInt8(ascii: "["): return csi(input, at: index, atTimeout: atTimeout)
        case UInt8(ascii: "O"): return ss3(input, at: index, atTimeout: atTimeout)
        case 0x1B: return .event(.key(KeyPress(.escape)), length: 1)
        default:
            switch step(input, at: index + 1, atTimeout: atTimeout) {
            case .event(.key(var press), let length):
                press.modifiers.insert(.alt)
                return .event(.key(press), length: length + 1)
            case .incomplete: return .incomplete
            default: return .event(.key(KeyPress(.escape)), length: 1)
            }
        }
    }

    /// `ESC O` and one byte: the keys of the application cursor and keypad modes.
    private static func ss3(_ input: [UInt8], at index: Int, atTimeout: Bool) -> Step {
        guard index + 2 < input.count else {
            return atTimeout ? .event(.key(.alt("O")), length: 2) : .incomplete
        }
        let key: Key? =
            switch input[index + 2] {
            case UInt8(ascii: "A"): .up
            case UInt8(ascii: "B"): .down
            case UInt8(ascii: "C"): .right
            case UInt8(ascii: "D"): .left
            case UInt8(ascii: "H"): .home
            case UInt8(ascii: "F"): .end
            case UInt8(ascii: "M"): .enter
            case UInt8(ascii: "P"): .function(1)
            case UInt8(ascii: "Q"): .function(2)
            case UInt8(ascii: "R"): .function(3)
            case UInt8(ascii: "S"): .function(4)
            default: nil
            }
        guard let key else { return .skip(3) }
        return .event(.key(KeyPress(key)), length: 3)
    }

    /// `ESC [`, parameter bytes, intermediate bytes and a final byte (ECMA-48 5.4).
    private static func csi(_ input: [UInt8], at index: Int, atTimeout: Bool) -> Step {
        var position = index + 2
        while position < input.count {
            let byte = input[position]
            if (0x40...0x7E).contains(byte) { break }
            guard (0x20...0x3F).contains(byte) else { return .skip(position - index) }
            position += 1
            if position - index > maximumSequenceLength { return .skip(position - index) }
        }
        guard position < input.count else {
            return atTimeout ? .event(.key(.alt("[")), length: 2) : .incomplete
        }
        let final = input[position]
        let body = input[(index + 2)..<position]
        let length = position + 1 - index
        if final == UInt8(ascii: "M"), body.isEmpty {
            return x10Mouse(input, at: index, atTimeout: atTimeout)
        }
        if body.first == UInt8(ascii: "<"), final == UInt8(ascii: "M") || final == UInt8(ascii: "m") {
            let parameters = numbers(body.dropFirst())
            guard let event = sgrMouse(parameters, released: final == UInt8(ascii: "m")) else { return .skip(length) }
            return .event(.mouse(event), length: length)
        }
        if let first = body.first, (0x3C...0x3F).contains(first) { return .skip(length) }
        let parameters = numbers(body)
        let modifiers = keyModifiers(parameters.count > 1 ? parameters[1] : 1)
        let key: Key
        switch final {
        case UInt8(ascii: "A"): key = .up
        case UInt8(ascii: "B"): key = .down
        case UInt8(ascii: "C"): key = .right
        case UInt8(ascii: "D"): key = .left
        case UInt8(ascii: "H"): key = .home
        case UInt8(ascii: "F"): key = .end
        case UInt8(ascii: "P"): key = .function(1)
        case UInt8(ascii: "Q"): key = .function(2)
        case UInt8(ascii: "R"): key = .function(3)
        case UInt8(ascii: "S"): key = .function(4)
        case UInt8(ascii: "Z"): return .event(.key(KeyPress(.tab, modifiers: modifiers.union(.shift))), length: length)
        case UInt8(ascii: "u"):
            guard let press = codepointKey(parameters.first ?? 0, modifiers: modifiers) else { return .skip(length) }
            return .event(.key(press), length: length)
        case UInt8(ascii: "~"):
            let code = parameters.first ?? 0
            if code == 200 { return .pasteStart(length: length) }
            guard let tilde = tildeKey(code) else { return .skip(length) }
            key = tilde
        default: return .skip(length)
        }
        return .event(.key(KeyPress(key, modifiers: modifiers)), length: length)
    }

    private static func tildeKey(_ code: Int) -> Key? {
        switch code {
        case 1, 7: .home
        case 2: .insert
        case 3: .delete
        case 4, 8: .end
        case 5: .pageUp
        case 6: .pageDown
        case 11...15: .function(code - 10)
        case 17...21: .function(code - 11)
        case 23, 24: .function(code - 12)
        default: nil
        }
    }

    /// `CSI codepoint ; modifiers u`, the form of the fixterms and kitty keyboard protocols.
    private static func codepointKey(_ codepoint: Int, modifiers: KeyModifiers) -> KeyPress? {
        switch codepoint {
        case 9: return KeyPress(.tab, modifiers: modifiers)
        case 13: return KeyPress(.enter, modifiers: modifiers)
        case 27: return KeyPress(.escape, modifiers: modifiers)
        case 127: return KeyPress(.backspace, modifiers: modifiers)
        default:
            guard codepoint >= 0x20, let scalar = Unicode.Scalar(UInt32(codepoint)),
                VisibleText.replacement(for: scalar) == nil
            else { return nil }
            return KeyPress(.character(Character(scalar)), modifiers: modifiers)
        }
    }

    /// The modifiers of a key sequence's parameter: 1 plus a bit each for Shift (1), Alt (2), Control (4) and
    /// Meta (8, taken as Alt).
    private static func keyModifiers(_ parameter: Int) -> KeyModifiers {
        let bits = max(0, parameter - 1)
        var modifiers: KeyModifiers = []
        if bits & 1 != 0 { modifiers.insert(.shift) }
        if bits & (2 | 8) != 0 { modifiers.insert(.alt) }
        if bits & 4 != 0 { modifiers.insert(.control) }
        return modifiers
    }

    /// `CSI < button ; column ; row M` (press) or `m` (release), columns and rows from 1.
    private static func sgrMouse(_ parameters: [Int], released: Bool) -> MouseEvent? {
        guard parameters.count >= 3 else { return nil }
        return mouse(code: parameters[0], column: parameters[1] - 1, row: parameters[2] - 1, released: released)
    }

    /// `CSI M` and three bytes, each 32 more than its value: what a terminal without mode 1006 reports.
    private static func x10Mouse(_ input: [UInt8], at index: Int, atTimeout: Bool) -> Step {
        guard index + 5 < input.count else {
            return atTimeout ? .event(.key(.alt("[")), length: 2) : .incomplete
        }
        let code = Int(input[index + 3]) - 32
        let column = Int(input[index + 4]) - 33
        let row = Int(input[index + 5]) - 33
        guard code >= 0, let event = mouse(code: code, column: column, row: row, released: false) else {
            return .skip(6)
        }
        return .event(.mouse(event), length: 6)
    }

    private static func mouse(code: Int, column: Int, row: Int, released: Bool) -> MouseEvent? {
        guard column >= 0, row >= 0 else { return nil }
        var modifiers: KeyModifiers = []
        if code & 4 != 0 { modifiers.insert(.shift) }
        if code & 8 != 0 { modifiers.insert(.alt) }
        if code & 16 != 0 { modifiers.insert(.control) }
        let low = code & 3
        let button: MouseButton =
            switch (code & 128 != 0, low) {
            case (true, _): .other(8 + low)
            case (false, 0): .left
            case (false, 1): .middle
            case (false, 2): .right
            default: .other(3)
            }
        let action: MouseEvent.Action
        if code & 64 != 0, code & 128 == 0 {
            action = [.wheelUp, .wheelDown, .wheelLeft, .wheelRight][low]
        } else if code & 32 != 0 {
            action = low == 3 && code & 128 == 0 ? .move : .drag(button)
        } else if released || (low == 3 && code & 128 == 0) {
            action = .release(low == 3 && code & 128 == 0 ? .other(3) : button)
        } else {
            action = .press(button)
        }
        return MouseEvent(action, row: row, column: column, modifiers: modifiers)
    }

    /// The numbers of a parameter string, `;`-separated (a `:` sub-parameter is skipped), each saturating at
    /// 65 535, an empty one as 0.
    private static func numbers(_ body: ArraySlice<UInt8>) -> [Int] {
        var result: [Int] = []
        var current = 0
        var inSubParameter = false
        for byte in body {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if !inSubParameter { current = min(65_535, current * 10 + Int(byte - UInt8(ascii: "0"))) }
            case UInt8(ascii: ":"): inSubParameter = true
            case UInt8(ascii: ";"):
                result.append(current)
                current = 0
                inSubParameter = false
            default: break
            }
        }
        result.append(current)
        return result
    }

    /// One UTF-8 character from a lead byte at `index`; an invalid byte is U+FFFD, a C1 control is dropped.
    private static func utf8(_ input: [UInt8], at index: Int, atTimeout: Bool) -> Step {
        let lead = input[index]
        let (count, minimum): (Int, UInt32) =
            switch lead {
            case 0xC2...0xDF: (2, 0x80)
            case 0xE0...0xEF: (3, 0x800)
            case 0xF0...0xF4: (4, 0x10000)
            default: (0, 0)
            }
        let replacement = Step.event(.key(.character("\u{FFFD}")), length: 1)
        guard count > 0 else { return replacement }
        var value = UInt32(lead) & (0xFF >> (count + 1))
        for offset in 1..<count {
            guard index + offset < input.count else { return atTimeout ? replacement : .incomplete }
            let byte = input[index + offset]
            guard byte & 0xC0 == 0x80 else { return replacement }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return replacement }
        if (0x80...0x9F).contains(value) { return .skip(count) }
        return .event(.key(.character(Character(scalar))), length: count)
    }
}

extension String {
    /// The text with `\r\n` and `\r` line ends as `\n`.
    fileprivate func replacingLineEnds() -> String {
        guard utf8.contains(0x0D) else { return self }
        var result = ""
        result.reserveCapacity(utf8.count)
        var previousWasReturn = false
        for scalar in unicodeScalars {
            if scalar == "\r" {
                result.unicodeScalars.append("\n")
                previousWasReturn = true
            } else {
                if !(scalar == "\n" && previousWasReturn) { result.unicodeScalars.append(scalar) }
                previousWasReturn = false
            }
        }
        return result
    }
}
