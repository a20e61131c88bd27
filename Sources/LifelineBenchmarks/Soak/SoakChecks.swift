import Foundation
import Lifeline
import LifelineCore
import LifelineStoat
import Synchronization

/// The soak's checks of the server's records and the sessions' caches, all along and at the end.
///
/// - Sockets: the server notes, as each `Authenticate` arrives, whether its token already has an open socket; any
///   such overlap is a violation.
/// - Replay: a connection may carry at most one `Subscribe` for the session's server, and only for it; a session
///   CONNECTED on its connection for ``SoakRun/replaySettle`` must have exactly one.
/// - Messages: a session CONNECTED for ``SoakRun/deliveryAllowance`` with a fresh history of its open channel
///   holds every message acknowledged that long ago among the channel's newest (the history's bound), once;
///   its open channel is fresh within ``SoakRun/refetchAllowance`` of connecting. At the end, every history
///   holds exactly the server's newest messages.
///
/// A session's reading is taken before and after the server's report or the cache's history, and the check is
/// made only when no transition came in between, so a fault landing mid-check is never blamed on Lifeline.
final class SoakChecks: Sendable {
    private struct State {
        var closedAfter = 0
        var overlapsSeen = 0
        /// (connection, kind) pairs already reported, so one fault is one violation.
        var reported: Set<String> = []
    }

    let server: ReferenceServerProcess
    let sessions: [SoakSession]
    let posted: PostedMessages
    let violations: ViolationLog
    let faults: AppliedFaultLog
    let origin: ContinuousClock.Instant
    private let byUser: [String: SoakSession]
    private let state = Mutex(State())

    init(
        server: ReferenceServerProcess, population: SoakPopulation, sessions: [SoakSession], posted: PostedMessages,
        violations: ViolationLog, faults: AppliedFaultLog, origin: ContinuousClock.Instant
    ) {
        self.server = server
        self.sessions = sessions
        self.posted = posted
        self.violations = violations
        self.faults = faults
        self.origin = origin
        byUser = Dictionary(uniqueKeysWithValues: sessions.map { ($0.userID, $0) })
    }

    private var now: Duration { origin.duration(to: .now) }

    /// Records a violation once per key.
    private func once(_ key: String, _ kind: String, session: Int?, _ detail: @autoclosure () -> String) {
        guard state.withLock({ $0.reported.insert(key).inserted }) else { return }
        violations.record(kind, session: session, detail())
    }

    /// What a violation of `session` quotes: its last log entries, and the faults since `time` that reached it.
    private func context(of session: SoakSession, since time: Duration) -> String {
        " — its log: \(session.journal.recentEntries) — faults since \(TransitionAudit.seconds(time)) that reached it "
            + "(of the last \(AppliedFaultLog.kept)): \(faults.description(reaching: session.index, since: time))"
    }

    // MARK: - The server's records

    /// The server's report, decoded.
    private struct Report {
        struct Connection {
            var id: Int
            var userID: String?
            var isOpen: Bool
            var ready: Bool
            var subscribes: [String: Int]
        }

        var overlapCount: Int
        var overlaps: [(userID: String?, connections: [Int])]
        var closedCount: Int
        var connections: [Connection]
    }

    private func report() async throws -> Report {
        let closedAfter = state.withLock { $0.closedAfter }
        guard let object = try await server.admin("load/report", ["closed_after": closedAfter]) as? [String: Any],
            let overlapCount = object["overlap_count"] as? Int, let closedCount = object["closed_count"] as? Int
        else { throw ReferenceServerProcess.Failure(description: "the load report is not what it should be") }
        func connections(_ key: String) -> [Report.Connection] {
            (object[key] as? [[String: Any]] ?? []).compactMap { item in
                guard let id = item["id"] as? Int else { return nil }
                return Report.Connection(
                    id: id, userID: item["user_id"] as? String, isOpen: item["open"] as? Bool ?? false,
                    ready: item["ready"] as? Bool ?? false, subscribes: item["subscribes"] as? [String: Int] ?? [:])
            }
        }
        let overlaps = (object["overlaps"] as? [[String: Any]] ?? []).map {
            (userID: $0["user_id"] as? String, connections: $0["connections"] as? [Int] ?? [])
        }
        return Report(
            overlapCount: overlapCount, overlaps: overlaps, closedCount: closedCount,
            connections: connections("closed") + connections("open"))
    }

    /// Reads the server's report every `interval` while `running`, checking sockets and replays.
    func checkServer(every interval: Duration, while running: RunningFlag) async {
        while running.isSet {
            await checkServerOnce()
            try? await Task.sleep(for: interval)
        }
    }

    /// One check of the server's report; returns the open connections by user (nil when the server did not
    /// answer).
    @discardableResult
    func checkServerOnce() async -> [String: [Int: (ready: Bool, subscribes: [String: Int])]]? {
        let before = sessions.map(\.journal.reading)
        let asked = now
        guard let report = try? await report() else { return nil }
        let after = sessions.map(\.journal.reading)
        let (newOverlaps, listed) = state.withLock {
            state -> (Int, ArraySlice<(userID: String?, connections: [Int])>) in
            defer {
                state.overlapsSeen = report.overlapCount
                state.closedAfter = report.closedCount
            }
            let fresh = report.overlapCount - state.overlapsSeen
            return (fresh, report.overlaps.dropFirst(min(state.overlapsSeen, report.overlaps.count)))
        }
        for overlap in listed {
            violations.record(
                "sockets", session: overlap.userID.flatMap { byUser[$0]?.index },
                "a socket authenticated while another with the same session was open (connections \(overlap.connections))"
            )
        }
        if newOverlaps > listed.count {
            violations.record(
                "sockets", "\(newOverlaps - listed.count) more overlapping sockets (not listed by the server)")
        }
        var open: [String: [Int: (ready: Bool, subscribes: [String: Int])]] = [:]
        for connection in report.connections {
            guard let userID = connection.userID, let session = byUser[userID] else { continue }
            for (serverID, count) in connection.subscribes {
                if serverID != session.serverID {
                    once(
                        "\(connection.id) other", "replay", session: session.index,
                        "connection \(connection.id) subscribed to \(serverID), which the session never asked for")
                } else if count > 1 {
                    once(
                        "\(connection.id) twice", "replay", session: session.index,
                        "connection \(connection.id) sent Subscribe for the session's server \(count) times")
                }
            }
            if connection.isOpen {
                open[userID, default: [:]][connection.id] = (connection.ready, connection.subscribes)
            }
        }
        // Exactly once: a session CONNECTED long enough on the one connection the server holds for it.
        for (index, session) in sessions.enumerated() {
            let reading = before[index]
            guard reading.state == .connected, after[index].transitions == reading.transitions,
                let since = reading.connectedSince, asked - since >= SoakRun.replaySettle,
                let connections = open[session.userID], connections.count == 1, let (id, connection) = connections.first
            else { continue }
            let count = connection.subscribes[session.serverID] ?? 0
            if !connection.ready || count != session.expectedSubscribes {
                once(
                    "\(id) once", "replay", session: index,
                    "CONNECTED for \(TransitionAudit.seconds(asked - since)) on connection \(id), which "
                        + (connection.ready ? "sent \(count) Subscribe for the session's server" : "never got Ready"))
            }
        }
        return open
    }

    /// At the end: waits until every session's one open connection carries its `Subscribe`, then reports those
    /// that do not.
    func finalReplayCheck(until deadline: Duration) async {
        var open: [String: [Int: (ready: Bool, subscribes: [String: Int])]] = [:]
        while true {
            open = await checkServerOnce() ?? open
            let done = sessions.allSatisfy { session in
                guard let connections = open[session.userID], connections.count == 1 else { return false }
                return connections.first?.value.subscribes[session.serverID] ?? 0 == session.expectedSubscribes
            }
            if done || now >= deadline { break }
            try? await Task.sleep(for: .milliseconds(500))
        }
        for session in sessions {
            let connections = open[session.userID] ?? [:]
            guard connections.count == 1, let (id, connection) = connections.first else {
                violations.record(
                    "replay", session: session.index,
                    "the server holds \(connections.count) open connections for the session at the end")
                continue
            }
            let count = connection.subscribes[session.serverID] ?? 0
            if count != session.expectedSubscribes {
                once(
                    "\(id) once", "replay", session: session.index,
                    "connection \(id), open at the end, sent \(count) Subscribe for the session's server")
            }
        }
    }

    // MARK: - The caches

    /// Checks every session's open channel every `interval` while `running`.
    func checkMessages(every interval: Duration, while running: RunningFlag) async {
        while running.isSet {
            checkMessagesOnce()
            try? await Task.sleep(for: interval)
        }
    }

    func checkMessagesOnce() {
        for session in sessions {
            let before = session.journal.reading
            let history = session.client.cachedHistory(of: session.channelID)
            let after = session.journal.reading
            let time = now
            let ids = history.messages.map(\.id)
            var seen = Set<String>()
            for id in ids where !seen.insert(id).inserted {
                once(
                    "\(session.index) \(id) twice", "duplicate", session: session.index,
                    "message \(id) is twice in its history")
            }
            guard before.state == .connected, after.transitions == before.transitions,
                let since = before.connectedSince
            else { continue }
            if history.isStale {
                if time - since >= SoakRun.refetchAllowance {
                    once(
                        "\(session.index) stale \(before.transitions)", "history", session: session.index,
                        "CONNECTED for \(TransitionAudit.seconds(time - since)) with its open channel still stale "
                            + "(not refetched after the reconnect)")
                }
                continue
            }
            guard time - since >= SoakRun.deliveryAllowance else { continue }
            // A socket the soak deafened misses messages until the delivery deadline or check notices.
            if session.journal.isDeafened(before.generation) { continue }
            // The history keeps the newest `limit`: a message is owed while fewer than `limit` are newer, one of
            // which may be on its way unacknowledged. Half the window: deletions move it back a little. Read after
            // the history: a message it lacks because the poster is deleting it is marked so by now.
            let due = posted.owed(
                in: session.channelID, at: time, newest: SoakTimings.historyLimit / 2,
                allowance: SoakRun.deliveryAllowance)
            let missing = due.filter { !seen.contains($0.id) }
            for message in missing {
                once(
                    "\(session.index) \(message.id) lost", "lost", session: session.index,
                    "CONNECTED for \(TransitionAudit.seconds(time - since)) with a fresh history that lacks message "
                        + "\(message.id), acknowledged \(TransitionAudit.seconds(time - message.acknowledged)) ago"
                        + (session.delivered(message.id) ? " (the message stream delivered it)" : "")
                        + context(of: session, since: since - .seconds(20)))
            }
        }
    }

    /// Waits until every session's catch-up has run its second pass on its last connection — what was posted in
    /// the half-minute before that connection's `Ready`, which stoatchat's lagging `last_message_id` hid, is
    /// found only then — and records those that have not by the deadline.
    func waitForSettledCatchUps(until deadline: Duration) async {
        func unsettled() -> [SoakSession] {
            sessions.filter { session in
                guard let since = session.journal.reading.connectedSince else { return true }
                return !session.settledCatchUp(since: since)
            }
        }
        while now < deadline, !unsettled().isEmpty { try? await Task.sleep(for: .milliseconds(200)) }
        for session in unsettled() {
            violations.record(
                "catch-up", session: session.index, "no settled catch-up pass since its last CONNECTED by the deadline")
        }
    }

    /// Waits until every session's open channel is fresh; those still stale at the deadline are violations.
    func waitForFreshHistories(until deadline: Duration) async {
        while now < deadline,
            sessions.contains(where: { $0.client.cachedHistory(of: $0.channelID).isStale })
        {
            try? await Task.sleep(for: .milliseconds(50))
        }
        for session in sessions where session.client.cachedHistory(of: session.channelID).isStale {
            violations.record("history", session: session.index, "its open channel is still stale at the end")
        }
    }

    /// Compares every session's history of every channel of its group with the server's newest messages there (as
    /// many as a history keeps): a message the server lists at or above the oldest message the history holds
    /// (below it is older history) must be in the history or inside a gap it records, else it is lost; one the
    /// history holds that the server does not list was deleted and not noticed; in the open channel, a text the
    /// server has edited must be the history's too. Returns the messages lost and duplicated (twice in a history).
    func finalMessageCheck(population: SoakPopulation) async throws -> (lost: Int, duplicates: Int) {
        struct Truth {
            var ids: [String]
            var contents: [String: String]
        }
        var truth: [String: Truth] = [:]
        let limit = SoakTimings.historyLimit
        for group in population.groups {
            guard let member = sessions.first(where: { $0.channelID == group.channelID }) else { continue }
            for channel in group.channelIDs {
                let page = try await server.get(
                    "/channels/\(channel)/messages?limit=\(limit)&sort=Latest", token: member.token)
                let items = (page as? [[String: Any]]) ?? []
                let ids = items.compactMap { $0["_id"] as? String }.sorted()
                let record = posted.messages(in: channel).map(\.id).sorted().suffix(limit)
                if Array(record) != ids {
                    violations.record(
                        "server", "the server's newest \(limit) messages in \(channel) are not the ones it acknowledged"
                    )
                }
                var contents: [String: String] = [:]
                for item in items {
                    if let id = item["_id"] as? String { contents[id] = item["content"] as? String }
                }
                truth[channel] = Truth(ids: ids, contents: contents)
            }
        }
        var lost = 0
        var duplicates = 0
        for session in sessions {
            for channel in session.channelIDs {
                let history = session.client.cachedHistory(of: channel)
                let ids = history.messages.map(\.id)
                let server = truth[channel] ?? Truth(ids: [], contents: [:])
                let held = Set(ids)
                duplicates += ids.count - held.count
                let window = server.ids.filter { id in ids.first.map { id >= $0 } ?? true }
                let missing = window.filter { id in !held.contains(id) && !history.gaps.contains { $0.contains(id) } }
                lost += missing.count
                if !missing.isEmpty {
                    violations.record(
                        "lost", session: session.index,
                        "its history of \(channel) lacks \(missing.count) of the channel's \(window.count) newest "
                            + "messages at the end, outside every gap: " + missing.prefix(5).joined(separator: ", ")
                            + " (the message stream delivered \(missing.filter(session.delivered).count) of them)"
                            + context(of: session, since: .zero))
                }
                if ids.last != server.ids.last {
                    violations.record(
                        "lost", session: session.index,
                        "its history of \(channel) ends at \(ids.last ?? "nothing"), the server's at "
                            + "\(server.ids.last ?? "nothing")")
                }
                let unknown = held.subtracting(server.ids).filter { id in server.ids.first.map { id >= $0 } ?? true }
                if !unknown.isEmpty {
                    violations.record(
                        "unknown", session: session.index,
                        "its history of \(channel) holds \(unknown.count) messages the server does not list: "
                            + unknown.sorted().prefix(5).joined(separator: ", "))
                }
                guard channel == session.channelID else { continue }
                let stale = history.messages.filter { message in
                    server.contents[message.id].map { $0 != message.content } ?? false
                }
                if !stale.isEmpty {
                    violations.record(
                        "edit", session: session.index,
                        "its open channel holds \(stale.count) messages with a text the server has since edited: "
                            + stale.prefix(5).map(\.id).joined(separator: ", "))
                }
            }
        }
        return (lost, duplicates)
    }

    // MARK: - The outboxes

    /// Waits until every message sent through an outbox is sent or failed; those still queued or sending at the
    /// deadline are left to ``finalOutboxCheck(_:population:)``.
    func waitForOutboxes(_ sends: OutboxSends, until deadline: Duration) async {
        let all = sends.all
        while now < deadline {
            let open = all.filter { send in
                switch sessions[send.session].client.outboxState(of: send.nonce) {
                case .sent?, .failed?: false
                default: true
                }
            }
            if open.isEmpty { return }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Every message sent through an outbox must be on the server exactly once when it says `sent` (with the id
    /// it says), and not at all when it says `failed` (with a reason); one in neither state is lost.
    func finalOutboxCheck(_ sends: OutboxSends, population: SoakPopulation) async throws -> SoakSummary.OutboxFigures {
        var onServer: [String: [String]] = [:]  // content → ids
        for group in population.groups {
            guard let member = sessions.first(where: { $0.outboxChannelID == group.outboxChannelID }) else { continue }
            var after = String(repeating: "0", count: 26)
            while true {
                let page = try await server.get(
                    "/channels/\(group.outboxChannelID)/messages?limit=100&sort=Oldest&after=\(after)",
                    token: member.token)
                let messages = (page as? [[String: Any]]) ?? []
                for message in messages {
                    guard let id = message["_id"] as? String, let content = message["content"] as? String else {
                        continue
                    }
                    onServer[content, default: []].append(id)
                }
                guard messages.count == 100, let last = messages.compactMap({ $0["_id"] as? String }).max(),
                    last > after
                else { break }
                after = last
            }
        }
        var figures = SoakSummary.OutboxFigures()
        for send in sends.all {
            let copies = onServer[send.content] ?? []
            switch sessions[send.session].client.outboxState(of: send.nonce) {
            case .sent(let id)?:
                if copies == [id] {
                    figures.sent += 1
                } else if copies.count > 1 {
                    figures.duplicated += 1
                    violations.record(
                        "outbox", session: send.session,
                        "\(send.nonce) is on the server \(copies.count) times: \(copies.joined(separator: ", "))")
                } else {
                    figures.lost += 1
                    violations.record(
                        "outbox", session: send.session,
                        "\(send.nonce) was reported sent as \(id), the server lists \(copies.isEmpty ? "none" : copies.joined(separator: ", "))"
                    )
                }
            case .failed(let failure)?:
                figures.failed += 1
                if !copies.isEmpty || failure.code.rawValue.isEmpty {
                    figures.duplicated += copies.isEmpty ? 0 : 1
                    violations.record(
                        "outbox", session: send.session,
                        "\(send.nonce) failed (\(failure)) with \(copies.count) copies on the server")
                }
            case let state:
                figures.lost += 1
                violations.record(
                    "outbox", session: send.session,
                    "\(send.nonce) never settled: \(state.map { "\($0)" } ?? "unknown to its client"), \(copies.count) copies on the server"
                )
            }
        }
        return figures
    }
}
