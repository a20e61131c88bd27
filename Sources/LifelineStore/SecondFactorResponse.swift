/// The user's answer to a ``SecondFactorChallenge``.
public struct SecondFactorResponse: Sendable, CustomStringConvertible {
    /// The method the user answers with.
    public var method: SecondFactorMethod
    /// The code (or password). Secret: never log it.
    public var code: String

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - method: The method the user answers with.
    ///   - code: The code or password.
    public init(method: SecondFactorMethod, code: String) {
        self.method = method
        self.code = code
    }

    /// The method; the code is redacted.
    public var description: String { "SecondFactorResponse(\(method), <redacted>)" }
}
