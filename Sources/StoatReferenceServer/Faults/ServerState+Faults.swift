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

    /// Fails the next `count` acknowledgements' writes (after their `ChannelAck`), replacing any count pending.
    func failAckWrites(_ count: Int) {
        faults.failAckWrites = max(0, count)
        changed()
    }

    func setSilent(_ silent: Bool) { faults.silent = silent }

    /// Deafens the whole server (every socket, and every new one) while `deaf` holds.
    func setDeaf(_ deaf: Bool) {
        faults.deaf = deaf
        changed()
    }

    /// Deafens the sockets listening now (of `userIDs`, or all), for the rest of their lives; later sockets hear.
    /// Returns how many.
    func deafenListeningSockets(userIDs: Set<String>? = nil) -> Int {
        var count = 0
        for (id, connection) in connections where connection.phase == .listening && !connection.deaf {
            if let userIDs, !userIDs.contains(connection.record.userID ?? "") { continue }
            connections[id]?.deaf = true
            count += 1
        }
        changed()
        return count
    }

    /// Loses the answers to the next `count` sends the server stores.
    func loseSendAnswers(_ count: Int) {
        faults.loseSendAnswers = max(0, count)
        changed()
    }

    /// Whether the answer to the send just stored is to be lost; counts it down.
    func takeLostSendAnswer() -> Bool {
        guard faults.loseSendAnswers > 0 else { return false }
        faults.loseSendAnswers -= 1
        lostSendAnswers += 1
        changed()
        return true
    }

    /// Loses the answers to the next `count` message actions the server applies.
    func loseActionAnswers(_ count: Int) {
        faults.loseActionAnswers = max(0, count)
        changed()
    }

    /// Whether the answer to the action just applied is to be lost; counts it down.
    func takeLostActionAnswer() -> Bool {
        guard faults.loseActionAnswers > 0 else { return false }
        faults.loseActionAnswers -= 1
        changed()
        return true
    }
    func setIgnorePings(_ ignore: Bool) { faults.ignorePings = ignore }
    func setDropAfterReady(_ drop: Bool) { faults.dropAfterReady = drop }

    /// Under the drop-after-Ready fault, ends connection `id` (whose Ready was just queued) without a close
    /// frame; returns whether it did.
    func dropIfFaulted(_ id: Int) -> Bool {
        guard faults.dropAfterReady, let connection = connections[id] else { return false }
        connections[id]?.phase = .ended
        connection.socket.outbound.yield(.drop)
        changed()
        return true
    }
    func setReadyDelay(_ delay: Duration?) { faults.readyDelay = delay }
    /// Holds every `Ready` from now on, or lets the held ones go.
    func setReadyHeld(_ held: Bool) {
        faults.readyHeld = held
        guard !held else { return }
        let released = heldReadys
        heldReadys = []
        for ready in released { ready.resume() }
    }
    /// Returns once `Ready` may go: at once unless Readys are held.
    func readyMayGo() async {
        guard faults.readyHeld else { return }
        await withCheckedContinuation { heldReadys.append($0) }
    }
    /// Pads every `Ready` to `bytes`, at most ``AdminLimits/largestReady`` (64 MiB).
    func setReadyMinimumBytes(_ bytes: Int?) {
        faults.readyMinimumBytes = bytes.map { min($0, AdminLimits.largestReady) }
    }
    func setCloseFramesOnServerEnds(_ enabled: Bool) { faults.closeFramesOnServerEnds = enabled }

    func forceLogins(_ answer: LoginAnswer, count: Int) {
        let room = max(0, AdminLimits.count.upperBound - faults.forcedLogins.count)
        faults.forcedLogins.append(contentsOf: Array(repeating: answer, count: min(max(0, count), room)))
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
        uploadLimits = configuration.uploadLimits
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
