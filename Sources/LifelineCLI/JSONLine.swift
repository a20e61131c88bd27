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
        case null

        var foundation: Any {
            switch self {
            case .string(let s): s
            case .number(let n): n.isFinite ? n : NSNull()
            case .integer(let i): i
            case .bool(let b): b
            case .strings(let a): a
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

/// Writes a line to standard output and flushes it, so that a program reading a pipe sees each line as
/// it happens (standard output is fully buffered when it is not a terminal).
func emit(_ line: String) {
    print(line)
    // `fflush(nil)` flushes every output stream, standard output among them, without touching the C
    // global `stdout`, which strict concurrency does not let Swift read.
    fflush(nil)
}
