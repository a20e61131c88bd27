public import LifelineCore

/// Why a Stoat connection could not do what it was asked, in Lifeline's one error shape: `CodedError` over
/// ``StoatConnectionErrorCode``, with what the server said about it (``StoatConnectionErrorDetails/detail``)
/// read as the error's own `detail`.
public typealias StoatConnectionError = CodedError<StoatConnectionErrorCode>

/// What kind of failure a ``StoatConnectionError`` is.
public struct StoatConnectionErrorCode: LifelineErrorCode, RawRepresentable {
    /// A connection error carries the server's words, when it gave any.
    public typealias Details = StoatConnectionErrorDetails

    /// The code's stable name.
    public var rawValue: String

    /// Creates a code from its stable name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The socket is not open (not yet, or no more).
    public static let notOpen = Self(rawValue: "notOpen")
    /// Stoat has no frame for this significant event.
    public static let unsupportedEvent = Self(rawValue: "unsupportedEvent")
    /// Writing the frame failed.
    public static let writeFailed = Self(rawValue: "writeFailed")
    /// The server answered an `Error` event; the error's `detail` carries its words, if any.
    public static let serverError = Self(rawValue: "serverError")

    /// ` (detail)` when the server gave one.
    public static func describing(_ details: Details) -> String { details.detail.map { " (\($0))" } ?? "" }
}

/// What a ``StoatConnectionError`` carries beside its code, message and cause.
public struct StoatConnectionErrorDetails: Sendable, Hashable {
    /// What the server said about it, when it said more than the error's kind (the `detail` of Stoat's new
    /// events server: `Invalid token provided`…), at most ``StoatConnectionErrorCode/maximumDetailLength``
    /// characters. The server's text: show it as such (made safe for a terminal).
    public var detail: String?

    /// Creates details, cutting `detail` to ``StoatConnectionErrorCode/maximumDetailLength`` characters with `…`.
    ///
    /// - Parameter detail: What the server said, if anything.
    public init(detail: String? = nil) {
        self.detail = detail.map { StoatConnectionErrorCode.cut($0) }
    }
}

extension StoatConnectionErrorCode {
    /// The longest detail kept; a longer one is cut with `…`.
    public static let maximumDetailLength = 500

    /// `text`, cut to ``maximumDetailLength`` characters with `…`.
    static func cut(_ text: String) -> String {
        text.count > maximumDetailLength ? String(text.prefix(maximumDetailLength)) + "…" : text
    }
}

extension CodedError where Code == StoatConnectionErrorCode {
    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - message: What went wrong; must never contain a token.
    ///   - detail: What the server said about it, if anything; cut to
    ///     ``StoatConnectionErrorCode/maximumDetailLength`` characters.
    ///   - cause: The error that caused this one, if any.
    public init(code: Code, message: String, detail: String? = nil, cause: (any Error)? = nil) {
        self.init(code: code, message: message, details: StoatConnectionErrorDetails(detail: detail), cause: cause)
    }
}
