public import LifelineCore
public import LifelineStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Verifies a password with a Stoat server by logging in, and ends the sessions the sign-in flow cannot use
/// by logging them out: the account store's "verify password" (`PasswordVerifier`) for Stoat.
///
/// A second factor continues through the store's `SecondFactorStep`; BlockedByShield carries Stoat's
/// support link. `StoatClient.signIn(to:email:password:)` uses one; an app that runs the store's flow
/// itself can too.
public struct StoatPasswordVerifier: PasswordVerifier {
    /// The REST client the logins go through.
    public let api: StoatAPI
    /// The name the sessions are given on the server (`friendly_name`).
    public let friendlyName: String?

    /// Creates a verifier.
    ///
    /// - Parameters:
    ///   - api: The REST client to log in with.
    ///   - friendlyName: The name the sessions are given on the server.
    public init(api: StoatAPI, friendlyName: String?) {
        self.api = api
        self.friendlyName = friendlyName
    }

    /// The API's server (`StoatAPI.server`): the accounts the store opens with this verifier are its.
    ///
    /// An API whose base URL names no server (not `http` or `https`, or no host) verifies nothing: every
    /// login fails before it is sent, and this is `https://invalid`, a host that never resolves (RFC 6761).
    public var server: ServerIdentity {
        api.server ?? Self.unidentifiedServer
    }

    static let unidentifiedServer = ServerIdentity("https://invalid")!

    /// Logs in with the email and password: a session means the password is right. A login answered
    /// `Disabled` reads the account's flags (`GET /users/{id}/flags`, no session needed), so the failure
    /// names why the account cannot log in (`PasswordVerificationFailure.standing`).
    public func verifyPassword(email: String, password: String) async -> PasswordVerification {
        do {
            return await answer(try await api.login(email: email, password: password, friendlyName: friendlyName))
        } catch {
            return answer(error)
        }
    }

    /// Logs a session the sign-in flow cannot use out of the server (best effort).
    public func endSession(_ session: SessionCredentials) async {
        // Best effort: a session that cannot be ended now expires on the server.
        try? await api.logout(session)
    }

    private func answer(_ result: LoginResult) async -> PasswordVerification {
        switch result {
        case .success(let credentials):
            return .verified(credentials)
        case .mfa(let challenge):
            let methods = challenge.allowedMethods.map { method in
                switch method {
                case .totp: SecondFactorMethod.totp
                case .recoveryCode: SecondFactorMethod.recoveryCode
                case .password: SecondFactorMethod.password
                default: SecondFactorMethod(rawValue: method.rawValue)
                }
            }
            return .secondFactorRequired(
                SecondFactorChallenge(methods: methods) { response in
                    let mfa: MFAResponse =
                        switch response.method {
                        case .recoveryCode: .recoveryCode(response.code)
                        case .password: .password(response.code)
                        default: .totp(response.code)
                        }
                    do throws(StoatAPIError) {
                        return await answer(
                            try await api.continueLogin(
                                ticket: challenge.ticket, response: mfa, friendlyName: friendlyName))
                    } catch {
                        return answer(error)
                    }
                })
        case .disabled(let userID):
            let error = await api.disabledLogin(userID: userID)
            return .failed(
                PasswordVerificationFailure(
                    code: .accountDisabled, message: error.userMessage, cause: error, standing: error.standing))
        }
    }

    private func answer(_ error: StoatAPIError) -> PasswordVerification {
        switch error.code {
        case .invalidCredentials: return .wrongPassword
        case .network, .timeout: return .unreachable
        case .lockedOut:
            return .failed(PasswordVerificationFailure(code: .rateLimited, message: "Too many attempts.", cause: error))
        case .blockedByShield:
            return .failed(
                PasswordVerificationFailure(
                    code: .blocked, message: "The login was blocked to protect the platform from spam.",
                    supportURL: error.supportURL.flatMap(URL.init(string:)), cause: error))
        case .invalidToken:
            return .failed(
                PasswordVerificationFailure(
                    code: .secondFactorRefused, message: "The code is incorrect or has expired.", cause: error))
        default:
            return .failed(PasswordVerificationFailure(code: .other, message: "\(error.code)", cause: error))
        }
    }
}
