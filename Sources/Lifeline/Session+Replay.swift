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
                plays.removeValue(forKey: id)?.cancel()
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
            }
        }
    }

    private func startPlay(_ play: ReplayPlan.Play) {
        guard let connection = liveConnection?.connection else {
            // CONNECTED always has a connection object; if it is gone the play fails and is retried.
            perform(replay.failed(play.id))
            return
        }
        let timeout = configuration.replayTimeout
        let work = Work(client: true)
        plays[play.id] = work
        start(work, racing: true) { [clock] in
            let succeeded = await withTaskGroup(of: Bool?.self) { group in
                group.addTask {
                    do {
                        try await connection.play(play.event)
                        return true
                    } catch {
                        return false
                    }
                }
                group.addTask {
                    do { try await clock.sleepUntil(clock.elapsed() + timeout) } catch { return nil }
                    return false
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
            guard let succeeded else { return }  // cancelled: the plan already moved on
            await self.playFinished(play.id, succeeded: succeeded)
        }
    }

    private func playFinished(_ id: UInt64, succeeded: Bool) {
        guard plays.removeValue(forKey: id) != nil else { return }  // answered after it was abandoned
        perform(succeeded ? replay.played(id) : replay.failed(id))
        publish(transitions: [])
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
