import Foundation
import Synchronization

/// The population the soak made on the server: groups (a server, its channel, its poster) and users.
struct SoakPopulation: Sendable {
    struct Group: Sendable {
        var serverID: String
        var channelID: String
        var posterID: String
        /// A second channel of the server, where the group's sessions send through their outboxes (apart from
        /// the open channel, whose newest messages the histories are checked against).
        var outboxChannelID = ""
        /// The server's other channels, which the sessions do not open: caught up after each reconnect all the
        /// same.
        var otherChannelIDs: [String] = []

        /// Every channel of the group, the open one first.
        var channelIDs: [String] { [channelID] + otherChannelIDs }
    }

    struct User: Sendable {
        var userID: String
        var token: String
        var group: Int
    }

    var groups: [Group]
    var users: [User]

    /// Asks the server's admin API for `users` users in `groups` groups.
    static func make(
        on server: ReferenceServerProcess, users: Int, groups: Int, channelsPerGroup: Int = 1
    ) async throws -> SoakPopulation {
        let answer =
            try await server.admin(
                "load/population", ["users": users, "groups": groups, "channels_per_group": channelsPerGroup])
            as? [String: Any]
        guard let groupList = answer?["groups"] as? [[String: Any]], let userList = answer?["users"] as? [[String: Any]]
        else { throw ReferenceServerProcess.Failure(description: "the population's answer has no groups or users") }
        let madeGroups = try groupList.map { object in
            guard let server = object["server_id"] as? String, let channel = object["channel_id"] as? String,
                let poster = object["poster_id"] as? String
            else { throw ReferenceServerProcess.Failure(description: "a group without its ids") }
            return Group(
                serverID: server, channelID: channel, posterID: poster,
                otherChannelIDs: object["other_channel_ids"] as? [String] ?? [])
        }
        var groups = madeGroups
        for index in groups.indices {
            let channel =
                try await server.admin(
                    "channels", ["server_id": groups[index].serverID, "name": "outbox"]) as? [String: Any]
            guard let id = channel?["_id"] as? String else {
                throw ReferenceServerProcess.Failure(description: "an outbox channel without its id")
            }
            groups[index].outboxChannelID = id
        }
        let madeUsers = try userList.map { object in
            guard let id = object["user_id"] as? String, let token = object["token"] as? String,
                let group = object["group"] as? Int
            else { throw ReferenceServerProcess.Failure(description: "a user without its id, token or group") }
            return User(userID: id, token: token, group: group)
        }
        return SoakPopulation(groups: groups, users: madeUsers)
    }
}

/// The messages the soak's posters sent, per channel, with when the server acknowledged each; those deleted
/// since are forgotten, those edited carry their last text.
///
/// A deletion is noted before the server is asked (``delete(_:channel:by:)``): the server tells the sessions
/// before it answers the poster, so a check that read a history without the message and then this record
/// would otherwise find the message owed and the history lacking it (a "lost" report that was a deletion).
final class PostedMessages: Sendable {
    struct Posted: Sendable {
        var id: String
        /// When the server answered, from the run's origin.
        var acknowledged: Duration
        var content: String
    }

    private let byChannel = Mutex<[String: [Posted]]>([:])
    /// Messages the server is being asked to delete: a history may already lack them.
    private let deleting = Mutex<Set<String>>([])
    private let failures = Atomic<Int>(0)
    private let edits = Atomic<Int>(0)
    private let deletions = Atomic<Int>(0)

    func record(_ id: String, channel: String, content: String, at time: Duration) {
        byChannel.withLock { $0[channel, default: []].append(Posted(id: id, acknowledged: time, content: content)) }
    }

    func edited(_ id: String, channel: String, content: String) {
        byChannel.withLock { posted in
            guard let index = posted[channel]?.firstIndex(where: { $0.id == id }) else { return }
            posted[channel]?[index].content = content
        }
        edits.add(1, ordering: .relaxed)
    }

    func deleted(_ id: String, channel: String) {
        byChannel.withLock { $0[channel]?.removeAll { $0.id == id } }
        deletions.add(1, ordering: .relaxed)
    }

    /// Deletes a message: noted as being deleted while `perform` asks the server (so that it is owed to no
    /// history meanwhile), forgotten once the server answered, owed again if it did not (the server keeps it).
    func delete(_ id: String, channel: String, by perform: () async throws -> Void) async throws {
        deleting.withLock { _ = $0.insert(id) }
        do {
            try await perform()
        } catch {
            deleting.withLock { _ = $0.remove(id) }
            throw error
        }
        deleted(id, channel: channel)
        deleting.withLock { _ = $0.remove(id) }
    }

    /// The messages of `channel` a fresh history must hold at `time`: among the `newest` most recent (a
    /// history's window), those acknowledged at least `allowance` ago and not being deleted.
    func owed(in channel: String, at time: Duration, newest: Int, allowance: Duration) -> [Posted] {
        // The marks first: a mark gone by now went after its message left the record, which is read next.
        let beingDeleted = deleting.withLock { $0 }
        let recent = messages(in: channel).sorted { $0.id > $1.id }.prefix(newest)
        return recent.filter { time - $0.acknowledged >= allowance && !beingDeleted.contains($0.id) }
    }

    func failed() { failures.add(1, ordering: .relaxed) }

    /// A channel's messages, in the order they were acknowledged.
    func messages(in channel: String) -> [Posted] { byChannel.withLock { $0[channel] ?? [] } }

    /// How many were posted in all (deleted ones not counted).
    var count: Int { byChannel.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    /// How many were edited, and deleted.
    var changes: (edits: Int, deletions: Int) { (edits.load(ordering: .relaxed), deletions.load(ordering: .relaxed)) }

    /// How many posts failed (the server did not answer with a message).
    var failedPosts: Int { failures.load(ordering: .relaxed) }
}

/// The faults applied lately, for a violation to name those that may have led to it.
final class AppliedFaultLog: Sendable {
    struct Entry: Sendable {
        /// When it was applied, from the run's origin.
        var at: Duration
        var fault: PlannedFault
    }

    /// How many are kept: at the plan's mean gap, the last minute and more.
    static let kept = 200
    private let entries = Mutex<[Entry]>([])

    func record(_ fault: PlannedFault, at time: Duration) {
        entries.withLock { entries in
            if entries.count == Self.kept { entries.removeFirst() }
            entries.append(Entry(at: time, fault: fault))
        }
    }

    /// The faults applied since `time` that reached session `index` (the last 30: those aimed at it and the
    /// server-wide ones).
    func description(reaching index: Int, since time: Duration) -> String {
        let lines = entries.withLock { $0 }.filter { entry in
            entry.at >= time && (entry.fault.sessions.isEmpty || entry.fault.sessions.contains(index))
        }.suffix(30).map { entry in
            var line = "\(TransitionAudit.seconds(entry.at)) \(entry.fault.kind.rawValue)"
            if entry.fault.duration > .zero { line += " for \(TransitionAudit.seconds(entry.fault.duration))" }
            if entry.fault.count != 0 { line += " (\(entry.fault.count))" }
            return line
        }
        return lines.isEmpty ? "none" : lines.joined(separator: "; ")
    }
}

/// The messages the soak's sessions sent through their outboxes: each must end sent exactly once on the server,
/// or failed with a definite reason.
///
/// It grows with the run (28 000 sends at 1 000 sessions in ten minutes) in the process whose memory the soak
/// measures, so it keeps what it cannot derive: the nonce and the text's random part, not the text itself or
/// the channel (the session's outbox channel).
final class OutboxSends: Sendable {
    struct Send: Sendable {
        var session: Int
        var nonce: String
        /// What makes the text unique.
        var token: UUID

        /// The message's text: ``text(session:token:)``.
        var content: String { OutboxSends.text(session: session, token: token) }
    }

    /// The text session `session` sends with `token`.
    static func text(session: Int, token: UUID) -> String { "outbox \(session) \(token.uuidString)" }

    private let sends = Mutex<[Send]>([])

    func record(_ send: Send) { sends.withLock { $0.append(send) } }

    var all: [Send] { sends.withLock { $0 } }
}

/// The process's resident memory and live heap, its sessions' running work and its CPU time, sampled once a
/// second.
final class SoakSamples: Sendable {
    struct Sample: Sendable {
        var time: Duration
        var residentBytes: Int
        /// What the allocator has handed out and not been given back (``LiveHeap``); `nil` where it cannot say.
        var heapBytes: Int?
        var tasks: Int
        var cpuSeconds: Double
    }

    private let samples = Mutex<[Sample]>([])

    func append(_ sample: Sample) { samples.withLock { $0.append(sample) } }

    var all: [Sample] { samples.withLock { $0 } }

    /// How much a figure grew from the window after warm-up to the last window of the fault phase:
    /// the mean of the last window over the mean of the first, minus one.
    static func growth(
        _ samples: [Sample], from start: Duration, to end: Duration, window: Duration, _ figure: (Sample) -> Double
    ) -> Double? {
        func mean(_ range: Range<Duration>) -> Double? {
            let values = samples.filter { range.contains($0.time) }.map(figure)
            return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
        }
        guard start + window <= end - window, let first = mean(start..<(start + window)),
            let last = mean((end - window)..<end), first > 0
        else { return nil }
        return last / first - 1
    }
}

/// A flag that tasks read while another clears it: the soak's "keep checking".
final class RunningFlag: Sendable {
    private let value: Atomic<Bool>

    init(_ value: Bool) { self.value = Atomic(value) }

    var isSet: Bool { value.load(ordering: .relaxed) }
    func clear() { value.store(false, ordering: .relaxed) }
}
