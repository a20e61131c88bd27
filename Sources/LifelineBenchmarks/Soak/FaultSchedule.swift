import Foundation

/// One fault the soak plans: when it starts (from the start of the fault phase), what it is, and whom it hits.
struct PlannedFault: Sendable, Equatable {
    /// What the fault does.
    enum Kind: String, Sendable, CaseIterable {
        /// Some sessions' sockets dropped at once (no close frame).
        case dropSome = "drop-some"
        /// Every socket dropped at once: a small storm.
        case dropAll = "drop-all"
        /// The next `count` upgrades refused (HTTP 400).
        case refuseUpgrades = "refuse-upgrades"
        /// Sockets accepted during the window stay silent: no `Authenticated`, no `Ready`, no `Pong`.
        case silent
        /// No `Pong` during the window: the heartbeat fails.
        case ignorePings = "ignore-pings"
        /// Each `Ready` during the window comes `count` milliseconds late, sometimes past the Ready timeout.
        case readyDelay = "ready-delay"
        /// A frame that is not a well-formed event (or is one nobody knows) to some sessions: ignored.
        case garbage
        /// A frame larger than the client accepts to one session: the socket is dropped.
        case oversized
        /// Session lookups fail during the window: sockets that authenticate meet `InvalidSession`, REST
        /// session checks get 401; shorter than the confirmation's checks, so the sessions must survive it.
        case sessionOutage = "session-outage"
        /// Some devices go offline for the window (half of the time their sockets drop with them), then online.
        case offline
        /// Some sessions' sockets go deaf for life (Pong only, no events: stoatchat#649), and each of those
        /// sessions sends a message: its delivery deadline (or the idle check) must notice and reconnect.
        case deafenSome = "deafen-some"
        /// The answers to the next `count` sends the server stores are lost: the outboxes must look them up.
        case loseAnswers = "lose-answers"
        /// The server states absurd numbers during the window (the reference server's `hostile` fault): a
        /// `UserSlowmodes` of 2^63 − 1 seconds and member timeouts until 9999 to every socket, and rate-limit
        /// headers of 2^63 − 1 on every answer. Its `429`s are left out: a refused request waits the capped 10 s,
        /// which the soak's own allowances (a refetch within 10 s of CONNECTED) would count against the client.
        case hostile
        /// The next `count` `Message` events are each overtaken by the event published after them (the gateway's
        /// parallel processors; the reference server's `reorder-events`): a deletion or an edit may come first.
        case reorder = "reorder-events"
        /// The gateway restarts the session processes of some sessions on the gateway (``SoakSession/isOnGateway(_:)``;
        /// the reference server's `restart-session`): their sockets stay open, what is published for `count`
        /// milliseconds is lost, then a second `Ready` comes on each. The session must reconnect and catch up.
        case restartSession = "restart-session"
    }

    /// When the fault starts, from the start of the fault phase.
    var at: Duration
    var kind: Kind
    /// How long a window lasts (silent, ignore-pings, ready-delay, session-outage, offline, hostile); zero
    /// otherwise.
    var duration: Duration = .zero
    /// The sessions it hits, by index (drop-some, garbage, oversized, offline, deafen-some, restart-session).
    var sessions: [Int] = []
    /// refuse-upgrades: how many; ready-delay: the delay in milliseconds; garbage: which shape; lose-answers: how
    /// many; reorder-events: how many messages are overtaken; restart-session: how long the session process is
    /// down, in milliseconds.
    var count: Int = 0
    /// offline: whether the sockets drop too.
    var dropsSockets = false
}

/// The seeded plan of faults of a soak: the same seed, sessions and length give the same plan.
///
/// Faults start on average every ``meanGap``, their kinds drawn by ``weights``. Windows of one kind never
/// overlap (a window is a server-wide switch), a device is never taken offline twice at once, and every window
/// ends by the end of the phase; session-lookup outages are also ``outageQuiet`` apart.
enum FaultSchedule {
    static let meanGap: Duration = .milliseconds(400)

    static let weights: [(PlannedFault.Kind, Int)] = [
        (.dropSome, 8), (.dropAll, 1), (.refuseUpgrades, 2), (.silent, 2), (.ignorePings, 2), (.readyDelay, 2),
        (.garbage, 4), (.oversized, 2), (.sessionOutage, 1), (.offline, 4), (.deafenSome, 2), (.loseAnswers, 2),
        (.hostile, 2), (.reorder, 2), (.restartSession, 2),
    ]

    /// The longest a session-lookup outage lasts: shorter than the soak's confirmation window (three checks, the
    /// last at least 0.8 × (1 + 3) backoff units after the first).
    static let longestOutage: Duration = .milliseconds(800)

    /// The least quiet time between two session-lookup outages: more than twice the longest wait between two
    /// checks ((2^2 − 1) × 0.5 s × 1.2 = 1.8 s). Closer outages make one long incident for a session whose
    /// checks each land in one of them — three "invalid" answers, and ERROR, as the policy intends for a long
    /// incident (a 600 s run with seed 20261123 put 13 sessions there when outages came 0.9 s apart).
    static let outageQuiet: Duration = .seconds(4)

    /// How many garbage shapes ``garbage(_:)`` knows.
    static let garbageShapes = 9

    /// The plan for `sessions` sessions over `seconds` seconds.
    static func plan(seed: UInt64, sessions: Int, seconds: Double) -> [PlannedFault] {
        precondition(sessions > 0, "a soak needs sessions")
        var random = BenchmarkRandomNumberGenerator(seed: seed ^ 0x5EED_FA17)
        let end = Duration.milliseconds(Int64(seconds * 1000))
        let total = weights.reduce(0) { $0 + $1.1 }
        var windowEnds: [PlannedFault.Kind: Duration] = [:]
        var offlineUntil = [Duration](repeating: .zero, count: sessions)
        var plan: [PlannedFault] = []
        var time = Duration.zero
        func milliseconds(_ range: ClosedRange<Int64>) -> Duration {
            .milliseconds(Int64.random(in: range, using: &random))
        }
        func someSessions(atMost limit: Int) -> [Int] {
            let count = Int.random(in: 1...max(1, limit), using: &random)
            return Array((0..<sessions).shuffled(using: &random).prefix(count)).sorted()
        }
        while true {
            // Exponential gaps: a Poisson process of faults.
            let uniform = Double.random(in: Double.ulpOfOne..<1, using: &random)
            time += meanGap * -Foundation.log(uniform)
            guard time < end else { break }
            var pick = Int.random(in: 0..<total, using: &random)
            let kind = weights.first { kind, weight in
                defer { pick -= weight }
                return pick < weight
            }!.0
            var fault = PlannedFault(at: time, kind: kind)
            switch kind {
            case .dropSome:
                fault.sessions = someSessions(atMost: max(1, sessions / 20))
            case .dropAll:
                break
            case .refuseUpgrades:
                fault.count = Int.random(in: 1...max(1, sessions / 10), using: &random)
            case .silent:
                fault.duration = milliseconds(200...1000)
            case .ignorePings:
                fault.duration = milliseconds(500...2500)
            case .readyDelay:
                fault.duration = milliseconds(300...2000)
                fault.count = Int(Int64.random(in: 300...3000, using: &random))
            case .garbage:
                fault.sessions = someSessions(atMost: max(1, sessions / 10))
                fault.count = Int.random(in: 0..<garbageShapes, using: &random)
            case .oversized:
                fault.sessions = [Int.random(in: 0..<sessions, using: &random)]
            case .deafenSome:
                fault.sessions = someSessions(atMost: max(1, sessions / 20))
            case .loseAnswers:
                fault.count = Int.random(in: 1...max(1, sessions / 20), using: &random)
            case .sessionOutage:
                fault.duration = milliseconds(200...Int64(longestOutage.nanoseconds / 1_000_000))
            case .hostile:
                fault.duration = milliseconds(500...3000)
            case .reorder:
                fault.count = Int.random(in: 1...5, using: &random)
            case .restartSession:
                let gateway = (0..<sessions).filter(SoakSession.isOnGateway)
                guard !gateway.isEmpty else { continue }
                let count = Int.random(in: 1...max(1, gateway.count / 5), using: &random)
                fault.sessions = Array(gateway.shuffled(using: &random).prefix(count)).sorted()
                // Shorter than the soak's delivery allowance: the second Ready comes before a message posted
                // meanwhile is owed to the open channel's history.
                fault.count = Int(Int64.random(in: 100...1500, using: &random))
            case .offline:
                fault.duration = milliseconds(500...4000)
                fault.sessions = someSessions(atMost: max(1, sessions / 50)).filter { offlineUntil[$0] <= time }
                fault.dropsSockets = Bool.random(using: &random)
                guard !fault.sessions.isEmpty else { continue }
            }
            if fault.duration > .zero {
                fault.duration = min(fault.duration, end - time)
                if kind == .offline {
                    for index in fault.sessions { offlineUntil[index] = time + fault.duration }
                } else {
                    let quiet = kind == .sessionOutage ? outageQuiet : .zero
                    guard windowEnds[kind, default: .zero] + quiet <= time else { continue }
                    windowEnds[kind] = time + fault.duration
                }
            }
            plan.append(fault)
        }
        return plan
    }

    /// A frame that is no event Lifeline knows: not JSON, cut short, no type, an unknown type, a known type with
    /// the wrong shape, nested past the decoder's depth limit… The client must ignore every one and stay
    /// connected.
    static func garbage(_ shape: Int) -> String {
        switch shape % garbageShapes {
        case 0: "this is not JSON \u{7F}\u{1}"
        case 1: "{\"type\":\"Message\",\"_id\":\"01"
        case 2: "{\"no_type\":true,\"data\":[1,2,3]}"
        case 3: "{\"type\":\"SoakUnknownEvent\",\"data\":{\"x\":1}}"
        case 4: "{\"type\":\"Message\",\"_id\":42,\"channel\":[],\"author\":null}"
        case 5: "[\"type\",\"Message\"]"
        case 6: String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        case 7: "{\"type\":\"Pong\",\"data\":\"not a number\"}"
        default:
            "{\"type\":\"ChannelStartTyping\",\"id\":{\"nested\":" + String(repeating: "{\"a\":", count: 500) + "1"
                + String(repeating: "}", count: 501) + ",\"user\":7}"
        }
    }
}
