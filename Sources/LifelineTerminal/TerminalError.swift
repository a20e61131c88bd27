/// A terminal that could not be set up, read or written: a code to switch on, a message for people, and the
/// system error behind it.
///
/// The shape of Lifeline's errors (a code from an open set, a message, a cause), kept here without importing the
/// library, since this module imports nothing of Lifeline's.
public struct TerminalError: Error, Hashable, CustomStringConvertible {
    /// What kind of failure it is.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name.
        public let rawValue: String
        /// A code from its stable name.
        ///
        /// - Parameter rawValue: The name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's stable name.
        public var description: String { rawValue }

        /// The input is not a terminal (standard input redirected from a file or a pipe).
        public static let notATerminal = Code(rawValue: "notATerminal")
        /// Another ``Terminal`` of this process is active: one program drives one terminal.
        public static let alreadyActive = Code(rawValue: "alreadyActive")
        /// Reading or changing the terminal's settings (`tcgetattr`, `tcsetattr`) failed.
        public static let settingsFailed = Code(rawValue: "settingsFailed")
        /// Writing to the terminal failed (the terminal closed, or the output is not writable).
        public static let writeFailed = Code(rawValue: "writeFailed")
        /// Starting the input reader failed (no pipe or thread could be made).
        public static let readerFailed = Code(rawValue: "readerFailed")
    }

    /// What kind of failure it is.
    public var code: Code
    /// A sentence for people.
    public var message: String
    /// The system's error number behind it (`errno`), if any.
    public var systemError: Int32?

    /// An error from its code, message and system error number.
    ///
    /// - Parameters:
    ///   - code: What kind of failure it is.
    ///   - message: A sentence for people.
    ///   - systemError: The `errno` behind it, if any.
    public init(_ code: Code, _ message: String, systemError: Int32? = nil) {
        self.code = code
        self.message = message
        self.systemError = systemError
    }

    /// `code: message`, with the system error's number when there is one.
    public var description: String {
        "\(code): \(message)" + (systemError.map { " (errno \($0))" } ?? "")
    }
}
