public import LifelineCore

/// Why a Stoat connection could not do what it was asked, in Lifeline's one error shape.
public struct StoatConnectionError: LifelineError, Sendable {
    /// What kind of failure this is.
    public struct Code: LifelineErrorCode, RawRepresentable {
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
        /// The server answered an `Error` event; ``StoatConnectionError/detail`` carries its words, if any.
        public static let serverError = Code(rawValue: "serverError")
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong; never contains a token.
    public var message: String
    /// What the server said about it, when it said more than the error's kind (the `detail` of Stoat's new
    /// events server: `Invalid token provided`…), at most ``maximumDetailLength`` characters. The server's
    /// text: show it as such (made safe for a terminal).
    public var detail: String?
    /// The error that caused this one, if any.
    public var cause: (any Error)?

    /// The longest ``detail`` kept; a longer one is cut with `…`.
    public static let maximumDetailLength = 500

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - message: What went wrong; must never contain a token.
    ///   - detail: What the server said about it, if anything; cut to ``maximumDetailLength`` characters.
    ///   - cause: The error that caused this one, if any.
    public init(code: Code, message: String, detail: String? = nil, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.detail = detail.map {
            $0.count > Self.maximumDetailLength ? String($0.prefix(Self.maximumDetailLength)) + "…" : $0
        }
        self.cause = cause
    }

    /// `code: message`, and `(detail)` when the server gave one.
    public var description: String { "\(code): \(message)" + (detail.map { " (\($0))" } ?? "") }
}
