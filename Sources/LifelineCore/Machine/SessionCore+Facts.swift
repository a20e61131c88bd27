// The facet of the machine that records facts which are not transitions: the network, account standings,
// health alerts, refused logins.

extension SessionCore {
    // MARK: - Facts that are not transitions

    /// ``SessionMachine`` documents `networkChanged`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func networkChanged(
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

    /// ``SessionMachine`` documents `accountStandingReceived`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func accountStandingReceived(_ standing: AccountStanding?, lookup: UInt64) -> Output {
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

    /// ``SessionMachine`` documents `onboardingRefused`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func onboardingRefused(_ cause: any Error, message: String) -> Output {
        lastError = .onboardingRefused(message: message, cause: cause)
        return .updated(actions: [])
    }

    /// ``SessionMachine`` documents `healthAnswered`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func healthAnswered(poll: UInt64, alert: OutageAlert?, pollInterval: Duration?) -> Output {
        guard case .asking(let asked)? = healthPoll, asked == poll else { return .ignored }
        outageAlert = alert
        return armNextHealthPoll(after: pollInterval ?? healthPollInterval)
    }

    /// ``SessionMachine`` documents `healthPollFailed`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func healthPollFailed(poll: UInt64) -> Output {
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

    /// ``SessionMachine`` documents `loginFailed`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func loginFailed(_ failure: LoginFailure, userID: String? = nil) -> Output {
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

    /// ``SessionMachine`` documents `userIdentified`: this is its logic, over timer ids and connection generations.
    @usableFromInline
    mutating func userIdentified(_ userID: String) -> Output {
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
