/// A sign-in waiting for a second factor: answer it with ``submit(_:)`` to continue the flow where it stopped.
///
/// Holding one costs nothing on the server but the challenge, which expires there. The flow continues exactly
/// as it would have with the verification's answer: it creates the database, opens it with the new session, or
/// ends the session and reports an encryption failure.
public struct SecondFactorStep: Sendable {
    /// The methods the server accepts.
    public var methods: [SecondFactorMethod] { challenge.methods }

    /// The database, when it is already open (it unwrapped with the password but no session was cached): show
    /// home from it while the user looks for the code. The caller owns it.
    public let database: AccountDatabase?

    let challenge: SecondFactorChallenge
    let resume: @Sendable (VerificationAnswer) async -> SignInOutcome

    /// Answers the second factor and continues the sign-in.
    ///
    /// - Parameter response: The method and the code the user gave.
    /// - Returns: The flow's outcome with the server's answer; another ``SignInOutcome/secondFactorRequired(_:)``
    ///   if the server asks again.
    public func submit(_ response: SecondFactorResponse) async -> SignInOutcome {
        await Self.proceed(await challenge.respond(response), database: database, resume)
    }

    /// Hands a verification to the flow's continuation, or stops at a second factor.
    static func proceed(
        _ verification: PasswordVerification,
        database: AccountDatabase?,
        _ resume: @escaping @Sendable (VerificationAnswer) async -> SignInOutcome
    ) async -> SignInOutcome {
        let answer: VerificationAnswer
        switch verification {
        case .secondFactorRequired(let challenge):
            return .secondFactorRequired(SecondFactorStep(database: database, challenge: challenge, resume: resume))
        case .verified(let session): answer = .verified(session)
        case .wrongPassword: answer = .wrongPassword
        case .unreachable: answer = .unreachable
        case .failed(let failure): answer = .failed(failure)
        }
        return await resume(answer)
    }
}
