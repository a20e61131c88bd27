import Dispatch
import Foundation
import Synchronization

/// One JSON object on one line: the machine-readable output of every `--json` command.
///
/// Keys are sorted so that output is stable and diffable.
package enum JSONLine {
    /// A JSON value.
    package enum Value: Sendable, Equatable {
        case string(String)
        case number(Double)
        case integer(Int)
        case bool(Bool)
        case strings([String])
        case array([Value])
        case object([String: Value])
        case null

        /// A string, or `null` when there is none.
        package static func optional(_ string: String?) -> Value { string.map(Value.string) ?? .null }

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
    package static func encode(_ object: [String: Value]) -> String {
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
/// happens. Never blocks: see ``StandardOutput``.
package func emit(_ line: String) {
    StandardOutput.shared.write(line + "\n")
}

/// Writes text to standard output without a line break (the demo's spinner). Never blocks.
package func writeToStandardOutput(_ text: String) {
    StandardOutput.shared.write(text)
}

/// Standard output, written by a thread of its own, so that no task ever blocks on it.
///
/// A pipe whose reader stopped reading fills, and `write(2)` then blocks until it is read. Written from
/// the cooperative pool (as it once was, under the timeline's lock), that blocked every task that printed
/// — and with two cores, the whole pool, so SIGTERM was never acted on and the store never flushed. Now a
/// line is queued (at most ``limit`` bytes; past that, lines are dropped and counted, and the count is
/// said on standard error once the reader catches up) and written by this thread alone, with `write(2)`
/// rather than `print` and `fflush` (standard output is fully buffered on a pipe, and `fflush(NULL)` takes
/// standard input's lock, which `connect`'s reader thread holds while it waits for a line).
///
/// When the process exits — normally, on a signal handled by a command, or through `exit` — what is
/// queued is written for as long as the reader takes it, and abandoned once it has taken nothing for
/// ``exitPatience``: a stuck reader cannot keep the process alive.
package final class StandardOutput: Sendable {
    /// The one writer of the process's standard output.
    package static let shared = StandardOutput(descriptor: STDOUT_FILENO)

    /// The most bytes queued; a line that does not fit is dropped and counted.
    package static let limit = 16 << 20
    /// How long an exiting process waits for a reader that takes nothing.
    package static let exitPatience: Duration = .milliseconds(500)

    private struct State {
        var queue: [[UInt8]] = []
        var queued = 0
        var dropped = 0
        /// Whether the writer holds bytes it has taken from the queue and not finished writing.
        var writing = false
        /// When the writer last wrote a byte (or went idle), on the continuous clock.
        var progress = ContinuousClock.now
        /// Set when the descriptor is gone (a closed pipe): nothing more is queued.
        var closed = false
    }

    private let descriptor: Int32
    private let state = Mutex(State())
    /// Signalled once per queued line, and by ``drain(patience:)``'s wait.
    private let work = DispatchSemaphore(value: 0)
    /// Signalled by the writer each time it has written what it took.
    private let wrote = DispatchSemaphore(value: 0)

    package init(descriptor: Int32) {
        self.descriptor = descriptor
        let thread = Thread { [self] in writeForever() }
        thread.name = "lifeline standard output"
        thread.start()
        if descriptor == STDOUT_FILENO { atexit { StandardOutput.shared.drain(patience: StandardOutput.exitPatience) } }
    }

    /// Queues `text`; returns at once.
    package func write(_ text: String) {
        let queued = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            guard state.queued + text.utf8.count <= Self.limit else {
                state.dropped += 1
                return false
            }
            // The reader's patience is counted from when there is something to take.
            if state.queue.isEmpty && !state.writing { state.progress = .now }
            state.queue.append(Array(text.utf8))
            state.queued += text.utf8.count
            return true
        }
        if queued { work.signal() }
    }

    /// Waits until everything queued is written, or until the reader has taken nothing for `patience`.
    package func drain(patience: Duration) {
        while true {
            let (idle, stalled) = state.withLock { state in
                (state.queue.isEmpty && !state.writing || state.closed, state.progress.duration(to: .now) > patience)
            }
            if idle || stalled { return }
            _ = wrote.wait(timeout: .now() + .milliseconds(20))
        }
    }

    private func writeForever() {
        while true {
            work.wait()
            let (chunk, dropped) = state.withLock { state -> ([UInt8], Int) in
                guard !state.queue.isEmpty else { return ([], 0) }
                let chunk = state.queue.removeFirst()
                state.queued -= chunk.count
                state.writing = true
                defer { state.dropped = 0 }
                return (chunk, state.dropped)
            }
            if dropped > 0 {
                let notice = "lifeline: standard output was not read; \(dropped) lines were dropped\n"
                _ = writeAll(Array(notice.utf8)[...], to: STDERR_FILENO)
            }
            let written = chunk.isEmpty || writeAll(chunk[...], to: descriptor)
            state.withLock { state in
                state.writing = false
                state.progress = .now
                if !written {
                    // Standard output is gone (a closed pipe): nothing more can be said there.
                    state.closed = true
                    state.queue = []
                    state.queued = 0
                }
            }
            wrote.signal()
        }
    }

    /// Writes all of `bytes`; `false` when the descriptor failed.
    private func writeAll(_ bytes: ArraySlice<UInt8>, to descriptor: Int32) -> Bool {
        var bytes = bytes
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            bytes = bytes.dropFirst(written)
            state.withLock { $0.progress = .now }
        }
        return true
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
package func terminalSafe(_ text: String) -> String {
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
