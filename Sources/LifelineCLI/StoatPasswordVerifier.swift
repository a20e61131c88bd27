import Foundation
import LifelineCore
import LifelineStoat
import LifelineStore

/// Verifies a password with a Stoat server by logging in, and ends the sessions the sign-in flow cannot use by
/// logging them out: the sign-in flow's "verify password".
///
/// It lives in the command line because it joins two libraries that DESIGN.md keeps apart
/// (`LifelineStoat` and `LifelineStore`); an app writes the same few lines.
struct StoatPasswordVerifier: PasswordVerifier {
    let api: StoatAPI
    let friendlyName: String?

    func verifyPassword(email: String, password: String) async -> PasswordVerification {
        do {
            return answer(try await api.login(email: email, password: password, friendlyName: friendlyName))
        } catch {
            return answer(error)
        }
    }

    func endSession(_ session: SessionCredentials) async {
        // Best effort: a session that cannot be ended now expires on the server.
        try? await api.logout(session)
    }

    private func answer(_ result: LoginResult) -> PasswordVerification {
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
                        return answer(
                            try await api.continueLogin(
                                ticket: challenge.ticket, response: mfa, friendlyName: friendlyName))
                    } catch {
                        return answer(error)
                    }
                })
        case .disabled:
            return .failed(PasswordVerificationFailure(code: .accountDisabled, message: "The account is disabled."))
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
