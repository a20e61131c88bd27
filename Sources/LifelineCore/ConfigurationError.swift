/// A policy or configuration that cannot work was asked for: thrown by the initialisers that check
/// their arguments (``RetryPolicy``, ``SessionCheckPolicy``).
///
/// Lifeline's one error shape: a ``Code``, a message, and the error that caused it.
public struct ConfigurationError: LifelineError, Sendable {
    /// What kind of mistake this is.
    public struct Code: LifelineErrorCode, RawRepresentable {
        /// The code's stable name.
        public var rawValue: String

        /// Creates a code from its stable name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A value is outside the range that works (a retry ceiling below its unit, a negative count…).
        public static let outOfRange = Code(rawValue: "outOfRange")
    }

    /// What kind of mistake this is.
    public var code: Code
    /// What is wrong, naming the argument and its value.
    public var message: String
    /// The error that caused this one, if any.
    public var cause: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of mistake this is.
    ///   - message: What is wrong.
    ///   - cause: The error that caused this one, if any.
    public init(code: Code, message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }
}
