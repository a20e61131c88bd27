/// The acknowledgements the user asked for (``StoatClient/ack(channel:message:)``), as pure bookkeeping: which id
/// each channel's next `PUT /channels/{id}/ack/{message}` carries, and when it may go.
///
/// stoatchat writes an ack's `last_id` unconditionally (`$set`), so an older id sent after a newer one moves the
/// user's read marker back on every device; and acks share the channel's `channels` rate-limit bucket (15 per
/// 10 s) with the catch-up and the outbox's look-ups. So, per channel:
/// - only the newest id asked for is sent, never one at or below an id in flight or accepted;
/// - a request goes ``quiet`` after the last ask, and at most ``longest`` after the first ask it carries (Stoat's
///   SDK debounces the same way), so two requests of a channel are at least ``quiet`` apart; one is in flight at
///   a time, so the server never receives an older id last;
/// - a refusal (a 4xx, or a 5xx: stoatchat publishes `ChannelAck` before its write fails) takes the chat back to
///   the read state it had before the first ack the server has not accepted (``Action/undo(channel:upTo:restore:)``),
///   unless a newer ack is pending; a failure that says nothing (the network, a timeout, the rate limiter) sends
///   the newest id again later (``quiet``, doubling up to ``longestRetry``).
///
/// It reads no clock (`now` comes in) and does no I/O; `AckEngine` performs its actions.
struct AckQueue: Sendable {
    /// How long after the last ask a request goes.
    static let quiet: Duration = .milliseconds(1500)
    /// How long after the first ask it carries a request goes at the latest.
    static let longest: Duration = .seconds(4)
    /// The longest wait before a failed request is sent again.
    static let longestRetry: Duration = .seconds(30)

    /// One channel's acknowledgements.
    struct Lane: Sendable, Equatable {
        /// The newest id asked for and not sent yet.
        var pending: String?
        /// When the first ask the pending request carries came.
        var firstAskedAt: Duration?
        /// When the pending request may go.
        var due: Duration?
        /// The id of the request in flight.
        var inFlight: String?
        /// The newest id the server accepted.
        var accepted: String?
        /// The read state before the first ack the server has not accepted: what a refusal restores.
        var baseline: ReadState?
        /// Failures since the last answer that said something, for the backoff.
        var retries = 0

        /// The newest id in flight or accepted: no request carries one at or below it.
        var floor: String? { [inFlight, accepted].compactMap { $0 }.max() }
    }

    /// What the engine must do, in order.
    enum Action: Sendable, Equatable {
        /// Wake the queue for `channel` at `at` (replacing its wake-up) with ``woke(channel:now:)``.
        case wake(channel: String, at: Duration)
        /// `PUT /channels/{channel}/ack/{message}`, then report ``answered(channel:message:_:now:)``.
        case send(channel: String, message: String)
        /// The server refused the acks up to `upTo`: the chat's read state goes back to `restore` (unless the
        /// marker moved past `upTo` meanwhile, by another device).
        case undo(channel: String, upTo: String, restore: ReadState)
    }

    /// What a request's answer means.
    enum Answer: Sendable, Equatable {
        /// The server took it (`204`).
        case accepted
        /// The server refused it for good, or failed after telling the user's sockets (a `5xx`).
        case refused
        /// Nothing was said (the network, a timeout, the rate limiter, a session being renewed): send again.
        case retry
    }

    private(set) var lanes: [String: Lane] = [:]

    /// The user read `channel` up to `message`; `before` is the chat's read state before it was marked.
    mutating func asked(channel: String, message: String, before: ReadState, now: Duration) -> [Action] {
        var lane = lanes[channel] ?? Lane()
        guard message > max(lane.floor ?? "", lane.pending ?? "") else { return [] }
        if lane.baseline == nil { lane.baseline = before }
        lane.pending = message
        let first = lane.firstAskedAt ?? now
        lane.firstAskedAt = first
        let due = min(now + Self.quiet, first + Self.longest)
        lane.due = due
        lanes[channel] = lane
        // While a request is in flight, the pending one waits for its answer.
        return lane.inFlight == nil ? [.wake(channel: channel, at: due)] : []
    }

    /// A wake-up of `channel` came: its pending request goes when it is due and none is in flight.
    mutating func woke(channel: String, now: Duration) -> [Action] {
        guard var lane = lanes[channel], lane.inFlight == nil, let pending = lane.pending, let due = lane.due else {
            return []
        }
        guard due <= now else { return [.wake(channel: channel, at: due)] }
        lane.inFlight = pending
        lane.pending = nil
        lane.firstAskedAt = nil
        lane.due = nil
        lanes[channel] = lane
        return [.send(channel: channel, message: pending)]
    }

    /// The request of `channel` carrying `message` was answered.
    mutating func answered(channel: String, message: String, _ answer: Answer, now: Duration) -> [Action] {
        guard var lane = lanes[channel], lane.inFlight == message else { return [] }
        lane.inFlight = nil
        var actions: [Action] = []
        switch answer {
        case .accepted:
            lane.accepted = max(lane.accepted ?? "", message)
            lane.retries = 0
            if lane.pending == nil { lane.baseline = nil }
        case .refused:
            lane.retries = 0
            // A newer ack is pending: its answer decides.
            if lane.pending == nil {
                if let baseline = lane.baseline {
                    actions.append(.undo(channel: channel, upTo: message, restore: Self.restored(baseline, lane)))
                }
                lane.baseline = nil
            }
        case .retry:
            lane.retries += 1
            let pending = max(lane.pending ?? "", message)
            lane.pending = pending
            let exponent = min(lane.retries - 1, 5)
            let backoff = min(Self.quiet * (1 << exponent), Self.longestRetry)
            lane.firstAskedAt = now
            lane.due = max(lane.due ?? .zero, now + backoff)
        }
        lanes[channel] = lane
        if let due = lane.due, lane.pending != nil {
            actions += due <= now ? woke(channel: channel, now: now) : [.wake(channel: channel, at: due)]
        }
        return actions
    }

    /// The read state a refusal goes back to: the baseline, moved up to what the server accepted since.
    private static func restored(_ baseline: ReadState, _ lane: Lane) -> ReadState {
        var state = baseline
        if let accepted = lane.accepted, state.lastRead.map({ $0 < accepted }) ?? true { state.lastRead = accepted }
        state.mentions = state.mentions.filter { id in state.lastRead.map { id > $0 } ?? true }
        return state
    }

    /// Forgets every channel (the session was disposed of: another account may sign in).
    mutating func reset() {
        lanes = [:]
    }
}
