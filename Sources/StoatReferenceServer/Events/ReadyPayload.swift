/// The Ready event's content, built on the state actor and encoded off it, in stoatchat's field order:
/// `users` (the signed-in user last), `servers`, `channels`, `members`, `emojis`, `voice_states`,
/// `channel_unreads`, `policy_changes`, each only when the connection's ``ReadyFilter`` asks for it.
struct ReadyPayload: Sendable {
    var users: [StoatUser]?
    var servers: [StoatServer]?
    var channels: [StoatChannel]?
    var members: [StoatMember]?
    var emojis: [StoatEmoji]?
    var voiceStates = false
    var channelUnreads: [Wire]?
    var policyChanges = false

    var wire: Wire {
        .object([
            "type": .string("Ready"),
            "users": users.map { .list($0) },
            "servers": servers.map { .list($0) },
            "channels": channels.map { .list($0) },
            "members": members.map { .list($0) },
            "emojis": emojis.map { .list($0) },
            "voice_states": voiceStates ? .array([]) : nil,
            "channel_unreads": channelUnreads.map { .array($0) },
            "policy_changes": policyChanges ? .array([]) : nil,
        ])
    }

    /// The JSON bytes of the Ready frame, padded with synthetic users to at least `minimumBytes` when given.
    ///
    /// The padding keeps the frame valid Stoat JSON: it is more users, with ids starting `PADDING`, before the
    /// signed-in user, who stays last.
    func encoded(minimumBytes: Int?) -> [UInt8] {
        paddedWire(minimumBytes: minimumBytes).bytes
    }

    /// The Ready frame's value, padded as ``encoded(minimumBytes:)`` pads it (measured in JSON bytes).
    func paddedWire(minimumBytes: Int?) -> Wire {
        let plain = wire.bytes
        guard let minimumBytes, plain.count < minimumBytes, var list = users else { return wire }
        let sample = StoatUser(id: "PADDING00000000000000000000", username: "padding-user-000000")
        let perUser = sample.wire.bytes.count + 1
        let count = (minimumBytes - plain.count) / perUser + 1
        let padding = (0..<count).map { index in
            let number = String(index)
            let suffix = String(repeating: "0", count: max(0, 6 - number.count)) + number
            let idSuffix = String(repeating: "0", count: max(0, 20 - number.count)) + number
            return StoatUser(id: "PADDING" + idSuffix, username: "padding-user-" + suffix)
        }
        list.insert(contentsOf: padding, at: max(0, list.count - 1))
        var padded = self
        padded.users = list
        return padded.wire
    }
}
