/// A policy or configuration that cannot work was asked for: thrown by the initialisers that check
/// their arguments (``RetryPolicy``, ``SessionCheckPolicy``).
///
/// Lifeline's one error shape (``CodedError``): a ``ConfigurationErrorCode``, a message, and the error that caused
/// it.
public typealias ConfigurationError = CodedError<ConfigurationErrorCode>

/// What kind of mistake a ``ConfigurationError`` is.
public struct ConfigurationErrorCode: LifelineErrorCode, RawRepresentable {
    /// The code's stable name, as printed in `--json` output.
    public var rawValue: String

    /// Creates a code from its stable name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A value is outside the range that works (a retry ceiling below its unit, a negative count…).
    public static let outOfRange = ConfigurationErrorCode(rawValue: "outOfRange")
}
