public import LifelineCore

/// An error a scripted dependency throws, in Lifeline's one error shape.
public typealias ScriptedError = CodedError<ScriptedErrorCode>

/// What kind of scripted failure a ``ScriptedError`` is.
public struct ScriptedErrorCode: LifelineErrorCode, RawRepresentable {
    /// The code's stable name, as printed in `--json` output.
    public var rawValue: String

    /// Creates a code from its stable name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The script says this call fails.
    public static let scripted = ScriptedErrorCode(rawValue: "scripted")
    /// The scripted connection is not running.
    public static let notRunning = ScriptedErrorCode(rawValue: "notRunning")
}

extension ScriptedError {
    /// Creates an error of code ``ScriptedErrorCode/scripted``.
    ///
    /// - Parameters:
    ///   - message: What the script says.
    ///   - cause: The error that caused this one, if any.
    public init(message: String, cause: (any Error)? = nil) {
        self.init(code: .scripted, message: message, cause: cause)
    }
}
