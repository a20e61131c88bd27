public import LifelineCore

/// An error a scripted dependency throws, in Lifeline's one error shape.
public struct ScriptedError: LifelineError, Sendable {
    /// What kind of scripted failure this is.
    public struct Code: LifelineErrorCode, RawRepresentable {
        /// The code's stable name.
        public var rawValue: String
        /// Creates a code from its stable name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The script says this call fails.
        public static let scripted = Code(rawValue: "scripted")
        /// The scripted connection is not running.
        public static let notRunning = Code(rawValue: "notRunning")
    }

    /// What kind of failure this is.
    public var code: Code
    /// What the script says.
    public var message: String
    /// The error that caused this one, if any.
    public var cause: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of failure this is; ``Code/scripted`` by default.
    ///   - message: What the script says.
    ///   - cause: The error that caused this one, if any.
    public init(code: Code = .scripted, message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }
}
