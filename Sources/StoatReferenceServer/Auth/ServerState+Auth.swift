#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Why a REST request failed: a Stoat error (`{"type":…}` with its status), or a request guard or body that
/// Rocket's default catcher answers (see ``FrameworkCatcher``).
enum RouteFailure: Error, Sendable {
    case stoat(APIError)
    case framework(status: Int)
}

/// The authentication facet: stoatchat's request guards (`crates/core/database/src/models/sessions/rocket.rs`,
/// `users/rocket.rs`), login (`crates/delta/src/routes/session/login.rs`), sessions, onboarding and the
/// account actions that end sessions.
extension ServerState {
    // MARK: Guards

    /// The `Session` guard: a valid `X-Session-Token`, else a 401 from the framework's catcher (a missing
    /// header, an unknown token, or a lookup that failed during the outage fault).
    func sessionGuard(_ token: String?) throws(RouteFailure) -> SessionRecord {
        guard let token else { throw .framework(status: 401) }
        if sessionOutageActive() {
            outageSessionChecks += 1
            changed()
            throw .framework(status: 401)
        }
        guard let session = sessions[token] else { throw .framework(status: 401) }
        return session
    }

    /// The `User` guard: a bot by `X-Bot-Token` when that header is present, else the user of a valid session;
    /// otherwise a 401 from the framework's catcher.
    func userGuard(sessionToken: String?, botToken: String?) throws(RouteFailure) -> StoatUser {
        if let botToken {
            if sessionOutageActive() {
                outageSessionChecks += 1
                changed()
                throw .framework(status: 401)
            }
            guard let botID = botIDByToken[botToken], let user = users[botID] else { throw .framework(status: 401) }
            return user
        }
        let session = try sessionGuard(sessionToken)
        guard let user = users[session.userID] else { throw .framework(status: 401) }
        return user
    }

    /// The session id a request is rate limited by, when its session token is valid (not counted as a check).
    func rateLimitIdentity(sessionToken: String?) -> String? {
        guard let sessionToken, !sessionOutageActive() else { return nil }
        return sessions[sessionToken]?.id
    }

    // MARK: Login

    /// The outcome of a login request, before it is encoded.
    enum LoginOutcome {
        case success(SessionRecord)
        case mfa(ticket: String, methods: [String])
        case disabled(userID: String)
    }

    /// A login by email and password, in stoatchat's order of checks: the account (else InvalidCredentials),
    /// its verification (UnverifiedAccount), its lockout (LockedOut), the password (InvalidCredentials, counted
    /// towards the lockout), then MFA (a ticket) and only then Disabled.
    func login(email: String, password: String, friendlyName: String?) throws(RouteFailure) -> LoginOutcome {
        let location = "crates/delta/src/routes/session/login.rs"
        if let forced = takeForcedLogin(email: email, friendlyName: friendlyName) { return try forced.get() }
        guard EmailAddress.normalised(email) != nil else { throw .framework(status: 500) }
        guard var account = account(email: email) else {
            throw .stoat(APIError(.invalidCredentials, at: location))
        }
        guard account.verified else { throw .stoat(APIError(.unverifiedAccount, at: location)) }
        let instant = now()
        if account.lockout.isLocked(at: instant) { throw .stoat(APIError(.lockedOut, at: location)) }
        guard account.passwordHash.verify(password) else {
            account.lockout.recordFailure(at: instant, policy: configuration.lockoutPolicy)
            upsert(account: account)
            throw .stoat(APIError(.invalidCredentials, at: "crates/core/database/src/models/accounts/model.rs"))
        }
        if account.lockout != LoginLockout() {
            account.lockout.recordSuccess()
            upsert(account: account)
        }
        if account.hasMFA { return issueTicket(accountID: account.id, friendlyName: friendlyName) }
        return finishLogin(account, friendlyName: friendlyName)
    }

    /// A login completing an MFA ticket: the ticket (valid 5 minutes, else InvalidToken), then the response
    /// checked against the account's methods (DisallowedMFAMethod for one it lacks, InvalidToken for a wrong
    /// code), then Disabled or Success. The ticket is not consumed, as stoatchat's login route leaves it.
    func login(
        ticket token: String, response: LoginRequest.MFAResponse?, friendlyName: String?
    ) throws(RouteFailure) -> LoginOutcome {
        let location = "crates/core/database/src/models/mfa_tickets/ops/mongodb.rs"
        if let forced = takeForcedLogin(email: nil, friendlyName: friendlyName) { return try forced.get() }
        guard let ticket = tickets[token], ticket.createdAt.addingTimeInterval(300) > now() else {
            throw .stoat(APIError(.invalidToken, at: location))
        }
        guard var account = accounts[ticket.accountID] else { throw .stoat(APIError(.invalidToken, at: location)) }
        let accountLocation = "crates/core/database/src/models/accounts/model.rs"
        guard let response else {
            throw .stoat(APIError(.invalidToken, at: "crates/delta/src/routes/session/login.rs"))
        }
        let methods = account.mfaMethods
        switch response {
        case .password(let password):
            guard methods.contains("Password") else {
                throw .stoat(APIError(.disallowedMFAMethod, at: accountLocation))
            }
            guard account.passwordHash.verify(password) else {
                throw .stoat(APIError(.invalidCredentials, at: accountLocation))
            }
        case .totp(let code):
            guard methods.contains("Totp"), let secret = account.totpSecret else {
                throw .stoat(APIError(.disallowedMFAMethod, at: accountLocation))
            }
            let current = TOTP.code(secret: secret, at: now())
            guard code == ticket.totpCodeAtCreation || code == current else {
                throw .stoat(APIError(.invalidToken, at: accountLocation))
            }
        case .recovery(let code):
            guard methods.contains("Recovery") else {
                throw .stoat(APIError(.disallowedMFAMethod, at: accountLocation))
            }
            guard let index = account.recoveryCodes.firstIndex(of: code) else {
                throw .stoat(APIError(.invalidToken, at: accountLocation))
            }
            account.recoveryCodes.remove(at: index)
            upsert(account: account)
        }
        return finishLogin(account, friendlyName: friendlyName ?? ticket.friendlyName)
    }

    private func finishLogin(_ account: Account, friendlyName: String?) -> LoginOutcome {
        if account.disabled { return .disabled(userID: account.id) }
        return .success(createSession(userID: account.id, name: friendlyName ?? "Unknown"))
    }

    /// The next forced login answer, if the fault queued one.
    private func takeForcedLogin(email: String?, friendlyName: String?) -> Result<LoginOutcome, RouteFailure>? {
        guard !faults.forcedLogins.isEmpty else { return nil }
        let answer = faults.forcedLogins.removeFirst()
        changed()
        let accountID = email.flatMap { account(email: $0)?.id } ?? Identifiers.ulid(at: now())
        switch answer.kind {
        case .error(let kind):
            return .failure(.stoat(APIError(kind, at: "lifeline:forced-login")))
        case .mfa:
            return .success(issueTicket(accountID: accountID, friendlyName: friendlyName))
        case .disabled:
            return .success(.disabled(userID: accountID))
        }
    }

    private func issueTicket(accountID: String, friendlyName: String?) -> LoginOutcome {
        let token = Identifiers.token()
        let account = accounts[accountID]
        let instant = now()
        tickets[token] = MFATicket(
            id: Identifiers.ulid(at: instant), accountID: accountID, friendlyName: friendlyName, createdAt: instant,
            totpCodeAtCreation: account?.totpSecret.map { TOTP.code(secret: $0, at: instant) })
        return .mfa(ticket: token, methods: account?.mfaMethods ?? ["Totp"])
    }

    // MARK: Sessions

    /// `POST /auth/session/logout`: the session is deleted; its sockets receive `Logout`.
    func logout(token: String?) throws(RouteFailure) {
        let session = try sessionGuard(token)
        revoke(token: session.token)
    }

    /// `GET /auth/session/all`: `[{"_id", "name"}]` of the session's user.
    func allSessions(token: String?) throws(RouteFailure) -> Wire {
        let session = try sessionGuard(token)
        let list = sessions.values.filter { $0.userID == session.userID }.sorted { $0.id < $1.id }
        return .array(list.map { .object(["_id": .string($0.id), "name": .string($0.name)]) })
    }

    // MARK: Onboarding

    /// `GET /onboard/hello`.
    func onboardingNeeded(token: String?) throws(RouteFailure) -> Bool {
        let session = try sessionGuard(token)
        return users[session.userID] == nil
    }

    /// `POST /onboard/complete` (`crates/delta/src/routes/onboard/complete.rs`, `User::create`): validation, then
    /// the blocked names, then a free discriminator.
    func completeOnboarding(token: String?, username: String) throws(RouteFailure) -> Wire {
        let location = "crates/delta/src/routes/onboard/complete.rs"
        let session = try sessionGuard(token)
        guard users[session.userID] == nil else { throw .stoat(APIError(.alreadyOnboarded, at: location)) }
        guard UsernameRule.isValid(username) else {
            throw .stoat(.validation("username: Validation error: username [{}]", at: location))
        }
        let modelLocation = "crates/core/database/src/models/users/model.rs"
        guard !UsernameRule.isBlocked(username) else { throw .stoat(APIError(.invalidUsername, at: modelLocation)) }
        guard let discriminator = freeDiscriminator(for: username) else {
            throw .stoat(APIError(.usernameTaken, at: modelLocation))
        }
        let user = StoatUser(id: session.userID, username: username, discriminator: discriminator)
        upsert(user: user)
        changed()
        return user.seen(by: user, online: isOnline(user.id)).wire
    }

    // MARK: Account actions

    /// Disables the account as its owner would (`Account::disable`): every session is deleted, and a later
    /// login answers `Disabled`.
    func disableAccount(userID: String) -> Bool {
        guard var account = accounts[userID] else { return false }
        account.disabled = true
        upsert(account: account)
        deleteAllSessions(userID: userID)
        return true
    }

    /// Suspends the user as stoatchat's `User::suspend` does: the account is disabled, its sessions deleted,
    /// and the user's flags set to 1 (announced as `UserUpdate`).
    func suspendAccount(userID: String) -> Bool {
        guard accounts[userID] != nil || users[userID] != nil else { return false }
        _ = disableAccount(userID: userID)
        if var user = users[userID] {
            user.flags = 1
            upsert(user: user)
            publish(
                .userUpdate(
                    id: userID, data: .object(["flags": .uint(1)]), clear: [], eventID: Identifiers.ulid(at: now())),
                to: userTopics(userID))
        }
        return true
    }

    /// Lifts a suspension or a disabling: the account logs in again and the user's flags are 0 (announced as
    /// `UserUpdate` when they change).
    func reinstateAccount(userID: String) -> Bool {
        guard var account = accounts[userID] else { return false }
        account.disabled = false
        upsert(account: account)
        if var user = users[userID], user.flags != 0 {
            user.flags = 0
            upsert(user: user)
            publish(
                .userUpdate(
                    id: userID, data: .object(["flags": .uint(0)]), clear: [], eventID: Identifiers.ulid(at: now())),
                to: userTopics(userID))
        }
        return true
    }

    func setFlags(_ flags: UInt32, userID: String) -> Bool {
        guard var user = users[userID] else { return false }
        user.flags = flags
        upsert(user: user)
        return true
    }

    /// `GET /users/{id}/flags`: the user's flags, 0 for an unknown user.
    func flags(userID: String) -> UInt32 {
        users[userID]?.flags ?? 0
    }
}

/// A decoded `POST /auth/session/login` body: stoatchat's untagged `DataLogin`, `Email` tried first.
struct LoginRequest: Sendable {
    /// stoatchat's untagged `MFAResponse`: `password`, then `recovery_code`, then `totp_code`.
    enum MFAResponse: Sendable, Equatable {
        case password(String)
        case recovery(String)
        case totp(String)

        init?(_ value: JSONValue) {
            guard case .object(let object) = value else { return nil }
            if let password = object["password"]?.stringValue {
                self = .password(password)
            } else if let code = object["recovery_code"]?.stringValue {
                self = .recovery(code)
            } else if let code = object["totp_code"]?.stringValue {
                self = .totp(code)
            } else {
                return nil
            }
        }
    }

    enum Credentials: Sendable, Equatable {
        case email(String, password: String)
        case ticket(String, response: MFAResponse?)
    }

    var credentials: Credentials
    var friendlyName: String?

    /// Reads the body as serde reads `DataLogin`; nil when it matches neither variant (a 422).
    init?(_ body: JSONValue) {
        guard case .object(let object) = body else { return nil }
        let friendly = object["friendly_name"]
        guard friendly == nil || friendly == .null || friendly?.stringValue != nil else { return nil }
        friendlyName = friendly?.stringValue
        if let email = object["email"]?.stringValue, let password = object["password"]?.stringValue {
            credentials = .email(email, password: password)
        } else if let ticket = object["mfa_ticket"]?.stringValue {
            let response = object["mfa_response"]
            if let response, response != .null {
                guard let parsed = MFAResponse(response) else { return nil }
                credentials = .ticket(ticket, response: parsed)
            } else {
                credentials = .ticket(ticket, response: nil)
            }
        } else {
            return nil
        }
    }
}
