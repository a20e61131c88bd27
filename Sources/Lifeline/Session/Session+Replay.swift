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
        modify { machine, _ in machine.requested(event, playable: playable) }
    }

    // MARK: - Running the plan

    /// Starts a play of the plan on the live connection (``ReplayPlayer``); the machine arms the timeout of one
    /// whose answer is awaited, and the plan ignores an answer after it.
    func startPlay(_ play: ReplayPlan.Play) {
        let pending = player.start(
            play, on: machine.liveConnection?.attachment, in: workload,
            answered: { await self.reported(.playAnswered(play.id, succeeded: $0)) },
            handOver: { await self.playsAnsweredAtOnce() })
        if pending { modify(quiet: true) { machine, _ in machine.playPending(play.id) } }
    }

    /// Hands the plays answered at once to the plan, in order (with those they start), then publishes once.
    func playsAnsweredAtOnce() {
        var changed = false
        while let (id, succeeded) = player.next() {
            changed = reported(.playAnswered(id, succeeded: succeeded), quiet: true) || changed
        }
        if changed { publish(transitions: []) }
    }
}
