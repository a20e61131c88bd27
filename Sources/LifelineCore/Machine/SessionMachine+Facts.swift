// The facet of the machine that records facts which are not transitions: the network, account standings,
// health alerts, refused logins.

extension SessionMachine {
    // MARK: - Facts that are not transitions

    /// Records the device's network state, and fires the transition it means where the state accepts one:
    /// DEVICE_OFFLINE in DISCONNECTED, DEVICE_ONLINE in OFFLINE.
    ///
    /// A network change elsewhere is only recorded: going offline while CONNECTED is noticed when the
    /// socket fails, and DISCONNECTED then goes straight on to OFFLINE.
    ///
    /// - Returns: The transition; ``Output/updated(actions:)`` with no action when the change was only
    ///   recorded; ``Output/ignored`` when the network did not change.
    public mutating func networkChanged(
        isOnline: Bool,
        using generator: inout some RandomNumberGenerator
    ) -> Output {
        guard isOnline != isDeviceOnline else { return .ignored }
        isDeviceOnline = isOnline
        switch (isOnline, current) {
        case (false, .disconnected): return handle(.deviceOffline, using: &generator)
        case (true, .offline): return handle(.deviceOnline, using: &generator)
        default: return .updated(actions: [])
        }
    }

    /// Records the account standing a ``SessionAction/fetchAccountStanding(userID:lookup:)`` found: it
    /// tailors ERROR's message, or READY's notice after an external logout or a login refused as
    /// `Disabled`. `nil` means the lookup failed; what it would have tailored stays as it is.
    ///
    /// - Parameters:
    ///   - standing: The standing, or `nil` when the lookup failed.
    ///   - lookup: The lookup's id; an answer to any lookup but the pending one is ignored.
    /// - Returns: ``Output/updated(actions:)`` (with no action) when the presentation changed, else
    ///   ``Output/ignored``.
    @discardableResult
    public mutating func accountStandingReceived(_ standing: AccountStanding?, lookup: UInt64) -> Output {
        if case .error(var error, let credentials, let pending?) = current, pending == lookup {
            error.standing = standing
            error.isCheckingAccount = false
            current = .error(error, credentials, lookup: nil)
            return .updated(actions: [])
        }
        guard let pending = noticeLookup, pending.id == lookup else { return .ignored }
        noticeLookup = nil
        // An account in good standing keeps the notice the lookup would have tailored: "You were logged
        // out", or the refused login's "This account has been disabled".
        guard let standing, standing != .loggedOut else { return .ignored }
        switch (pending.purpose, current) {
        case (.logout, .dispose):
            logoutStanding = standing
            return .ignored
        case (.logout, .ready) where notice == .loggedOut, (.disabled, .ready):
            notice = .accountStanding(standing)
            return .updated(actions: [])
        default:
            return .ignored
        }
    }

    /// The server refused to complete onboarding (``SessionAction`` has none: the interface asked for it):
    /// the machine records it as the ``lastError``, in whatever state the session is now.
    ///
    /// - Parameters:
    ///   - cause: The refusal.
    ///   - message: A message for people; never a token or a password.
    /// - Returns: ``Output/updated(actions:)`` with no action: the last error changed.
    @discardableResult
    public mutating func onboardingRefused(_ cause: any Error, message: String) -> Output {
        lastError = .onboardingRefused(message: message, cause: cause)
        return .updated(actions: [])
    }

    /// The health service answered poll `poll` (``SessionAction/pollHealth(poll:)``): the machine records its
    /// alert (or its absence) and arms the timer of the next poll, after the service's `pollInterval` (or
    /// ``healthPollInterval``) kept within ``healthPollBounds``.
    ///
    /// - Returns: The timer to arm, or ``Output/ignored`` for a poll the machine no longer waits for (polling
    ///   stopped, or a later poll began). Whether the presentation changed shows in ``outageAlert``.
    public mutating func healthAnswered(poll: UInt64, alert: OutageAlert?, pollInterval: Duration?) -> Output {
        guard case .asking(let asked)? = healthPoll, asked == poll else { return .ignored }
        outageAlert = alert
        return armNextHealthPoll(after: pollInterval ?? healthPollInterval)
    }

    /// Poll `poll` of the health service failed (no answer): the alert shown stays, and the next poll is
    /// armed after ``healthPollInterval``.
    ///
    /// - Returns: The timer to arm, or ``Output/ignored`` for a poll the machine no longer waits for.
    public mutating func healthPollFailed(poll: UInt64) -> Output {
        guard case .asking(let asked)? = healthPoll, asked == poll else { return .ignored }
        return armNextHealthPoll(after: healthPollInterval)
    }

    private mutating func armNextHealthPoll(after interval: Duration) -> Output {
        // Compared, not computed: a service's absurd interval cannot overflow anything.
        let delay = min(max(interval, healthPollBounds.lowerBound), healthPollBounds.upperBound)
        let timer = SessionTimer(id: nextTicket(), purpose: .healthPoll, delay: delay)
        healthPoll = .waiting(timer: timer.id)
        return .updated(actions: [arm(timer)])
    }

    /// Records why a login at the login interface failed, for the login screen's notice. Only READY shows
    /// it. A login refused as `Disabled` carries the account's user id: the account's standing is looked
    /// up, and a suspended, banned, deleted or spam account is named as such when the answer comes.
    ///
    /// - Parameters:
    ///   - failure: Why the login failed.
    ///   - userID: The account's user id when the refusal names it (Stoat's `Disabled`), else `nil`.
    /// - Returns: The lookup to perform, or ``Output/ignored`` outside READY.
    public mutating func loginFailed(_ failure: LoginFailure, userID: String? = nil) -> Output {
        guard case .ready = current else { return .ignored }
        notice = .loginFailed(failure)
        guard let userID else {
            noticeLookup = nil
            return .updated(actions: [])
        }
        let lookup = nextTicket()
        noticeLookup = (lookup, .disabled)
        return .updated(actions: [.fetchAccountStanding(userID: userID, lookup: lookup)])
    }

    /// The server named the session's user — the client read it from `Ready` (the user whose relationship is
    /// `User`) — for a session that began without one (a token alone): its credentials carry it from now on, so
    /// that an ending the session meets later (a suspension, a ban) is looked up and named. A session that already
    /// names its user keeps it: the user id it signed in with is the one source of who the user is.
    ///
    /// - Parameter userID: The user the server named.
    /// - Returns: ``Output/updated(actions:)`` with no action when the credentials changed, else
    ///   ``Output/ignored``.
    @discardableResult
    public mutating func userIdentified(_ userID: String) -> Output {
        func named(_ credentials: SessionCredentials) -> SessionCredentials? {
            guard credentials.userID == nil else { return nil }
            var named = credentials
            named.userID = userID
            return named
        }
        switch current {
        case .ready, .dispose:
            return .ignored
        case .loggingIn(let c, let attempt):
            guard let n = named(c) else { return .ignored }
            current = .loggingIn(n, attempt)
        case .onboarding(let c):
            guard let n = named(c) else { return .ignored }
            current = .onboarding(n)
        case .error(let error, let c, let lookup):
            guard let n = named(c) else { return .ignored }
            current = .error(error, n, lookup: lookup)
        case .connecting(let c, let attempt):
            guard let n = named(c) else { return .ignored }
            current = .connecting(n, attempt)
        case .connected(let c, let generation):
            guard let n = named(c) else { return .ignored }
            current = .connected(n, generation: generation)
        case .disconnected(let c, let delay, let timer):
            guard let n = named(c) else { return .ignored }
            current = .disconnected(n, retryDelay: delay, timer: timer)
        case .reconnecting(let c, let attempt):
            guard let n = named(c) else { return .ignored }
            current = .reconnecting(n, attempt)
        case .offline(let c):
            guard let n = named(c) else { return .ignored }
            current = .offline(n)
        }
        return .updated(actions: [])
    }
}
