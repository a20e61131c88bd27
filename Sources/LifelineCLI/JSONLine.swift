import Foundation

/// One JSON object on one line: the machine-readable output of every `--json` command.
///
/// Keys are sorted so that output is stable and diffable.
enum JSONLine {
    /// A JSON value.
    enum Value: Sendable, Equatable {
        case string(String)
        case number(Double)
        case integer(Int)
        case bool(Bool)
        case strings([String])
        case array([Value])
        case object([String: Value])
        case null

        /// A string, or `null` when there is none.
        static func optional(_ string: String?) -> Value { string.map(Value.string) ?? .null }

        var foundation: Any {
            switch self {
            case .string(let s): s
            case .number(let n): n.isFinite ? n : NSNull()
            case .integer(let i): i
            case .bool(let b): b
            case .strings(let a): a
            case .array(let values): values.map(\.foundation)
            case .object(let object): object.mapValues(\.foundation)
            case .null: NSNull()
            }
        }
    }

    /// Encodes an object as one line of JSON with sorted keys.
    static func encode(_ object: [String: Value]) -> String {
        let foundation = object.mapValues(\.foundation)
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: foundation, options: [.sortedKeys, .withoutEscapingSlashes])
        else {
            preconditionFailure(
                "a JSON line of strings, numbers, booleans, arrays and objects failed to encode: \(object.keys)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Writes a line to standard output at once, so that a program reading a pipe sees each line as it
/// happens.
///
/// It calls `write(2)` on the descriptor rather than `print` and `fflush`: standard output is fully
/// buffered on a pipe, and `fflush(NULL)` takes every stream's lock — standard input's too, which the
/// `connect` command's reader thread holds while it waits for a line — so flushing would block a
/// cooperative thread until the next line of input. Commands that stream use this for every line.
func emit(_ line: String) {
    writeToStandardOutput(line + "\n")
}

/// Writes text to standard output's descriptor, all of it, without buffering.
func writeToStandardOutput(_ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        if written < 0 {
            if errno == EINTR { continue }
            return  // standard output is gone (a closed pipe): nothing more can be said there
        }
        bytes = bytes.dropFirst(written)
    }
}

/// Text from the server made safe for one line of a terminal: a line break shows as ⏎, a tab as a space,
/// and every other control character (escape sequences that could move the cursor, recolour or retitle
/// the terminal, a carriage return that hides text) and every bidirectional embedding, override and
/// isolate (U+202A–U+202E, U+2066–U+2069, which reorder what follows them on the line, as "Trojan Source"
/// does) as U+FFFD.
///
/// Names, messages, alerts, ids, error codes and details come from the server and reach human output;
/// JSON output keeps them exact and escapes them itself.
func terminalSafe(_ text: String) -> String {
    var safe = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
        switch scalar.value {
        case 0x0A: safe.append("\u{23CE}")
        case 0x09: safe.append(" ")
        case 0..<0x20, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: safe.append("\u{FFFD}")
        default: safe.append(scalar)
        }
    }
    return String(safe)
}
