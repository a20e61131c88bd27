import Foundation
import Lifeline
import LifelineCLIOutput
import LifelineCore
import LifelineStoat
import Metrics
import Synchronization

/// What a soak measured: the figures of its last line.
struct SoakSummary: Sendable {
    var sessions: Int
    var seconds: Double
    var seed: UInt64
    var faults: Int
    var violations: Int
    var memoryGrowth: Double?
    /// How the live heap grew over the same windows as `memoryGrowth`: beside it, it tells memory the sessions
    /// hold from memory the allocator keeps after it was freed. Reported, not judged.
    var heapGrowth: Double? = nil
    /// The live heap at the end, in MiB.
    var heapMegabytes: Double? = nil
    var taskGrowth: Double?
    /// Sockets of this process left in CLOSE-WAIT at the end (the peer closed, this side never did); `nil` where
    /// `/proc` cannot tell.
    var closeWait: Int? = nil
    var lostMessages: Int
    var duplicateMessages: Int
    var reconnected: Int
    var messages: Int
    var transitions: Int
    var staleReports: Int
    var staleEventsDropped: Int64
    var allBack: Double
    var bound: Double
    var residentMegabytes: Double
    var cpuSeconds: Double
    /// Messages the sessions sent through their outboxes: sent exactly once, failed with a reason, neither
    /// (lost), or on the server more than once (duplicated).
    var outbox = OutboxFigures()
    /// Messages edited and deleted during the run, and the gaps the sessions' histories record at the end.
    var edits = 0
    var deletions = 0
    var gaps = 0
    /// Connections left on a second `Ready` (the gateway's session process restarted under the socket).
    var sessionRestarts = 0

    struct OutboxFigures: Sendable {
        var sent = 0
        var failed = 0
        var lost = 0
        var duplicated = 0
        /// Sends whose answer the server lost on purpose.
        var lostAnswers = 0
        /// Deaf sockets the delivery deadline noticed.
        var deliveryStalls = 0
    }

    var passed: Bool {
        violations == 0 && lostMessages == 0 && duplicateMessages == 0 && reconnected == sessions && outbox.lost == 0
            && outbox.duplicated == 0
    }

    var jsonLine: String {
        func rounded(_ value: Double, _ places: Double = 1000) -> JSONLine.Value {
            .number((value * places).rounded() / places)
        }
        return JSONLine.encode([
            "type": .string("soak"), "sessions": .integer(sessions), "seconds": rounded(seconds),
            "seed": .string(String(seed)), "faults": .integer(faults), "violations": .integer(violations),
            "memory_growth": memoryGrowth.map { rounded($0, 10_000) } ?? .null,
            "task_growth": taskGrowth.map { rounded($0, 10_000) } ?? .null,
            "close_wait": closeWait.map { .integer($0) } ?? .null,
            "lost_messages": .integer(lostMessages), "duplicate_messages": .integer(duplicateMessages),
            "reconnected": .integer(reconnected), "messages": .integer(messages), "transitions": .integer(transitions),
            "stale_reports": .integer(staleReports), "stale_events_dropped": .integer(Int(staleEventsDropped)),
            "all_back_s": rounded(allBack), "bound_s": rounded(bound), "rss_mb": rounded(residentMegabytes, 10),
            "cpu_s": rounded(cpuSeconds, 10), "outbox_sent": .integer(outbox.sent),
            "outbox_failed": .integer(outbox.failed), "outbox_lost": .integer(outbox.lost),
            "outbox_duplicated": .integer(outbox.duplicated), "lost_answers": .integer(outbox.lostAnswers),
            "delivery_stalls": .integer(outbox.deliveryStalls), "edits": .integer(edits),
            "deletions": .integer(deletions),
            "gaps": .integer(gaps), "session_restarts": .integer(sessionRestarts),
            "heap_growth": heapGrowth.map { rounded($0, 10_000) } ?? .null,
            "heap_mb": heapMegabytes.map { rounded($0, 10) } ?? .null,
        ])
    }
}

/// One run of `lifeline soak`: the server in a child process, the sessions in this one, the seeded faults, and
/// the checks, all along and at the end.
struct SoakRun: Sendable {
    let sessionCount: Int
    let seconds: Double
    let seed: UInt64
    let json: Bool
    let rateLimits: Bool
    let origin = ContinuousClock.now
    let violations: ViolationLog
    let metrics = CountingMetrics()
    let appliedFaults = AppliedFaultLog()

    /// A session connected this long must have replayed its subscription on its connection.
    static let replaySettle: Duration = .seconds(10)
    /// A message acknowledged this long ago must be in a connected session's fresh history.
    static let deliveryAllowance: Duration = .seconds(5)
    /// A session connected this long must have refetched its open channel.
    static let refetchAllowance: Duration = .seconds(10)

    init(sessions: Int, seconds: Double, seed: UInt64, json: Bool, rateLimits: Bool = false) {
        sessionCount = sessions
        self.seconds = seconds
        self.seed = seed
        self.json = json
        self.rateLimits = rateLimits
        violations = ViolationLog(json: json, origin: origin)
    }

    private var now: Duration { origin.duration(to: .now) }

    func run() async throws -> SoakSummary {
        raiseDescriptorLimit()
        MetricsSystem.bootstrap(metrics)
        // Without the REST rate limits unless asked: a thousand clients on one address would wait minutes for
        // their first `GET /` (an address's bucket), which measures the limit, not the sessions.
        let server = try ReferenceServerProcess.start(rateLimits: rateLimits)
        defer { server.stop() }
        let population = try await SoakPopulation.make(
            on: server, users: sessionCount, groups: max(1, sessionCount / 20), channelsPerGroup: 2)
        // One numbering of delivered ids per group: its sessions see the same messages (see `DeliveredIDs`).
        let numberings = population.groups.map { _ in MessageNumbering() }
        let sessions = population.users.enumerated().map { index, user in
            let group = population.groups[user.group]
            let onGateway = SoakSession.isOnGateway(index)
            return SoakSession(
                index: index, userID: user.userID, token: user.token, serverID: group.serverID,
                channelID: group.channelID, otherChannelIDs: group.otherChannelIDs,
                outboxChannelID: group.outboxChannelID, api: onGateway ? server.gatewayAPI : server.api,
                onGateway: onGateway, seed: seed,
                violations: violations, origin: origin, numbering: numberings[user.group])
        }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            for session in sessions {
                group.addTask { await session.client.run() }
                group.addTask { await session.followMessages() }
                group.addTask { await session.followCatchUps() }
            }
            defer { group.cancelAll() }
            return try await phases(server: server, population: population, sessions: sessions)
        }
    }

    // MARK: - Phases

    private func phases(
        server: ReferenceServerProcess, population: SoakPopulation, sessions: [SoakSession]
    ) async throws -> SoakSummary {
        try await connectAll(sessions)
        let posted = PostedMessages()
        // Every history full before the faults: the bound, not the run's length, decides what the caches hold.
        var sequence = 0
        for _ in 0..<SoakTimings.historyLimit {
            for index in population.groups.indices {
                for channel in population.groups[index].channelIDs {
                    await post(
                        in: index, channel: channel, of: population, sequence: &sequence, to: posted, server: server)
                }
            }
        }
        progress("connected \(sessions.count) sessions in \(population.groups.count) groups; faults for \(seconds) s")
        let samples = SoakSamples()
        let checking = RunningFlag(true)
        let checks = SoakChecks(
            server: server, population: population, sessions: sessions, posted: posted, violations: violations,
            faults: appliedFaults, origin: origin)
        let start = now
        let end = start + .milliseconds(Int64(seconds * 1000))
        let plan = FaultSchedule.plan(seed: seed, sessions: sessions.count, seconds: seconds)
        let sends = OutboxSends()
        let background = Task {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.sample(samples, sessions: sessions, until: checking, posted: posted) }
                group.addTask { await checks.checkServer(every: .seconds(1), while: checking) }
                group.addTask { await checks.checkMessages(every: .seconds(2), while: checking) }
            }
        }
        async let applied = runFaults(plan, from: start, server: server, sessions: sessions, sends: sends)
        async let sent: Void = send(from: sessions, to: sends, until: end)
        await post(population, to: posted, server: server, until: end, sequence: sequence)
        await sent
        let faults = await applied
        try? await Task.sleep(until: origin + end)

        // The faults stop.
        try await server.admin("reset")
        for session in sessions { session.network.set(.online) }
        let stop = now
        let bounds = sessions.map { SoakTimings.bound(failures: $0.journal.reading.failures) }
        progress("faults stopped after \(faults) faults; waiting for every session to be CONNECTED")
        let deadline = stop + (bounds.max() ?? .zero) + .seconds(30)
        while now < deadline {
            let settled = now >= stop + SoakTimings.residual
            if settled, sessions.allSatisfy({ $0.journal.reading.state == .connected }) { break }
            try? await Task.sleep(for: .milliseconds(50))
        }
        var reconnected = 0
        var allBack = Duration.zero
        for (session, bound) in zip(sessions, bounds) {
            let reading = session.journal.reading
            guard reading.state == .connected, let since = reading.connectedSince else {
                violations.record(
                    "reconnect", session: session.index,
                    "not CONNECTED \(TransitionAudit.seconds(now - stop)) after the faults stopped (\(reading.state.rawValue))"
                )
                continue
            }
            reconnected += 1
            let back = max(.zero, since - stop)
            allBack = max(allBack, back)
            if back > bound {
                violations.record(
                    "reconnect", session: session.index,
                    "CONNECTED \(TransitionAudit.seconds(back)) after the faults stopped, beyond its bound \(TransitionAudit.seconds(bound))"
                )
            }
        }

        // Quiescence, then the final checks.
        progress("\(reconnected) sessions CONNECTED again, the last \(TransitionAudit.seconds(allBack)) after the stop")
        await checks.waitForFreshHistories(until: now + .seconds(60))
        progress("histories fresh; checking the replays")
        await checks.finalReplayCheck(until: now + .seconds(30))
        progress("replays checked; waiting for every session's settled catch-up")
        await checks.waitForSettledCatchUps(until: now + CatchUpPolicy.standard.settleDelay + .seconds(30))
        progress("catch-ups settled; checking the messages")
        checking.clear()
        await background.value
        let (lost, duplicates) = try await checks.finalMessageCheck(population: population)
        progress("messages checked; waiting for every outbox entry to settle")
        await checks.waitForOutboxes(sends, until: now + .seconds(60))
        var outbox = try await checks.finalOutboxCheck(sends, population: population)
        outbox.deliveryStalls = sessions.reduce(0) { $0 + $1.journal.reading.deliveryStalls }
        let state = try await server.client.adminGet("state") as? [String: Any]
        outbox.lostAnswers = state?["lost_send_answers"] as? Int ?? 0

        let all = samples.all
        let warmUp = start + max(.seconds(5), .milliseconds(Int64(seconds * 250)))
        let window: Duration = .milliseconds(Int64(seconds * 200))
        let memoryGrowth = SoakSamples.growth(all, from: warmUp, to: end, window: window) { Double($0.residentBytes) }
        let taskGrowth = SoakSamples.growth(all, from: warmUp, to: end, window: window) { Double($0.tasks) }
        let heapGrowth =
            all.allSatisfy { $0.heapBytes != nil }
            ? SoakSamples.growth(all, from: warmUp, to: end, window: window) { Double($0.heapBytes ?? 0) } : nil
        if let memoryGrowth, memoryGrowth > 0.10 {
            violations.record("memory", "resident memory grew \(percent(memoryGrowth)) after warm-up (limit 10 %)")
        }
        if let taskGrowth, taskGrowth > 0.10 {
            violations.record(
                "tasks", "the sessions' running work grew \(percent(taskGrowth)) after warm-up (limit 10 %)")
        }
        // A socket the peer closed and this side never did is a leak: seen twice, a second apart, it is no race.
        let closeWait: Int?
        if let first = ProcessSockets.closeWait() {
            try await Task.sleep(for: .seconds(1))
            closeWait = ProcessSockets.closeWait().map { $0.intersection(first).count }
        } else {
            closeWait = nil
        }
        if let closeWait, closeWait > 0 {
            violations.record("close-wait", "\(closeWait) sockets of this process left in CLOSE-WAIT")
        }
        violations.summariseUnprinted()
        let readings = sessions.map(\.journal.reading)
        // A deaf socket found out is a stall; one on a connection the soak did not deafen is a loss of the server's
        // (a gateway session restarted, a held event the reset dropped) or a false alarm: said, for the reader.
        let undeafened = zip(sessions, readings).map { ($0.onGateway, $1.undeafenedStalls) }
        progress(
            "\(readings.reduce(0) { $0 + $1.deliveryStalls }) delivery stalls, "
                + "\(undeafened.reduce(0) { $0 + $1.1 }) of them on connections the soak did not deafen ("
                + "\(undeafened.filter(\.0).reduce(0) { $0 + $1.1 }) on the gateway)")
        let changes = posted.changes
        let gaps = sessions.reduce(0) { total, session in
            total + session.channelIDs.reduce(0) { $0 + session.client.cachedHistory(of: $1).gaps.count }
        }
        var summary = SoakSummary(
            sessions: sessions.count, seconds: seconds, seed: seed, faults: faults, violations: violations.count,
            memoryGrowth: memoryGrowth, taskGrowth: taskGrowth, lostMessages: lost, duplicateMessages: duplicates,
            reconnected: reconnected, messages: posted.count, transitions: readings.reduce(0) { $0 + $1.transitions },
            staleReports: readings.reduce(0) { $0 + $1.staleReports },
            staleEventsDropped: metrics.total("lifeline_session_stale_events_total"),
            allBack: allBack.secondsValue, bound: (bounds.max() ?? .zero).secondsValue,
            residentMegabytes: Double(residentBytes()) / 1_048_576, cpuSeconds: cpuSeconds(), outbox: outbox)
        summary.closeWait = closeWait
        summary.heapGrowth = heapGrowth
        summary.heapMegabytes = LiveHeap.bytes().map { Double($0) / 1_048_576 }
        summary.edits = changes.edits
        summary.deletions = changes.deletions
        summary.gaps = gaps
        summary.sessionRestarts = readings.reduce(0) { $0 + $1.sessionRestarts }
        return summary
    }

    /// Starts the sessions a hundred at a time, each hundred CONNECTED before the next starts.
    private func connectAll(_ sessions: [SoakSession]) async throws {
        for batch in stride(from: 0, to: sessions.count, by: 100) {
            let slice = sessions[batch..<min(sessions.count, batch + 100)]
            for session in slice { await session.start() }
            let deadline = now + .seconds(120)
            while slice.contains(where: { $0.client.session.snapshot.state != .connected }) {
                guard now < deadline else {
                    throw ReferenceServerProcess.Failure(description: "sessions did not connect before the faults")
                }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    // MARK: - Faults

    /// Applies every planned fault at its time; returns how many were applied.
    ///
    /// In a discarding group: a task group keeps each finished child until its result is read, and reading
    /// them only at the end kept every fault's task (about 4 KB each) for the whole run, counted as growth.
    private func runFaults(
        _ plan: [PlannedFault], from start: Duration, server: ReferenceServerProcess, sessions: [SoakSession],
        sends: OutboxSends
    ) async -> Int {
        let applied = AppliedFaults()
        await withDiscardingTaskGroup { group in
            for fault in plan {
                try? await Task.sleep(until: origin + start + fault.at)
                group.addTask {
                    if await self.apply(fault, server: server, sessions: sessions, sends: sends) {
                        applied.count.add(1, ordering: .relaxed)
                    }
                }
            }
        }
        return applied.count.load(ordering: .relaxed)
    }

    /// How many faults were applied, counted by the faults' tasks.
    private final class AppliedFaults: Sendable {
        let count = Atomic<Int>(0)
    }

    /// Applies one fault, and undoes it at the end of its window.
    private func apply(
        _ fault: PlannedFault, server: ReferenceServerProcess, sessions: [SoakSession], sends: OutboxSends
    ) async -> Bool {
        let targets = fault.sessions.map { sessions[$0] }
        appliedFaults.record(fault, at: now)
        do {
            switch fault.kind {
            case .dropSome:
                try await server.admin("load/drop", ["user_ids": targets.map(\.userID)])
            case .dropAll:
                try await server.admin("drop-sockets")
            case .refuseUpgrades:
                try await server.admin("refuse-upgrades", ["count": fault.count])
            case .silent, .ignorePings:
                try await server.admin(fault.kind.rawValue, ["enabled": true])
                try? await Task.sleep(for: fault.duration)
                try await server.admin(fault.kind.rawValue, ["enabled": false])
            case .readyDelay:
                try await server.admin("ready-delay", ["milliseconds": fault.count])
                try? await Task.sleep(for: fault.duration)
                try await server.admin("ready-delay", ["milliseconds": 0])
            case .garbage:
                let text = FaultSchedule.garbage(fault.count)
                for target in targets { try await server.admin("raw-frame", ["text": text, "token": target.token]) }
            case .oversized:
                let padding = String(repeating: "x", count: SoakTimings.maximumFrameSize + 1024)
                let text = "{\"type\":\"SoakPadding\",\"padding\":\"\(padding)\"}"
                for target in targets { try await server.admin("raw-frame", ["text": text, "token": target.token]) }
            case .sessionOutage:
                try await server.admin("session-outage", ["seconds": fault.duration.secondsValue])
            case .hostile:
                try await server.admin("hostile", ["enabled": true])
                try? await Task.sleep(for: fault.duration)
                try await server.admin("hostile", ["enabled": false])
            case .offline:
                for target in targets { target.network.set(.offline) }
                if fault.dropsSockets { try await server.admin("load/drop", ["user_ids": targets.map(\.userID)]) }
                try? await Task.sleep(for: fault.duration)
                for target in targets { target.network.set(.online) }
            case .deafenSome:
                let first = targets.map { target in
                    let generation = target.journal.reading.generation
                    target.journal.deafened.withLock { $0 = generation...generation }
                    return generation
                }
                try await server.admin("deafen-sockets", ["user_ids": targets.map(\.userID)])
                for (target, first) in zip(targets, first) {
                    let last = target.journal.reading.generation
                    target.journal.deafened.withLock { $0 = first...last }
                }
                // The user says something: the socket owes its echo.
                for target in targets { await send(from: target, to: sends) }
            case .loseAnswers:
                try await server.admin("lose-send-answers", ["count": fault.count])
            case .reorder:
                try await server.admin("reorder-events", ["count": fault.count])
            case .restartSession:
                for target in targets {
                    try await server.admin(
                        "restart-session", ["user_id": target.userID, "down_milliseconds": fault.count])
                }
            }
            return true
        } catch {
            // The admin API did not answer: the soak's own trouble, not Lifeline's; said, not counted.
            for target in targets where fault.kind == .offline { target.network.set(.online) }
            progress("fault \(fault.kind.rawValue) at \(TransitionAudit.seconds(fault.at)) not applied: \(error)")
            return false
        }
    }

    // MARK: - Messages

    /// Sends through the sessions' outboxes until `end`: on average one message every 20 seconds per session,
    /// from sessions drawn at random.
    private func send(from sessions: [SoakSession], to sends: OutboxSends, until end: Duration) async {
        var random = BenchmarkRandomNumberGenerator(seed: seed ^ 0x4F55_5442_4F58)
        let meanGap = 20 / Double(sessions.count)
        while true {
            let gap = -Foundation.log(Double.random(in: Double.ulpOfOne..<1, using: &random)) * meanGap
            let next = now + .milliseconds(Int64(gap * 1000))
            guard next < end else { return }
            try? await Task.sleep(until: origin + next)
            await send(from: sessions[Int.random(in: 0..<sessions.count, using: &random)], to: sends)
        }
    }

    /// Sends one message through a session's outbox and records it.
    private func send(from session: SoakSession, to sends: OutboxSends) async {
        let token = UUID()
        let message = OutgoingMessage(content: OutboxSends.text(session: session.index, token: token))
        do {
            let entry = try await session.client.send(message, to: session.outboxChannelID)
            sends.record(.init(session: session.index, nonce: entry.nonce, token: token))
        } catch {
            violations.record("outbox", session: session.index, "a message could not be queued: \(error)")
        }
    }

    /// Posts messages as each group's poster until `end`, on average one every two seconds per group, in
    /// groups and channels drawn at random; one in ten steps edits a recent message of a group's open channel
    /// instead, one in twenty deletes one.
    private func post(
        _ population: SoakPopulation, to posted: PostedMessages, server: ReferenceServerProcess, until end: Duration,
        sequence start: Int
    ) async {
        var random = BenchmarkRandomNumberGenerator(seed: seed ^ 0x0000_0000_4D45_5353)
        let meanGap = 2 / Double(population.groups.count)
        var sequence = start
        while true {
            let gap = -Foundation.log(Double.random(in: Double.ulpOfOne..<1, using: &random)) * meanGap
            let next = now + .milliseconds(Int64(gap * 1000))
            guard next < end else { return }
            try? await Task.sleep(until: origin + next)
            let index = Int.random(in: 0..<population.groups.count, using: &random)
            let group = population.groups[index]
            let roll = Int.random(in: 0..<20, using: &random)
            let recent = posted.messages(in: group.channelID).suffix(SoakTimings.historyLimit / 2)
            if roll < 3, let target = recent.randomElement(using: &random) {
                await change(
                    target, in: group, deleting: roll == 0, sequence: &sequence, posted: posted, server: server)
                continue
            }
            let channel = group.channelIDs.randomElement(using: &random) ?? group.channelID
            await post(in: index, channel: channel, of: population, sequence: &sequence, to: posted, server: server)
        }
    }

    /// Edits (or deletes) one of a group's messages as its poster, while the sessions may be away: the open
    /// channel's re-verification after their next reconnect must find it.
    private func change(
        _ target: PostedMessages.Posted, in group: SoakPopulation.Group, deleting: Bool, sequence: inout Int,
        posted: PostedMessages, server: ReferenceServerProcess
    ) async {
        sequence += 1
        do {
            if deleting {
                try await posted.delete(target.id, channel: group.channelID) {
                    _ = try await server.admin("messages/\(target.id)/delete")
                }
            } else {
                let content = "soak edit \(sequence)"
                _ = try await server.admin("messages/\(target.id)/edit", ["content": content])
                posted.edited(target.id, channel: group.channelID, content: content)
            }
        } catch {
            posted.failed()
        }
    }

    /// Posts one message as group `index`'s poster in `channel` (its open channel when not said).
    private func post(
        in index: Int, channel: String? = nil, of population: SoakPopulation, sequence: inout Int,
        to posted: PostedMessages, server: ReferenceServerProcess
    ) async {
        let group = population.groups[index]
        let channel = channel ?? group.channelID
        sequence += 1
        let content = "soak message \(sequence) in group \(index)"
        do {
            let message =
                try await server.admin(
                    "messages", ["user_id": group.posterID, "channel_id": channel, "content": content])
                as? [String: Any]
            guard let id = message?["_id"] as? String else { throw CancellationError() }
            posted.record(id, channel: channel, content: content, at: now)
        } catch {
            posted.failed()
        }
    }

    // MARK: - Sampling and progress

    private func sample(
        _ samples: SoakSamples, sessions: [SoakSession], until checking: RunningFlag, posted: PostedMessages
    ) async {
        var tick = 0
        while checking.isSet {
            let tasks = sessions.reduce(0) { $0 + $1.client.session.runningTasks }
            let heap = LiveHeap.bytes()
            samples.append(
                .init(
                    time: now, residentBytes: residentBytes(), heapBytes: heap, tasks: tasks, cpuSeconds: cpuSeconds()))
            if tick % 5 == 0 {
                var states: [String: Int] = [:]
                for session in sessions { states[session.client.session.snapshot.state.rawValue, default: 0] += 1 }
                let counts = states.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                progress(
                    "\(counts); \(posted.count) messages; \(tasks) tasks; \(residentBytes() >> 20) MiB"
                        + (heap.map { " (live heap \($0 >> 20) MiB); " } ?? "; ")
                        + "\(violations.count) violations")
            }
            tick += 1
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// A progress line: JSON (`{"type":"progress",…}`) with `--json`, text otherwise.
    func progress(_ text: String) {
        let time = (now.secondsValue * 10).rounded() / 10
        if json {
            emit(JSONLine.encode(["type": .string("progress"), "time": .number(time), "detail": .string(text)]))
        } else {
            emit("[\(time) s] \(text)")
        }
    }

    private func percent(_ value: Double) -> String { "\((value * 1000).rounded() / 10) %" }
}
