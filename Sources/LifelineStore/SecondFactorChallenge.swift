/// A second factor the server asks for before it finishes a login: the methods it accepts and how to answer.
///
/// The verifier builds it around whatever the protocol needs to continue (for Stoat, the MFA ticket), which the
/// store never sees: ``respond(_:)`` runs the verifier's continuation.
public struct SecondFactorChallenge: Sendable {
    /// The methods the server accepts, in the server's order.
    public var methods: [SecondFactorMethod]

    private let continuation: @Sendable (SecondFactorResponse) async -> PasswordVerification

    /// Creates a challenge.
    ///
    /// - Parameters:
    ///   - methods: The methods the server accepts.
    ///   - continuation: Sends a response to the server and answers as a verification does: the session, a
    ///     failure (a wrong code), or another challenge.
    public init(
        methods: [SecondFactorMethod],
        continuation: @escaping @Sendable (SecondFactorResponse) async -> PasswordVerification
    ) {
        self.methods = methods
        self.continuation = continuation
    }

    /// Answers the challenge.
    ///
    /// - Parameter response: The method and the code the user gave.
    /// - Returns: The server's answer to the login, now with the second factor.
    public func respond(_ response: SecondFactorResponse) async -> PasswordVerification {
        await continuation(response)
    }
}
