import LifelineCore
import LifelineStoat
import StoatReferenceServer
import Testing

@Suite("REST login against the reference server")
struct RESTLoginTests {
    @Test("a right email and password answer Success with the token, the user id and the session id")
    func loginSucceeds() async throws {
        try await withReferenceServer { server, api in
            let account = server.defaultAccount
            let result = try await api.login(email: account.email, password: account.password, friendlyName: "tests")
            guard case .success(let credentials) = result else {
                Issue.record("expected Success, got \(result)")
                return
            }
            #expect(credentials.userID == account.userID)
            #expect(credentials.sessionID?.isEmpty == false)
            #expect(!credentials.token.isEmpty && credentials.token != account.token)
            // The new token works.
            #expect(try await api.currentUser(credentials).id == account.userID)
        }
    }

    @Test("an MFA answer carries the ticket and methods, and a TOTP code completes it")
    func mfaWithTOTP() async throws {
        try await withReferenceServer { server, api in
            let secret: [UInt8] = Array("12345678901234567890".utf8)
            let account = try await server.addAccount(
                email: "mfa@lifeline.test", password: "mfa-password", username: "mfa", totpSecret: secret,
                recoveryCodes: ["abcd-efgh"])
            let first = try await api.login(email: account.email, password: account.password)
            guard case .mfa(let challenge) = first else {
                Issue.record("expected MFA, got \(first)")
                return
            }
            #expect(challenge.allowedMethods == [.totp, .recoveryCode])
            let code = TOTP.code(secret: secret, at: await server.now())
            let second = try await api.continueLogin(ticket: challenge.ticket, response: .totp(code))
            guard case .success(let credentials) = second else {
                Issue.record("expected Success, got \(second)")
                return
            }
            #expect(credentials.userID == account.userID)
            #expect(try await api.currentUser(credentials).username == "mfa")
        }
    }

    @Test("a recovery code completes an MFA login once; a wrong code is InvalidToken")
    func mfaWithRecoveryCode() async throws {
        try await withReferenceServer { server, api in
            let account = try await server.addAccount(
                email: "recovery@lifeline.test", password: "recovery-password", username: "recovery",
                totpSecret: Array("recovery-totp".utf8), recoveryCodes: ["abcd-efgh"])
            guard case .mfa(let challenge) = try await api.login(email: account.email, password: account.password)
            else {
                Issue.record("expected MFA")
                return
            }
            #expect(challenge.allowedMethods == [.totp, .recoveryCode])
            let wrong = try await apiError { () async throws(StoatAPIError) in
                try await api.continueLogin(ticket: challenge.ticket, response: .recoveryCode("zzzz-zzzz"))
            }
            #expect(wrong.code == .invalidToken)
            #expect(wrong.status == 401)
            let result = try await api.continueLogin(ticket: challenge.ticket, response: .recoveryCode("abcd-efgh"))
            guard case .success(let credentials) = result else {
                Issue.record("expected Success, got \(result)")
                return
            }
            #expect(credentials.userID == account.userID)
        }
    }

    @Test("a disabled account answers Disabled with its user id")
    func disabledAccount() async throws {
        try await withReferenceServer { server, api in
            let account = server.defaultAccount
            #expect(await server.disableAccount(userID: account.userID))
            let result = try await api.login(email: account.email, password: account.password)
            #expect(result == .disabled(userID: account.userID))
        }
    }

    @Test("a wrong password is InvalidCredentials (401)")
    func invalidCredentials() async throws {
        try await withReferenceServer { server, api in
            let error = try await apiError { () async throws(StoatAPIError) in
                try await api.login(email: server.defaultAccount.email, password: "wrong")
            }
            #expect(error.code == .invalidCredentials)
            #expect(error.kind == "InvalidCredentials")
            #expect(error.status == 401)
            #expect(error.location?.isEmpty == false)
            #expect(error.loginFailure.code == .api(.invalidCredentials))
            #expect(error.loginFailure.supportURL == nil)
        }
    }

    @Test("three wrong passwords lock the account: even the right one is then LockedOut (403)")
    func lockedOutAfterRepeatedFailures() async throws {
        try await withReferenceServer { server, api in
            let account = server.defaultAccount
            for _ in 0..<3 {
                let error = try await apiError { () async throws(StoatAPIError) in
                    try await api.login(email: account.email, password: "wrong")
                }
                #expect(error.code == .invalidCredentials)
            }
            let error = try await apiError { () async throws(StoatAPIError) in
                try await api.login(email: account.email, password: account.password)
            }
            #expect(error.code == .lockedOut)
            #expect(error.status == 403)
        }
    }

    @Test("an account whose email is not verified is UnverifiedAccount (403)")
    func unverifiedAccount() async throws {
        try await withReferenceServer { server, api in
            let account = try await server.addAccount(
                email: "unverified@lifeline.test", password: "unverified-password", username: nil, verified: false)
            let error = try await apiError { () async throws(StoatAPIError) in
                try await api.login(email: account.email, password: account.password)
            }
            #expect(error.code == .unverifiedAccount)
            #expect(error.status == 403)
        }
    }

    @Test("BlockedByShield (400) carries Stoat's support link, for the error and for the login interface")
    func blockedByShield() async throws {
        try await withReferenceServer { server, api in
            await server.answerNextLogins(with: .blockedByShield)
            let error = try await apiError { () async throws(StoatAPIError) in
                try await api.login(email: server.defaultAccount.email, password: server.defaultAccount.password)
            }
            #expect(error.code == .blockedByShield)
            #expect(error.status == 400)
            #expect(error.supportURL == "https://support.stoat.chat/kb/safety/blocked-for-spam")
            #expect(
                error.loginFailure
                    == LoginFailure(
                        code: .api(.blockedByShield), message: error.loginFailure.message,
                        supportURL: "https://support.stoat.chat/kb/safety/blocked-for-spam"))
        }
    }

    @Test(
        "each refusal kind the server sends maps to its code",
        arguments: [
            (StoatErrorKind.compromisedPassword, StoatAPIError.Code.compromisedPassword),
            (.captchaFailed, .captchaFailed),
            (.lockedOut, .lockedOut),
            (.unverifiedAccount, .unverifiedAccount),
            (.internalError, .internalError),
        ])
    func refusalKinds(kind: StoatErrorKind, code: StoatAPIError.Code) async throws {
        try await withReferenceServer { server, api in
            await server.answerNextLogins(with: .error(kind))
            let error = try await apiError { () async throws(StoatAPIError) in
                try await api.login(email: server.defaultAccount.email, password: server.defaultAccount.password)
            }
            #expect(error.code == code)
            #expect(error.status == kind.status)
        }
    }

    @Test("logout ends the session: its token then answers InvalidSession")
    func logoutInvalidatesToken() async throws {
        try await withReferenceServer { server, api in
            let credentials = SessionCredentials(
                token: server.defaultAccount.token, userID: server.defaultAccount.userID)
            _ = try await api.currentUser(credentials)
            try await api.logout(credentials)
            let error = try await apiError { () async throws(StoatAPIError) in
                try await api.currentUser(credentials)
            }
            #expect(error.code == .invalidSession)
            #expect(error.status == 401)
            let again = try await apiError { () async throws(StoatAPIError) in try await api.logout(credentials) }
            #expect(again.code == .invalidSession)
        }
    }
}
