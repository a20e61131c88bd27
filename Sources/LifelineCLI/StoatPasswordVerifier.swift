import LifelineCore
import LifelineStoat
import LifelineStore

/// Verifies a password with a Stoat server by logging in: the sign-in flow's "verify password".
///
/// It lives in the command line because it joins two libraries that DESIGN.md keeps apart
/// (`LifelineStoat` and `LifelineStore`); an app writes the same few lines.
struct StoatPasswordVerifier: PasswordVerifier {
    let api: StoatAPI
    let friendlyName: String?

    func verifyPassword(email: String, password: String) async -> PasswordVerification {
        do {
            switch try await api.login(email: email, password: password, friendlyName: friendlyName) {
            case .success(let credentials):
                return .verified(credentials)
            case .mfa:
                return .failed(PasswordVerificationFailure(code: .mfaRequired, message: "The account needs an MFA code."))
            case .disabled:
                return .failed(PasswordVerificationFailure(code: .accountDisabled, message: "The account is disabled."))
            }
        } catch {
            switch error.code {
            case .invalidCredentials: return .wrongPassword
            case .network, .timeout: return .unreachable
            case .lockedOut:
                return .failed(PasswordVerificationFailure(code: .rateLimited, message: "Too many attempts.", cause: error))
            default:
                return .failed(PasswordVerificationFailure(code: .other, message: "\(error.code)", cause: error))
            }
        }
    }
}
