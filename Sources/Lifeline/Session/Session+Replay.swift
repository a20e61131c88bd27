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

    /// Performs one action of the machine's replay plan.
    func perform(_ action: ReplayAction) {
        switch action {
        case .play(let play):
            startPlay(play)
        case .cancelTimeout, .armRetry, .cancelRetry:
            break  // the machine turns the plan's timers into its own (`armTimer`, `cancelTimer`)
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

    private func startPlay(_ play: ReplayPlan.Play) {
        guard let connection = machine.liveConnection?.connection else {
            // CONNECTED always has a connection object; if it is gone the play fails and is retried.
            modify(quiet: true) { machine, _ in machine.playAnswered(play.id, succeeded: false) }
            return
        }
        switch connection.startPlay(play.event) {
        case .succeeded:
            answeredAtOnce(play.id, succeeded: true)
        case .failed:
            answeredAtOnce(play.id, succeeded: false)
        case .pending(let answer):
            // The play is one task; the machine arms its timeout, an entry in the session's deadline timer. A play
            // that outlives its timeout ends with its connection, and the plan ignores its late answer.
            modify(quiet: true) { machine, _ in machine.playPending(play.id) }
            submit(.play(play.id, answer: answer), racing: false, client: true)
        }
    }

    /// Keeps the answer of a play the connection answered at once, for ``playsAnsweredAtOnce()``.
    ///
    /// Decision: the answer is handled in a later turn of the actor, as an awaited answer is (so a transition's
    /// own snapshot still comes before its plays' answers), but a whole run of such answers in one: the first
    /// costs one job, and each play the plan starts from an answer is answered in the same loop — a sequential
    /// replay of 1 000 subscriptions takes one job, no timeout, and one snapshot, not 1 000 of each.
    private func answeredAtOnce(_ id: UInt64, succeeded: Bool) {
        immediateAnswers.append((id, succeeded))
        guard !immediateAnswersDue else { return }
        immediateAnswersDue = true
        submit(.answerPlays, racing: false, client: false, counted: false)
    }

    /// Hands the plays answered at once to the plan, in order, with the plays they start, then publishes one
    /// snapshot when anything changed.
    func playsAnsweredAtOnce() {
        defer {
            immediateAnswers.removeAll(keepingCapacity: true)
            immediateAnswersDue = false
        }
        var changed = false
        var index = 0
        // The plays the answers start may be answered at once too: they join the end of the list. A play the
        // plan no longer waits for changes nothing.
        while index < immediateAnswers.count {
            let (id, succeeded) = immediateAnswers[index]
            index += 1
            changed = modify(quiet: true) { machine, _ in machine.playAnswered(id, succeeded: succeeded) } || changed
        }
        if changed { publish(transitions: []) }
    }

    /// A play's awaited answer: what the plan answers is published; a play it no longer waits for changes
    /// nothing.
    func playFinished(_ id: UInt64, succeeded: Bool) {
        modify { machine, _ in machine.playAnswered(id, succeeded: succeeded) }
    }
}
