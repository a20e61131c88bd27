public import LifelineCore

extension Session {
    // MARK: - The interface's API for significant events

    /// Subscribes to a server's events, now if connected and again after every reconnect.
    public func subscribe(server: String) { request(SignificantEvent(.subscribe, server)) }

    /// Stops restoring a server's subscription. Stoat has no frame for it: the subscription is simply not
    /// played again (it expires on the server after 15 minutes).
    public func unsubscribe(server: String) { request(SignificantEvent(.unsubscribe, server), playable: false) }

    /// Shows the user typing in a channel, on the current connection only: a typing indicator lives
    /// seconds, so it is never recorded nor replayed after a reconnect (and dropped when disconnected).
    public func beginTyping(channel: String) { request(SignificantEvent(.beginTyping, channel)) }

    /// Stops showing the user typing in a channel, on the current connection only.
    public func endTyping(channel: String) { request(SignificantEvent(.endTyping, channel)) }

    /// Plays any significant event, and records it for replay when its kind is recorded.
    ///
    /// - Parameters:
    ///   - event: The event.
    ///   - playable: Whether the protocol has a frame for it (an opposite without one only updates the record).
    public func request(_ event: SignificantEvent, playable: Bool = true) {
        perform(replay.requested(event, playable: playable))
        publish(transitions: [])
    }

    // MARK: - Running the plan

    func connectionMade(_ connection: any SessionConnection, generation: UInt64) {
        guard machine.liveGeneration == generation else { return }  // superseded while it was being made
        liveConnection = (generation, connection)
    }

    func perform(_ actions: [ReplayAction]) {
        for action in actions {
            switch action {
            case .play(let play):
                startPlay(play)
            case .cancelTimeout(let id):
                abandonPlay(id)
            case .armRetry(let id, let delay):
                let work = Work(client: true)
                playRetries[id] = work
                let deadline = clock.elapsed() + delay
                start(work, racing: true) { [clock] in
                    do { try await clock.sleepUntil(deadline) } catch { return }
                    await self.playRetryDue(id)
                }
            case .cancelRetry(let id):
                playRetries.removeValue(forKey: id)?.cancel()
            case .surface(let event, let attempts):
                logger.info(
                    "significant event failed",
                    metadata: ["lifeline.event": "\(event)", "lifeline.attempts": "\(attempts)"])
                publish(transitions: [])
            case .unsupported(let kind, let events):
                logger.info(
                    "significant events not supported by the server",
                    metadata: ["lifeline.kind": "\(kind)", "lifeline.events": "\(events.count)"])
                publish(transitions: [])
            }
        }
    }

    private func startPlay(_ play: ReplayPlan.Play) {
        guard let connection = liveConnection?.connection else {
            // CONNECTED always has a connection object; if it is gone the play fails and is retried.
            perform(replay.failed(play.id))
            return
        }
        // The play is one task; its timeout is a deadline for the session's one play timer, not a task. A
        // play that outlives its timeout ends with its connection, and its late answer is ignored.
        let work = Work(client: true)
        plays[play.id] = work
        if playDeadlines.isEmpty { playTimerWakeup.signal() }
        playDeadlines.insert(PlayDeadline(id: play.id), expiresAt: clock.elapsed() + configuration.replayTimeout)
        startPlayTimer()
        start(work, racing: false) {
            let succeeded: Bool
            do {
                try await connection.play(play.event)
                succeeded = true
            } catch {
                succeeded = false
            }
            await self.playFinished(play.id, succeeded: succeeded)
        }
    }

    private func playFinished(_ id: UInt64, succeeded: Bool) {
        guard plays.removeValue(forKey: id) != nil else { return }  // answered after it was abandoned
        playDeadlines.remove(id)
        perform(succeeded ? replay.played(id) : replay.failed(id))
        publish(transitions: [])
    }

    /// Stops waiting for a play: its deadline is forgotten; the play's task ends with its connection.
    func abandonPlay(_ id: UInt64) {
        plays.removeValue(forKey: id)
        playDeadlines.remove(id)
    }

    /// Starts the session's one play timer, unless it runs: it sleeps until the earliest play's deadline
    /// and fails the plays due. Every timeout is the same, so a new deadline is never earlier than one the
    /// timer sleeps for, and the timer need not be woken but when it had nothing to wait for.
    private func startPlayTimer() {
        guard playTimer == nil else { return }
        let work = Work(client: true)
        playTimer = work
        let wakeup = playTimerWakeup
        start(work, racing: true) { [clock] in
            while !Task.isCancelled {
                guard let deadline = await self.earliestPlayDeadline() else {
                    await wakeup.wait()
                    continue
                }
                do { try await clock.sleepUntil(deadline) } catch { return }
                await self.playDeadlinesPassed()
            }
        }
    }

    private func earliestPlayDeadline() -> Duration? { playDeadlines.earliestDeadline }

    private func playDeadlinesPassed() {
        for due in playDeadlines.popDue(at: clock.elapsed()) {
            guard plays.removeValue(forKey: due.id) != nil else { continue }
            perform(replay.failed(due.id))
            publish(transitions: [])
        }
    }

    private func playRetryDue(_ id: UInt64) {
        guard playRetries.removeValue(forKey: id) != nil else { return }  // cancelled after it fired
        perform(replay.retryTimerFired(id))
    }

    /// Plays the recorded subscriptions again every ``Configuration/subscriptionRenewal`` while connected.
    func startRenewal() {
        guard let interval = configuration.subscriptionRenewal else { return }
        renewal?.cancel()
        let work = Work(client: true)
        renewal = work
        start(work, racing: true) { [clock] in
            while true {
                do { try await clock.sleepUntil(clock.elapsed() + interval) } catch { return }
                await self.renewSubscriptions()
            }
        }
    }

    private func renewSubscriptions() {
        guard machine.state == .connected else { return }
        perform(replay.renew(.subscribe, limit: 5))
    }
}

/// A play's timeout, in the session's play timer.
struct PlayDeadline: Identifiable, Sendable {
    var id: UInt64
}
