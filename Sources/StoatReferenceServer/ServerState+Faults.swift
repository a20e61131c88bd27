#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The faults facet: what the server does wrong on purpose, each undone by ``resetFaults()``.
extension ServerState {
    func refuseUpgrades(_ count: Int) {
        faults.refuseUpgrades = max(0, count)
        changed()
    }

    func failMessageQueries(_ count: Int, after passing: Int = 0) {
        faults.failMessageQueries = max(0, count)
        faults.passMessageQueries = max(0, passing)
        changed()
    }

    func resetRequestCounts() { requestCounts = [:] }

    func setSilent(_ silent: Bool) { faults.silent = silent }
    func setIgnorePings(_ ignore: Bool) { faults.ignorePings = ignore }
    func setReadyDelay(_ delay: Duration?) { faults.readyDelay = delay }
    func setReadyMinimumBytes(_ bytes: Int?) { faults.readyMinimumBytes = bytes }
    func setCloseFramesOnServerEnds(_ enabled: Bool) { faults.closeFramesOnServerEnds = enabled }

    func forceLogins(_ answer: LoginAnswer, count: Int) {
        faults.forcedLogins.append(contentsOf: Array(repeating: answer, count: max(0, count)))
    }

    func setHealth(alert: HealthAlert?, pollRate: Int?) {
        faults.health = HealthState(alert: alert, pollRate: pollRate)
    }

    func health() -> HealthState { faults.health }

    /// Session-token lookups fail for `duration` of the server's clock, or until cleared when nil, as they do
    /// in stoatchat when its database fails during the lookup. The counters start again at zero.
    func failSessionLookups(for duration: Duration?) {
        faults.sessionOutageForever = duration == nil
        faults.sessionOutageUntil = duration.map { now().addingTimeInterval($0.seconds) }
        outageSessionChecks = 0
        outageSocketRefusals = 0
        changed()
    }

    func restoreSessionLookups() {
        faults.sessionOutageForever = false
        faults.sessionOutageUntil = nil
        changed()
    }

    /// Whether the session-lookup outage is in force now.
    func sessionOutageActive() -> Bool {
        if faults.sessionOutageForever { return true }
        guard let until = faults.sessionOutageUntil else { return false }
        return now() < until
    }

    func resetFaults() {
        faults = Faults()
        clockSkew = .zero
        changed()
    }

    /// Sends `text` verbatim to the sockets of the session (or bot) `token` (every live socket when nil).
    func sendRaw(_ text: String, token: String?) -> Int {
        let targets = connections.values.filter { token == nil || $0.record.token == token }
        for connection in targets { connection.socket.send(text) }
        return targets.count
    }

    /// Forgets every rate-limit bucket.
    func resetRateLimits() {
        rateLimiter.reset()
    }
}
