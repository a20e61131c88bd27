#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The `hostile` fault: a server that states absurd numbers wherever Stoat states one, for the clients that must
/// survive it (a `UserSlowmodes` with `retry_after` 2^63 − 1 once crashed a client at every launch).
struct HostileFault: Sendable {
    /// Whether the fault is on.
    var enabled = false
    /// Stoat REST requests still to refuse with an absurd `429`.
    var rejections = 0

    /// Counts of seconds beyond every bound: 2^63 − 1, 2^64 − 1 (a `u64`), negative, 1e300, the most negative
    /// `i64`, and a fraction.
    static let seconds: [Wire] = [
        .int(Int64.max), .uint(UInt64.max), .int(-1), .double(1e300), .int(Int64.min), .double(0.5),
    ]
    /// The latest and earliest dates ISO 8601's four-digit years allow, as a member's `timeout` and `joined_at`.
    static let latestTimestamp = "9999-12-31T23:59:59.999Z"
    static let earliestTimestamp = "0001-01-01T00:00:00.000Z"
    /// What every Stoat REST answer's rate-limit headers say while the fault is on: a count and a wait far past
    /// any bound, with calls left (so that they hold back nothing but the client's arithmetic).
    static let headers: [(String, String)] = [
        ("X-RateLimit-Limit", "18446744073709551615"), ("X-RateLimit-Bucket", "hostile"),
        ("X-RateLimit-Remaining", "9223372036854775807"), ("X-RateLimit-Reset-After", "9223372036854775807"),
    ]
    /// What a refused request's headers say: no call left, and a reset past any bound.
    static let refusalHeaders: [(String, String)] = [
        ("X-RateLimit-Limit", "18446744073709551615"), ("X-RateLimit-Bucket", "hostile"),
        ("X-RateLimit-Remaining", "-9223372036854775808"), ("X-RateLimit-Reset-After", "1e300"),
    ]
    /// A refused request's body: `retry_after` 1e300 milliseconds.
    static let refusalBody = Wire.object(["retry_after": .double(1e300)])
    /// The health endpoint's `poll_rate` while the fault is on.
    static let pollRate = Wire.double(1e300)
}

/// What the pipeline does to one Stoat REST request under the `hostile` fault.
enum HostileAnswer: Sendable {
    /// Refuse it: `429` with ``HostileFault/refusalBody`` and ``HostileFault/refusalHeaders``.
    case refuse
    /// Answer it, with ``HostileFault/headers`` in place of the rate limiter's.
    case decorate
}

extension ServerState {
    /// Turns the `hostile` fault on or off; turned on, every socket that listens gets the hostile frames at once.
    /// On, the next `rejections` Stoat REST requests are refused.
    func setHostile(_ enabled: Bool, rejections: Int) {
        let wasEnabled = faults.hostile.enabled
        faults.hostile = HostileFault(enabled: enabled, rejections: enabled ? max(0, rejections) : 0)
        if enabled && !wasEnabled {
            for (id, connection) in connections where connection.phase == .listening { sendHostileFrames(id) }
        }
        changed()
    }

    /// Whether the `hostile` fault is on.
    var isHostile: Bool { faults.hostile.enabled }

    /// What to do with the next Stoat REST request, or nil when the fault is off.
    func hostileAnswer() -> HostileAnswer? {
        guard faults.hostile.enabled else { return nil }
        guard faults.hostile.rejections > 0 else { return .decorate }
        faults.hostile.rejections -= 1
        rateLimited += 1
        changed()
        return .refuse
    }

    /// Sends the hostile frames to one socket, after its `Ready`: a `UserSlowmodes` with an absurd count in each
    /// entry (the first for a channel it can see, the others for channels that do not exist), and for each of the
    /// user's servers a `ServerMemberUpdate` of their own member timed out until the year 9999. Neither changes
    /// the server's data: a client that confirms them finds no slowmode and no timeout.
    func sendHostileFrames(_ connectionID: Int) {
        guard faults.hostile.enabled, let connection = connections[connectionID],
            let userID = connection.record.userID
        else { return }
        let serverIDs = serverIDsByUser[userID] ?? []
        let visible = serverIDs.lazy.compactMap { self.servers[$0]?.channels.first }.first
        let entries: [Wire] = HostileFault.seconds.enumerated().map { index, seconds in
            let channel = index == 0 ? (visible ?? "01HOSTILE000000000000000000") : "01HOSTILE00000000000000000\(index)"
            return .object([
                "channel_id": .string(channel), "duration": seconds,
                "retry_after": HostileFault.seconds[(index + 1) % HostileFault.seconds.count],
            ])
        }
        connection.socket.send(.object(["type": .string("UserSlowmodes"), "slowmodes": .array(entries)]))
        for serverID in serverIDs {
            connection.socket.send(
                .object([
                    "type": .string("ServerMemberUpdate"),
                    "id": .object(["server": .string(serverID), "user": .string(userID)]),
                    "data": .object([
                        "timeout": .string(HostileFault.latestTimestamp),
                        "joined_at": .string(HostileFault.earliestTimestamp),
                    ]),
                    "clear": .array([]),
                ]))
        }
    }
}
