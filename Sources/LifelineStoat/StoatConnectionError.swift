/// Why a Stoat connection could not do what it was asked, in Lifeline's one error shape.
public struct StoatConnectionError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
        /// The code's stable name.
        public var rawValue: String

        /// Creates a code from its stable name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The socket is not open (not yet, or no more).
        public static let notOpen = Code(rawValue: "notOpen")
        /// Stoat has no frame for this significant event.
        public static let unsupportedEvent = Code(rawValue: "unsupportedEvent")
        /// Writing the frame failed.
        public static let writeFailed = Code(rawValue: "writeFailed")

        /// The code's stable name.
        public var description: String { rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong; never contains a token.
    public var message: String
    /// The error that caused this one, if any.
    public var cause: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - message: What went wrong; must never contain a token.
    ///   - cause: The error that caused this one, if any.
    public init(code: Code, message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// `code: message`.
    public var description: String { "\(code): \(message)" }
}
