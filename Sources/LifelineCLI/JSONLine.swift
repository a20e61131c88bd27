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
        case object([String: Value])
        case null

        var foundation: Any {
            switch self {
            case .string(let s): s
            case .number(let n): n.isFinite ? n : NSNull()
            case .integer(let i): i
            case .bool(let b): b
            case .strings(let a): a
            case .object(let o): o.mapValues(\.foundation)
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
        else { preconditionFailure("a JSON line of strings, numbers and booleans failed to encode: \(object.keys)") }
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
